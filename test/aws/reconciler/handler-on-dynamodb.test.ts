/**
 * The reconciler's Lambda handler end to end: built from the environment like the deployed one,
 * over the real DynamoDbStore on DynamoDB Local, with Lambda and EventBridge Scheduler faked at the
 * HTTP level (the SDK's service endpoint variables point them at a local server). Runs are
 * stranded the way a lost wake-up leaves them: RUNNING, the lease lapsed long ago, nothing
 * scheduled.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  createDurableTable,
  createReconcilerHandler,
  DynamoDbStore,
  ProductionBackend,
  type ReconcilerHandlerOptions,
  readProductionConfig,
} from '@durable-lambda/aws';
import { Engine, isWakeEvent, type WakeEvent, wakeEvent } from '@durable-lambda/engine';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../../support/dynamodb-local';
import { awsError, type CapturedRequest, FakeAwsServer, type FakeResponse } from '../fake-aws-server';

const ACCOUNT = '123456789012';
const arn = (name: string) => `arn:aws:lambda:us-east-1:${ACCOUNT}:function:${name}`;
const DLQ = `arn:aws:sqs:us-east-1:${ACCOUNT}:durable-wake-up-dead-letters`;
const RECONCILER = {
  functionName: 'durable-reconciler',
  invokedFunctionArn: arn('durable-reconciler'),
  getRemainingTimeInMillis: () => 55_000,
};
const INVOKE_PATH = /^\/2015-03-31\/functions\/(.+)\/invocations$/;
const TEN_MINUTES = 600_000;

/** Lambda and Scheduler, as one fake endpoint: invokes accepted unless told, schedules created. */
function answer(request: CapturedRequest): FakeResponse {
  const invoke = INVOKE_PATH.exec(request.path);
  if (request.method === 'POST' && invoke) {
    if (invoke[1]?.endsWith(':function:gone')) return awsError(404, 'ResourceNotFoundException', 'Function not found');
    return { status: 202, headers: { 'x-amzn-requestid': 'req-fake' }, body: '' };
  }
  if (request.method === 'POST' && request.path.startsWith('/schedules/')) {
    return { status: 200, body: JSON.stringify({ ScheduleArn: `arn:aws:scheduler:us-east-1:${ACCOUNT}:schedule/x` }) };
  }
  if (request.method === 'DELETE' && request.path.startsWith('/schedules/')) return { status: 200, body: '{}' };
  return awsError(400, 'ValidationException', `unexpected ${request.method} ${request.path}`);
}

const aws = new FakeAwsServer(answer);
const saved: Record<string, string | undefined> = {};
let client: DynamoDBDocumentClient;
let tableName: string;
let store: DynamoDbStore;

beforeAll(async () => {
  const dynamodb = await dynamoDbLocalEndpoint();
  const fake = await aws.start();
  client = localDocumentClient(dynamodb);
  // The reconciler builds its clients from the environment, as on Lambda: the SDK's service
  // endpoint variables point them here.
  const variables: Record<string, string> = {
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
}, 60_000);

afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await aws.stop();
  client?.destroy();
});

beforeEach(async () => {
  tableName = uniqueTableName('reconciler');
  await createDurableTable(client, tableName);
  store = new DynamoDbStore({ client, tableName });
  aws.requests.length = 0;
  aws.respond(answer);
});

function env(over: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    DURABLE_TABLE_NAME: tableName,
    DURABLE_SCHEDULE_GROUP: 'durable-reconciler',
    DURABLE_SCHEDULER_ROLE_ARN: `arn:aws:iam::${ACCOUNT}:role/durable-reconciler-scheduler`,
    DURABLE_SCHEDULE_DLQ_ARN: DLQ,
    AWS_REGION: 'us-east-1',
    ...over,
  };
}

