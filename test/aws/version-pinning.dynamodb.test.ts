/**
 * Safe deploys: a run finishes on the code version it started on. Two versions of one durable
 * function (the same steps, answering `v1` and `v2`), each its own container with the production
 * backend on DynamoDB Local; a fake Lambda that resolves the `live` alias and dispatches by
 * qualifier to the version's handler (with `functionVersion`, as Lambda does), and fires the
 * Scheduler's schedules. Runs start on the alias, v2 is "deployed" (the alias moves) while they
 * wait for a callback, and each one's later invocations are checked against where it is pinned.
 */
import { LambdaClient } from '@aws-sdk/client-lambda';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  createDurableTable,
  DynamoDbStore,
  LambdaInvoker,
  ProductionBackend,
  readProductionConfig,
} from '@durable-lambda/aws';
import { Engine, type RunRecord, runIdFor, wakeEvent } from '@durable-lambda/engine';
import type { LambdaContextLike } from '@durable-lambda/protocol';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT, FakeCloud, functionArn, REGION } from '../compat/aws-sdk-on-lambda.cloud';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';

const cloud = new FakeCloud();
const saved: Record<string, string | undefined> = {};
let client: DynamoDBDocumentClient;
let tableName: string;
let store: DynamoDbStore;

/** Which version ran each invocation of each run (by the wake-up event's run id, or "start"). */
const ranOn: Array<{ version: string; arn: string; runId?: string }> = [];
/** Callback ids handed out, by run input `tag`. */
const callbacks = new Map<string, string>();
/** What `live` points at; `$LATEST` holds the newest code, as after a `cdk deploy`. */
const aliases: Record<string, string> = {};
const versions = new Map<string, (event: unknown, context: LambdaContextLike) => Promise<unknown>>();
let latest = '';

/**
 * One version of the function, its code answering `code`. Each invocation gets a container of its
 * own (a backend): the fake delivers concurrently, and Lambda runs one invocation at a time per container.
 */
function publish(version: string, code: string): void {
  versions.set(version, (event, context) => container(code)(event, context));
  latest = version;
}

function container(code: string) {
  const env = {
    DURABLE_TABLE_NAME: tableName,
    DURABLE_SCHEDULE_GROUP: 'durable-orders',
    DURABLE_SCHEDULER_ROLE_ARN: `arn:aws:iam::${ACCOUNT}:role/durable-orders-scheduler`,
    AWS_REGION: REGION,
  };
  const backend = new ProductionBackend(readProductionConfig(env), {}, { pinning: 'version', aliases: {} });
  const handler = withDurableExecution(
    async (input: { tag: string }, ctx) => {
      const quote = await ctx.step('quote', async () => `quoted by ${code}`);
      const approval = await ctx.waitForCallback<string>('approval', async (id) => {
        callbacks.set(input.tag, id);
      });
      const finish = await ctx.step('finish', async () => `finished by ${code}`);
      return { quote, approval, finish };
    },
    { backend },
  );
  return handler as (event: unknown, context: LambdaContextLike) => Promise<unknown>;
}

/** The function as Lambda runs it: the qualifier picks the version (`$LATEST` is the newest). */
async function orders(event: unknown, context: LambdaContextLike): Promise<unknown> {
  const qualifier = (context.invokedFunctionArn ?? '').split(':')[7];
  const version = qualifier === undefined || qualifier === '$LATEST' ? latest : (aliases[qualifier] ?? qualifier);
  const handler = versions.get(version);
  if (!handler) throw new Error(`no version ${version}`);
  const runId = (event as { durableLambda?: { runId?: string } }).durableLambda?.runId;
  ranOn.push({ version, arn: context.invokedFunctionArn ?? '', ...(runId ? { runId } : {}) });
  return handler(event, { ...context, functionVersion: qualifier === undefined ? '$LATEST' : version } as never);
}

