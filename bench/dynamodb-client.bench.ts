/**
 * The light DynamoDB client (`LightDynamoDbClient`, what a deployed function uses) against the AWS
 * SDK's document client (`DURABLE_DYNAMODB_CLIENT=sdk`), on DynamoDB Local:
 *
 * - cold: a fresh node process imports the client, built as a DurableFunction bundles it (ESM,
 *   whitespace and syntax minified, the SDK bundled), and makes its first PutItem and GetItem:
 *   what a cold start pays to reach DynamoDB (median of `--cold` processes);
 * - warm: in one process, `--requests` PutItem then as many GetItem, one at a time, each client in
 *   turn: request latency (p50, p99) and the process CPU per request.
 *
 *   npm --prefix bench run bench:dynamodb-client [-- --requests 300 --cold 9]
 *
 * DURABLE_BENCH_DYNAMODB_ENDPOINT=http://127.0.0.1:<port> measures on that DynamoDB Local instead
 * of starting one. DynamoDB Local answers in a few ms on this machine, so the figures compare the
 * clients' own cost; against DynamoDB itself the network adds the same to both.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand as SdkGet, PutCommand as SdkPut } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, LightDynamoDbClient } from '@durable-lambda/aws';
import { ESM_MAIN_FIELDS, ESM_REQUIRE_BANNER } from '@durable-lambda/cdk';
import { build } from 'esbuild';
import { GetCommand, PutCommand } from '../packages/aws/src/dynamodb/commands';
import { type DynamoDbLocal, startDynamoDbLocal } from '../test/support/dynamodb-local-process';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  const value = i >= 0 ? Number(process.argv[i + 1]) : Number.NaN;
  return Number.isInteger(value) && value > 0 ? value : fallback;
};
const REQUESTS = arg('--requests', 300);
const COLD = arg('--cold', 9);
const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))] ?? Number.NaN;

/** Each client's first PutItem and GetItem, as a module a fresh process imports (timed by the caller). */
const COLD_SOURCES = {
  light: `import { LightDynamoDbClient } from '@durable-lambda/aws';
import { GetCommand, PutCommand } from '${join(ROOT, 'packages/aws/src/dynamodb/commands.ts')}';
export async function first(endpoint, table) {
  const client = new LightDynamoDbClient({ region: 'us-east-1', endpoint, credentials: ${JSON.stringify(CREDENTIALS)} });
  await client.send(new PutCommand({ TableName: table, Item: { pk: 'cold', sk: String(process.pid), n: 1 } }));
  await client.send(new GetCommand({ TableName: table, Key: { pk: 'cold', sk: String(process.pid) }, ConsistentRead: true }));
  client.destroy();
}
`,
  sdk: `import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
export async function first(endpoint, table) {
  const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint, credentials: ${JSON.stringify(CREDENTIALS)} }), { marshallOptions: { removeUndefinedValues: true } });
  await client.send(new PutCommand({ TableName: table, Item: { pk: 'cold', sk: String(process.pid), n: 1 } }));
  await client.send(new GetCommand({ TableName: table, Key: { pk: 'cold', sk: String(process.pid) }, ConsistentRead: true }));
  client.destroy();
}
`,
};

/** Builds a cold-start module as the construct would bundle it; its file. */
async function coldBundle(dir: string, name: keyof typeof COLD_SOURCES): Promise<{ file: string; kb: number }> {
  const entry = join(dir, `${name}.mjs`);
  writeFileSync(entry, COLD_SOURCES[name]);
  const outfile = join(dir, `${name}.out.mjs`);
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minifyWhitespace: true,
    minifySyntax: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    mainFields: [...ESM_MAIN_FIELDS],
    banner: { js: ESM_REQUIRE_BANNER },
    outfile,
    metafile: true,
    logLevel: 'error',
    plugins: [
      {
        name: 'durable-lambda-sources',
        setup(b) {
          b.onResolve({ filter: /^@durable-lambda\/[a-z]+$/ }, (args) => ({
            path: join(ROOT, 'packages', args.path.slice('@durable-lambda/'.length), 'src', 'index.ts'),
          }));
        },
      },
    ],
  });
  const bytes = Object.values(result.metafile.outputs)[0]?.bytes ?? 0;
  return { file: outfile, kb: bytes / 1024 };
}