/** A run whose invocation took the lease and was lost `ago` ms ago, its wake-up never scheduled. */
async function strandedRun(functionName: string, key: string, ago = TEN_MINUTES): Promise<string> {
  // Started a minute before its lease was taken (a lease never ends before its run began: the
  // store may keep the run's earlier due time instead of the lease's end).
  const now = Date.now();
  const engine = new Engine({ store, waker: { wakeAt: async () => {} }, clock: { now: () => now - ago - 60_000 } });
  const { run } = await engine.startRun({ functionName, runKey: key, input: JSON.stringify({ key }) });
  const grant = await store.acquireLease(run.runId, now - ago - 60_000, now - ago, `lost-${key}`);
  expect(grant?.run).toMatchObject({ status: 'RUNNING', leaseExpiresAt: now - ago });
  return run.runId;
}

function reconciler(over: Partial<ReconcilerHandlerOptions> = {}, environment = env()) {
  const lines: string[] = [];
  const handler = createReconcilerHandler({ env: environment, write: (line) => lines.push(line), ...over });
  return { handler, lines };
}

const invokes = () =>
  aws.requests.flatMap((r) => {
    const m = INVOKE_PATH.exec(r.path);
    return m && r.method === 'POST'
      ? [{ target: m[1], type: r.headers['x-amz-invocation-type'], event: JSON.parse(r.body) as unknown }]
      : [];
  });
const schedules = () => aws.requests.filter((r) => r.path.startsWith('/schedules/') && r.method === 'POST');