/** Lambda ARN of a run's name (`orders:1` → `…:orders:1`; `$LATEST` is unqualified). */
const target = (name: string) => {
  const [fn = '', qualifier] = name.split(':');
  return qualifier === undefined || qualifier === '$LATEST' ? functionArn(fn) : `${functionArn(fn)}:${qualifier}`;
};

/** An operator's engine over the same table (completes callbacks, as the control API does). */
function operator(route: (name: string) => string = target): Engine {
  const invoker = new LambdaInvoker({ client: new LambdaClient({ region: REGION }), targetArn: route });
  return new Engine({
    store,
    invoker,
    waker: { wakeAt: (request) => invoker.invoke(request.functionName, wakeEvent(request.runId)) },
  });
}

async function until<T>(read: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  // A bound, not a timing assertion: the machine may be slow.
  const end = Date.now() + 90_000;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const waiting = (tag: string) => until(() => callbacks.get(tag), `run ${tag} waits for its callback`);
const ended = (runId: string) =>
  until<RunRecord>(async () => {
    const run = await store.getRun(runId);
    return run && run.status !== 'RUNNING' ? run : undefined;
  }, `run ${runId} ends`);
/** Run ids by input tag. */
const runIds = new Map<string, string>();
const runOf = async (tag: string): Promise<RunRecord> => {
  const run = await store.getRun(runIds.get(tag) ?? '');
  if (!run) throw new Error(`no run ${tag}`);
  return run;
};
/** Request ids of the runs started by an invoke, by tag (a delivery again reuses it, as Lambda does). */
const requestIds = new Map<string, string>();
/** Starts a run by a plain asynchronous invoke of the alias (keyed by the Lambda request id). */
const invokeAlias = (tag: string) => {
  const requestId = `req-${tag}-${Date.now()}`;
  requestIds.set(tag, requestId);
  runIds.set(tag, runIdFor(requestId));
  return cloud.invoke('orders', { tag }, requestId, 'live');
};
const result = (run: RunRecord) => JSON.parse(run.result ?? 'null') as Record<string, string>;

beforeAll(async () => {
  const dynamodb = await dynamoDbLocalEndpoint();
  const fake = await cloud.start();
  const variables = {
    AWS_ENDPOINT_URL_DYNAMODB: dynamodb,
    AWS_ENDPOINT_URL_LAMBDA: fake,
    AWS_ENDPOINT_URL_SCHEDULER: fake,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  };
  for (const [name, value] of Object.entries(variables)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
  client = localDocumentClient(dynamodb);
  tableName = uniqueTableName('version-pinning');
  await createDurableTable(client, tableName);
  store = new DynamoDbStore({ client, tableName });
  cloud.register('orders', orders);
}, 60_000);

afterAll(async () => {
  await cloud.stop();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  client?.destroy();
}, 60_000);

describe('version pinning (DynamoDB Local, faked Lambda with versions and an alias)', () => {
  it('finishes runs started on v1 on v1 after v2 is deployed; new runs and opted-out runs take v2', async () => {
    publish('1', 'v1');
    aliases.live = '1';
    // Started on the alias by an invoke (recorded at once), and as the control API starts runs:
    // created on the alias, then pinned by its first invocation. And one run opted into $LATEST.
    await invokeAlias('invoked');
    const control = operator();
    const started = await control.startRun({ functionName: 'orders:live', input: JSON.stringify({ tag: 'api' }) });
    runIds.set('api', started.run.runId);
    await control.invoker?.invoke('orders:live', wakeEvent(started.run.runId));
    const opted = await control.startRun({ functionName: 'orders:$LATEST', input: JSON.stringify({ tag: 'latest' }) });
    runIds.set('latest', opted.run.runId);
    await control.invoker?.invoke('orders:$LATEST', wakeEvent(opted.run.runId));
    await Promise.all(['invoked', 'api', 'latest'].map(waiting));
    await cloud.settled();

    // Each run records the version it runs on.
    expect((await runOf('invoked')).functionName).toBe('orders:1');
    expect((await runOf('api')).functionName).toBe('orders:1');
    expect((await runOf('latest')).functionName).toBe('orders:$LATEST');

    // Deploy v2: a new version, the alias moves, $LATEST is the new code.
    publish('2', 'v2');
    aliases.live = '2';
    const before = ranOn.length;

    // Resumed the way every wake-up is sent (the run's recorded name), and one resumed through the
    // alias as a stale target would: handed over to v1, never replayed on v2.
    await control.sendCallbackSuccess(callbacks.get('invoked') as string, 'yes');
    await operator((name) => target(name.split(':')[0] === 'orders' ? 'orders:live' : name)).sendCallbackSuccess(
      callbacks.get('api') as string,
      'yes',
    );
    await control.sendCallbackSuccess(callbacks.get('latest') as string, 'yes');
    const invoked = await ended((await runOf('invoked')).runId);
    const api = await ended((await runOf('api')).runId);
    const opt = await ended((await runOf('latest')).runId);

    expect(invoked.status).toBe('SUCCEEDED');
    expect(result(invoked)).toEqual({ quote: 'quoted by v1', approval: 'yes', finish: 'finished by v1' });
    expect(api.status).toBe('SUCCEEDED');
    expect(result(api)).toEqual({ quote: 'quoted by v1', approval: 'yes', finish: 'finished by v1' });
    // The opted-out run replays on whatever $LATEST is: its last step ran on v2.
    expect(result(opt)).toEqual({ quote: 'quoted by v1', approval: 'yes', finish: 'finished by v2' });

    const after = ranOn.slice(before);
    // The stale wake-up reached v2 through the alias, which handed it to v1 without running it.
    const apiRan = after.filter((r) => r.runId === api.runId).map((r) => r.version);
    expect(apiRan[0]).toBe('2');
    expect(apiRan.slice(1)).toContain('1');
    expect(apiRan.slice(1).every((v) => v === '1')).toBe(true);
    expect(after.filter((r) => r.runId === invoked.runId).every((r) => r.version === '1')).toBe(true);

    // A run started after the deploy runs on v2, and records it.
    await invokeAlias('new');
    await waiting('new');
    expect((await runOf('new')).functionName).toBe('orders:2');
    await control.sendCallbackSuccess(callbacks.get('new') as string, 'yes');
    const fresh = await ended((await runOf('new')).runId);
    expect(result(fresh)).toEqual({ quote: 'quoted by v2', approval: 'yes', finish: 'finished by v2' });
    cloud.clearSchedules();
  }, 180_000);

  it('hands a start event delivered again after a deploy to the version its run is pinned to', async () => {
    publish('3', 'v3');
    aliases.live = '3';
    await invokeAlias('again');
    await waiting('again');
    await cloud.settled();
    const run = await runOf('again');
    expect(run.functionName).toBe('orders:3');
    // The callback completes, and its wake-up is lost (late): the run is due, nobody runs it yet.
    cloud.rule = ({ event }) =>
      (event as { durableLambda?: { runId?: string } }).durableLambda?.runId === run.runId ? 'drop' : undefined;
    await operator().sendCallbackSuccess(callbacks.get('again') as string, 'yes');
    cloud.rule = () => undefined;
    // Deploy v4, then Lambda delivers the start event again, through the alias, with its request id.
    publish('4', 'v4');
    aliases.live = '4';
    const before = ranOn.length;
    await cloud.invoke('orders', { tag: 'again' }, requestIds.get('again'), 'live');
    const ended_ = await ended(run.runId);
    expect(ended_.functionName).toBe('orders:3');
    expect(result(ended_)).toEqual({ quote: 'quoted by v3', approval: 'yes', finish: 'finished by v3' });
    // The start event reached v4, which handed the run to v3: every wake-up of it ran v3.
    const after = ranOn.slice(before);
    expect(after[0]?.version).toBe('4');
    expect(after.filter((r) => r.runId === run.runId).map((r) => r.version)).toContain('3');
    expect(after.filter((r) => r.runId === run.runId).every((r) => r.version === '3')).toBe(true);
    cloud.clearSchedules();
  }, 180_000);
});