/** A fresh process: import ms, first PutItem + GetItem ms, CPU ms of both. */
function coldRun(file: string, endpoint: string, table: string): { importMs: number; firstMs: number; cpuMs: number } {
  const script = `const c=process.cpuUsage(),t=performance.now();const m=await import(${JSON.stringify(`file://${file}`)});const i=performance.now();await m.first(${JSON.stringify(endpoint)},${JSON.stringify(table)});const u=process.cpuUsage(c);console.log(i-t,performance.now()-i,(u.user+u.system)/1000)`;
  const out = execFileSync(process.execPath, ['--input-type=module', '--no-warnings', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const [importMs, firstMs, cpuMs] = (out.trim().split('\n').pop() ?? '').split(' ').map(Number);
  return { importMs: importMs ?? Number.NaN, firstMs: firstMs ?? Number.NaN, cpuMs: cpuMs ?? Number.NaN };
}

interface Sender {
  put(i: number): Promise<unknown>;
  get(i: number): Promise<unknown>;
}

/** `REQUESTS` puts then gets through `sender`: latencies (ms) and CPU ms per request. */
async function warm(sender: Sender): Promise<{ put: number[]; get: number[]; cpuPerRequest: number }> {
  for (let i = 0; i < 20; i++) await sender.put(i); // connections and JIT warmed
  const put: number[] = [];
  const get: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < REQUESTS; i++) {
    const t = performance.now();
    await sender.put(i);
    put.push(performance.now() - t);
  }
  for (let i = 0; i < REQUESTS; i++) {
    const t = performance.now();
    await sender.get(i);
    get.push(performance.now() - t);
  }
  const used = process.cpuUsage(cpu);
  return { put, get, cpuPerRequest: (used.user + used.system) / 1000 / (2 * REQUESTS) };
}

async function main(): Promise<void> {
  const given = process.env.DURABLE_BENCH_DYNAMODB_ENDPOINT;
  const local: DynamoDbLocal | undefined = given ? undefined : await startDynamoDbLocal();
  const endpoint = given ?? (local as DynamoDbLocal).endpoint;
  const sdkClient = DynamoDBDocumentClient.from(
    new DynamoDBClient({ region: 'us-east-1', endpoint, credentials: CREDENTIALS }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  const light = new LightDynamoDbClient({ region: 'us-east-1', endpoint, credentials: CREDENTIALS });
  const table = `client-bench-${process.pid}`;
  const dir = join(ROOT, 'node_modules', '.cache', `dynamodb-client-bench-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  try {
    await createDurableTable(sdkClient, table);
    console.log(`DynamoDB clients on DynamoDB Local (${endpoint}), node ${process.version}`);

    const bundles = { light: await coldBundle(dir, 'light'), sdk: await coldBundle(dir, 'sdk') };
    const cold: Record<string, Array<ReturnType<typeof coldRun>>> = { light: [], sdk: [] };
    for (let i = 0; i < COLD; i++) {
      for (const name of ['light', 'sdk'] as const) cold[name]?.push(coldRun(bundles[name].file, endpoint, table));
    }
    console.log(`\ncold start, fresh process (median of ${COLD}, interleaved):`);
    console.log('  client  bundle KB  import ms  first Put+Get ms  total ms  CPU ms');
    for (const name of ['light', 'sdk'] as const) {
      const runs = cold[name] ?? [];
      const importMs = median(runs.map((r) => r.importMs));
      const firstMs = median(runs.map((r) => r.firstMs));
      const total = median(runs.map((r) => r.importMs + r.firstMs));
      const cpu = median(runs.map((r) => r.cpuMs));
      console.log(
        `  ${name.padEnd(6)}  ${bundles[name].kb.toFixed(0).padStart(9)}  ${importMs.toFixed(1).padStart(9)}  ${firstMs.toFixed(1).padStart(16)}  ${total.toFixed(1).padStart(8)}  ${cpu.toFixed(1).padStart(6)}`,
      );
    }

    const item = (i: number) => ({ pk: 'warm', sk: `item-${i}`, n: i, text: 'x'.repeat(200), nested: { a: [1, 'b'] } });
    const senders: Record<'light' | 'sdk', Sender> = {
      light: {
        put: (i) => light.send(new PutCommand({ TableName: table, Item: item(i) })),
        get: (i) =>
          light.send(new GetCommand({ TableName: table, Key: { pk: 'warm', sk: `item-${i}` }, ConsistentRead: true })),
      },
      sdk: {
        put: (i) => sdkClient.send(new SdkPut({ TableName: table, Item: item(i) })),
        get: (i) =>
          sdkClient.send(new SdkGet({ TableName: table, Key: { pk: 'warm', sk: `item-${i}` }, ConsistentRead: true })),
      },
    };
    const warmRuns = { light: await warm(senders.light), sdk: await warm(senders.sdk) };
    // A second round in the other order, so neither gains from going second.
    const again = { sdk: await warm(senders.sdk), light: await warm(senders.light) };
    console.log(`\nwarm, one process, ${REQUESTS} PutItem then ${REQUESTS} GetItem per round, two rounds:`);
    console.log('  client  Put p50  Put p99  Get p50  Get p99  CPU ms/request');
    for (const name of ['light', 'sdk'] as const) {
      const put = [...warmRuns[name].put, ...again[name].put];
      const get = [...warmRuns[name].get, ...again[name].get];
      const cpu = (warmRuns[name].cpuPerRequest + again[name].cpuPerRequest) / 2;
      console.log(
        `  ${name.padEnd(6)}  ${percentile(put, 0.5).toFixed(2).padStart(7)}  ${percentile(put, 0.99).toFixed(2).padStart(7)}  ${percentile(get, 0.5).toFixed(2).padStart(7)}  ${percentile(get, 0.99).toFixed(2).padStart(7)}  ${cpu.toFixed(3).padStart(14)}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (given) await sdkClient.send(new DeleteTableCommand({ TableName: table })).catch(() => undefined);
    light.destroy();
    sdkClient.destroy();
    await local?.stop();
  }
}

await main();