describe('the reconciler handler, on DynamoDB Local', () => {
  it('wakes a stranded run by an asynchronous invoke, logs one EMF summary, and the woken run finishes', async () => {
    const runId = await strandedRun('orders', 'order-1');
    expect(schedules()).toEqual([]);
    const { handler, lines } = reconciler();

    const summary = await handler({}, RECONCILER);

    expect(summary).toMatchObject({ examined: 1, woken: 1, failed: 0, notServed: 0, stoppedBy: 'done', passes: 1 });
    // Other functions are targeted in the reconciler's own region and account.
    expect(invokes()).toEqual([{ target: arn('orders'), type: 'Event', event: wakeEvent(runId) }]);
    expect(schedules()).toEqual([]);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] as string);
    expect(line._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'DurableLambda',
        Dimensions: [['FunctionName']],
        Metrics: ['RunsExamined', 'RunsWoken', 'ParentsNotified', 'Failed'].map((Name) => ({ Name, Unit: 'Count' })),
      },
    ]);
    expect(line).toMatchObject({
      FunctionName: 'durable-reconciler',
      RunsExamined: 1,
      RunsWoken: 1,
      ParentsNotified: 0,
      Failed: 0,
      stoppedBy: 'done',
    });

    // The wake-up reaches the function, deployed with the production backend: the lost invocation
    // is recorded and the run finishes, asking Scheduler for nothing (no lease safety schedule: the
    // reconciler is what stands behind the lease).
    const orders = new ProductionBackend(readProductionConfig(env({ DURABLE_SCHEDULE_GROUP: 'durable-orders' })));
    const handlerOfOrders = withDurableExecution(async (event: { key: string }) => `shipped ${event.key}`, {
      backend: orders,
    });
    const delivered = invokes()[0]?.event as WakeEvent;
    expect(isWakeEvent(delivered)).toBe(true);
    const response = await handlerOfOrders(delivered, {
      awsRequestId: 'req-woken',
      functionName: 'orders',
      invokedFunctionArn: arn('orders'),
      getRemainingTimeInMillis: () => 60_000,
    });
    expect(response).toEqual({ Status: 'SUCCEEDED', Result: JSON.stringify('shipped order-1') });
    expect(await store.getRun(runId)).toMatchObject({ status: 'SUCCEEDED', lostInvocations: 1 });
    expect(aws.requests.filter((r) => r.path.startsWith('/schedules/'))).toEqual([]);

    // Nothing is due any more: the next minute's invocation wakes nothing.
    aws.requests.length = 0;
    expect(await handler({}, RECONCILER)).toMatchObject({ examined: 0, woken: 0, stoppedBy: 'done' });
    expect(invokes()).toEqual([]);
  }, 60_000);

  it('leaves alone a run whose lapse is within the grace (its own wake-up may still arrive)', async () => {
    await strandedRun('orders', 'order-recent', 30_000);
    const { handler } = reconciler();
    expect(await handler({}, RECONCILER)).toMatchObject({ examined: 0, woken: 0 });
    expect(invokes()).toEqual([]);
  }, 60_000);

  it('passes over runs of functions it does not serve (another stack’s reconciler wakes them)', async () => {
    const ours = await strandedRun('orders', 'order-2');
    const theirs = await strandedRun('billing', 'invoice-2');
    const { handler, lines } = reconciler({}, env({ DURABLE_RECONCILER_FUNCTIONS: JSON.stringify(['orders']) }));

    expect(await handler({}, RECONCILER)).toMatchObject({ examined: 2, woken: 1, notServed: 1, failed: 0 });
    expect(invokes().map((i) => i.event)).toEqual([wakeEvent(ours)]);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ RunsWoken: 1, Failed: 0, notServed: 1 });
    // Still stranded, still due: the reconciler that serves `billing` finds it.
    expect(await store.getRun(theirs)).toMatchObject({ status: 'RUNNING' });
    expect((await store.findDueRuns(Date.now(), 10)).map((d) => d.runId)).toContain(theirs);
  }, 60_000);

  it('counts a run it cannot wake as Failed, and finds it again at the next invocation', async () => {
    const runId = await strandedRun('gone', 'order-3');
    const { handler, lines } = reconciler();

    const first = await handler({}, RECONCILER);
    expect(first).toMatchObject({ examined: 1, woken: 0, failed: 1 });
    expect(first.failures).toEqual([{ runId, error: expect.stringContaining('gone') }]);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ RunsWoken: 0, Failed: 1 });

    expect(await handler({}, RECONCILER)).toMatchObject({ examined: 1, failed: 1 });
    expect(invokes()).toHaveLength(2);
  }, 60_000);

  it('keeps passing while more runs are due and the woken ones leave the index', async () => {
    const runs = [await strandedRun('orders', 'a'), await strandedRun('orders', 'b'), await strandedRun('orders', 'c')];
    // Between passes, the woken runs' invocations start and take their leases.
    const startWoken = async () => {
      const now = Date.now();
      for (const { event } of invokes()) {
        const runId = (event as WakeEvent).durableLambda.runId;
        const run = await store.getRun(runId);
        if (run?.leaseExpiresAt !== undefined && run.leaseExpiresAt > now) continue;
        await store.acquireLease(runId, now, now + TEN_MINUTES, `woken-${runId}`);
      }
    };
    const { handler } = reconciler({ sleep: startWoken }, env({ DURABLE_RECONCILE_LIMIT: '1' }));

    // A first pass over the whole index finds `a` and fills its limit: behind, the reconciler pages
    // every shard on from there, each until a pass comes back short (b and c fill one pass each).
    expect(await handler({}, RECONCILER)).toMatchObject({
      passes: 1 + store.duePartitions() + 2,
      examined: 3,
      woken: 3,
      stoppedBy: 'done',
    });
    expect(new Set(invokes().map((i) => (i.event as WakeEvent).durableLambda.runId))).toEqual(new Set(runs));
  }, 60_000);

  it('pages past the runs it woke: each due run is woken once per invocation, none blocks the rest', async () => {
    const first = await strandedRun('orders', 'd');
    const second = await strandedRun('orders', 'e');
    const { handler } = reconciler({ sleep: async () => {} }, env({ DURABLE_RECONCILE_LIMIT: '1' }));

    expect(await handler({}, RECONCILER)).toMatchObject({
      passes: 1 + store.duePartitions() + 1,
      woken: 2,
      stoppedBy: 'done',
    });
    expect(invokes().map((i) => i.event)).toEqual([wakeEvent(first), wakeEvent(second)]);
  }, 60_000);

  it('goes on while behind, shard by shard: a backlog of many passes is woken in one invocation', async () => {
    // 300 stranded runs, 10 a pass: more passes than an invocation used to take (25).
    const keys = Array.from({ length: 300 }, (_, i) => `backlog-${i}`);
    const runs: string[] = [];
    for (let i = 0; i < keys.length; i += 25) {
      runs.push(...(await Promise.all(keys.slice(i, i + 25).map((key) => strandedRun('orders', key)))));
    }
    const { handler } = reconciler({}, env({ DURABLE_RECONCILE_LIMIT: '10' }));

    const summary = await handler({}, RECONCILER);
    expect(summary).toMatchObject({ woken: 300, failed: 0, stoppedBy: 'done' });
    expect(summary.passes).toBeGreaterThan(25);
    // Each run woken once: the passes page on, none finds a run another pass woke.
    const woken = invokes().map((i) => (i.event as WakeEvent).durableLambda.runId);
    expect(woken).toHaveLength(300);
    expect(new Set(woken)).toEqual(new Set(runs));
  }, 120_000);

  it('stops when the invocation has too little time left for another pass', async () => {
    await strandedRun('orders', 'f');
    await strandedRun('orders', 'g');
    const { handler } = reconciler({ sleep: async () => {} }, env({ DURABLE_RECONCILE_LIMIT: '1' }));

    const summary = await handler({}, { ...RECONCILER, getRemainingTimeInMillis: () => 3_000 });
    expect(summary).toMatchObject({ passes: 1, woken: 1, stoppedBy: 'time' });
  }, 60_000);

  it('fails the invocation when the due index cannot be read, after logging its summary', async () => {
    const { handler, lines } = reconciler({}, env({ DURABLE_TABLE_NAME: uniqueTableName('missing') }));
    await expect(handler({}, RECONCILER)).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    expect(JSON.parse(lines[0] as string)).toMatchObject({ stoppedBy: 'error', RunsExamined: 0, Failed: 0 });
  }, 60_000);
});

describe('the reconciler handler: configuration', () => {
  it('names a malformed variable (invalid_configuration) at the first invocation', async () => {
    const cases: Array<[string, string]> = [
      ['DURABLE_RECONCILER_FUNCTIONS', 'orders'],
      ['DURABLE_RECONCILER_FUNCTIONS', '["orders:live"]'],
      ['DURABLE_RECONCILE_LIMIT', '0'],
      ['DURABLE_RECONCILE_LIMIT', '1001'],
      ['DURABLE_SCHEDULE_DLQ_ARN', 'arn:aws:sns:us-east-1:123456789012:topic'],
    ];
    for (const [name, value] of cases) {
      const { handler } = reconciler({}, env({ [name]: value }));
      await expect(handler({}, RECONCILER)).rejects.toMatchObject({ code: 'invalid_configuration', variables: [name] });
    }
  });

  it('names the variables the production backend needs (missing_configuration)', async () => {
    const { handler } = reconciler({}, { AWS_REGION: 'us-east-1' });
    await expect(handler({}, RECONCILER)).rejects.toMatchObject({
      code: 'missing_configuration',
      variables: ['DURABLE_TABLE_NAME', 'DURABLE_SCHEDULE_GROUP', 'DURABLE_SCHEDULER_ROLE_ARN'],
    });
  });

  it('needs the Lambda context ARN (other functions are targeted in its region and account)', async () => {
    const { handler } = reconciler();
    await expect(handler({}, { functionName: 'durable-reconciler' })).rejects.toMatchObject({
      code: 'missing_configuration',
      variables: ['invokedFunctionArn'],
    });
  });
});
