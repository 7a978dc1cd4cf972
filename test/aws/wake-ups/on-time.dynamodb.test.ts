/**
 * On-time wake-ups end to end: the production backend built from the environment (as the
 * DurableFunction deploys it, with DURABLE_WAKE_QUEUE_URL), over the real DynamoDbStore on
 * DynamoDB Local; SQS, Scheduler and Lambda are a local fake endpoint that records every request
 * (the SDK's service endpoint variables point the clients at it). The test plays Lambda's SQS
 * event source: it hands the messages the backend sent back to the handler as SQS events.
 */
import { createHash } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  createDurableTable,
  createReconcilerHandler,
  DynamoDbStore,
  ProductionBackend,
  readProductionConfig,
} from '@durable-lambda/aws';
import { runIdFor } from '@durable-lambda/engine';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../../support/dynamodb-local';
import { until } from '../../support/harness';
import { awsError, type CapturedRequest, FakeAwsServer, type FakeResponse } from '../fake-aws-server';

const ACCOUNT = '123456789012';
const arn = (name: string) => `arn:aws:lambda:us-east-1:${ACCOUNT}:function:${name}`;
const INVOKE_PATH = /^\/2015-03-31\/functions\/(.+)\/invocations$/;

function answer(request: CapturedRequest): FakeResponse {
  if (request.headers['x-amz-target'] === 'AmazonSQS.SendMessage') {
    const { MessageBody } = JSON.parse(request.body) as { MessageBody: string };
    const md5 = createHash('md5').update(MessageBody).digest('hex');
    return { status: 200, body: JSON.stringify({ MessageId: `m${aws.requests.length}`, MD5OfMessageBody: md5 }) };
  }
  if (request.method === 'POST' && INVOKE_PATH.test(request.path)) return { status: 202, body: '' };
  if (request.method === 'POST' && request.path.startsWith('/schedules/')) {
    return { status: 200, body: JSON.stringify({ ScheduleArn: `arn:aws:scheduler:us-east-1:${ACCOUNT}:schedule/x` }) };
  }
  if (request.method === 'DELETE' && request.path.startsWith('/schedules/')) return { status: 200, body: '{}' };
  return awsError(400, 'ValidationException', `unexpected ${request.method} ${request.path}`);
}

const aws = new FakeAwsServer(answer);
const saved: Record<string, string | undefined> = {};
let client: DynamoDBDocumentClient;
let store: DynamoDbStore;
let environment: Record<string, string>;
let queueUrl: string;

beforeAll(async () => {
  const dynamodb = await dynamoDbLocalEndpoint();
  const fake = await aws.start();
  client = localDocumentClient(dynamodb);
  const variables: Record<string, string> = {
    AWS_ENDPOINT_URL_DYNAMODB: dynamodb,
    AWS_ENDPOINT_URL_LAMBDA: fake,
    AWS_ENDPOINT_URL_SCHEDULER: fake,
    AWS_ENDPOINT_URL_SQS: fake,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  };
  for (const [name, value] of Object.entries(variables)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
  queueUrl = `${fake}/${ACCOUNT}/orders-wake-ups`;
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
  const tableName = uniqueTableName('on-time');
  await createDurableTable(client, tableName);
  store = new DynamoDbStore({ client, tableName });
  environment = {
    DURABLE_TABLE_NAME: tableName,
    DURABLE_SCHEDULE_GROUP: 'durable-orders',
    DURABLE_SCHEDULER_ROLE_ARN: `arn:aws:iam::${ACCOUNT}:role/durable-orders-scheduler`,
    DURABLE_WAKE_QUEUE_URL: queueUrl,
    AWS_REGION: 'us-east-1',
  };
  aws.requests.length = 0;
});

const sends = () =>
  aws.requests
    .filter((r) => r.headers['x-amz-target'] === 'AmazonSQS.SendMessage')
    .map((r) => JSON.parse(r.body) as { QueueUrl: string; MessageBody: string; DelaySeconds: number });
const schedulerCalls = () => aws.requests.filter((r) => r.path.startsWith('/schedules/'));
const invokes = () => aws.requests.filter((r) => INVOKE_PATH.test(r.path)).map((r) => JSON.parse(r.body) as unknown);

let seq = 0;
const lambda = (remainingMs = 60_000) => ({
  awsRequestId: `req-on-time-${++seq}-${Date.now()}`,
  functionName: 'orders',
  invokedFunctionArn: arn('orders'),
  getRemainingTimeInMillis: () => remainingMs,
});
/** What Lambda's SQS event source hands the function for one message. */
const sqsEvent = (body: string, messageId = `m-${++seq}`) => ({
  Records: [
    {
      messageId,
      receiptHandle: `rh-${messageId}`,
      body,
      attributes: { ApproximateReceiveCount: '1' },
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:us-east-1:${ACCOUNT}:orders-wake-ups`,
    },
  ],
});

function orders(extra: Record<string, string> = {}) {
  const backend = new ProductionBackend(readProductionConfig({ ...environment, ...extra }));
  const handler = withDurableExecution(
    async (event: { order: number }, ctx) => {
      const reserved = await ctx.step('reserve', async () => `reserved ${event.order}`);
      await ctx.wait({ seconds: 3 });
      return ctx.step('ship', async () => `${reserved}, shipped`);
    },
    // Every wait leaves the invocation, as a long one would.
    { backend, inProcessWaitMs: 0 },
  );
  return { backend, handler };
}

describe('on-time wake-ups on DynamoDB Local', () => {
  it('resumes a wait from its SQS message, re-arms an early copy, ignores a duplicate: no Scheduler call', async () => {
    const { handler } = orders();
    expect(await handler({ order: 1 }, lambda())).toEqual({ Status: 'PENDING' });
    const [message, ...more] = sends();
    expect(more).toEqual([]);
    expect(message?.QueueUrl).toBe(queueUrl);
    // A 3 s wait, its delay rounded down once a few ms have passed since it began.
    expect([2, 3]).toContain(message?.DelaySeconds);
    const wake = JSON.parse(message?.MessageBody ?? '{}').durableLambda as { runId: string; at: number };
    const before = await store.getRun(wake.runId);
    expect(before).toMatchObject({ status: 'RUNNING', invocations: 1, nextWakeAt: wake.at });

    // A copy a minute early (a hop's schedule fired ahead): re-armed with its due time, nothing opened.
    const early = JSON.stringify({ durableLambda: { ...wake, action: 'wake', at: wake.at + 60_000 } });
    expect(await handler(sqsEvent(early), lambda())).toEqual({ batchItemFailures: [] });
    const rearmed = sends()[1];
    expect(JSON.parse(rearmed?.MessageBody ?? '{}')).toEqual(JSON.parse(early));
    expect(rearmed?.DelaySeconds).toBeGreaterThan(2);
    expect(rearmed?.DelaySeconds).toBeLessThanOrEqual(63);
    expect((await store.getRun(wake.runId))?.invocations).toBe(1);

    // The message itself, delivered once it is due, twice at once (SQS is at-least-once): one
    // delivery takes the lease and resumes the run in its invocation, the other finds the run held
    // (or already done) and does nothing; both are answered done.
    await until(() => Date.now() >= wake.at, 30_000);
    const body = message?.MessageBody ?? '';
    expect(await Promise.all([handler(sqsEvent(body), lambda()), handler(sqsEvent(body), lambda())])).toEqual([
      { batchItemFailures: [] },
      { batchItemFailures: [] },
    ]);
    const done = await store.getRun(wake.runId);
    expect(done).toMatchObject({ status: 'SUCCEEDED', result: JSON.stringify('reserved 1, shipped'), invocations: 2 });

    // Delivered again (SQS is at-least-once): nothing runs, nothing is written.
    expect(await handler(sqsEvent(message?.MessageBody ?? ''), lambda())).toEqual({ batchItemFailures: [] });
    expect(await store.getRun(wake.runId)).toEqual(done);

    // The whole run: two invocations, no Scheduler call (no lease safety schedule), no invoke.
    expect(schedulerCalls()).toEqual([]);
    expect(invokes()).toEqual([]);
  }, 60_000);

  it('re-arms a Scheduler hop by its random phase (up past 0.7 s of hold), a queue message rounded down; DURABLE_WAKE_DELAY_ROUNDING=down opts out', async () => {
    // Only Date is faked, so each send's delay is computed at a known instant; I/O runs as usual.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const now = Date.UTC(2026, 5, 1, 12, 0, 0, 0);
      vi.setSystemTime(now);
      const runId = runIdFor('hop-phase');
      const hop = (at: number) => ({ durableLambda: { action: 'wake', runId, at, functionName: 'orders' } });
      for (const extra of [{}, { DURABLE_WAKE_DELAY_ROUNDING: 'down' }] as Record<string, string>[]) {
        const { handler } = orders(extra);
        // Scheduler's delivery of a wait's hop, 9 minutes and a fraction ahead: re-armed, nothing opened.
        expect(await handler(hop(now + 540_900), lambda())).toEqual({ Status: 'PENDING', runId, rearmed: true });
        expect(await handler(hop(now + 540_400), lambda())).toEqual({ Status: 'PENDING', runId, rearmed: true });
        // The same due time arriving early from the queue: a send made as a wait started.
        expect(await handler(sqsEvent(JSON.stringify(hop(now + 540_900))), lambda())).toEqual({
          batchItemFailures: [],
        });
      }
      expect(sends().map((s) => s.DelaySeconds)).toEqual([541, 540, 540, 540, 540, 540]);
      expect(await store.getRun(runId)).toBeUndefined();
      expect(schedulerCalls()).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  }, 60_000);

  it('hands an SQS wake-up of a run pinned to another version to that version, unopened', async () => {
    const { handler } = orders();
    // Started on version 1 through the alias: the run is pinned to orders:1.
    const v1 = { ...lambda(), invokedFunctionArn: arn('orders:live'), functionVersion: '1' };
    expect(await handler({ order: 3 }, v1)).toEqual({ Status: 'PENDING' });
    const [message] = sends();
    const wake = JSON.parse(message?.MessageBody ?? '{}').durableLambda as { runId: string; at: number };
    expect(wake).toMatchObject({ functionName: 'orders:1' });
    await until(() => Date.now() >= wake.at, 30_000);
    // The alias moved to version 2 (a deploy): the event source delivers there.
    const v2 = { ...lambda(), invokedFunctionArn: arn('orders:live'), functionVersion: '2' };
    expect(await handler(sqsEvent(message?.MessageBody ?? ''), v2)).toEqual({ batchItemFailures: [] });
    const handed = aws.requests.filter((r) => INVOKE_PATH.test(r.path));
    expect(handed.map((r) => INVOKE_PATH.exec(r.path)?.[1])).toEqual([arn('orders:1')]);
    expect(JSON.parse(handed[0]?.body ?? '{}')).toEqual({ durableLambda: { action: 'wake', runId: wake.runId } });
    expect(await store.getRun(wake.runId)).toMatchObject({ status: 'RUNNING', invocations: 1 });
  }, 60_000);

  it('recovers a crashed invocation through the reconciler, though it asked Scheduler for nothing', async () => {
    const { backend, handler } = orders();
    // An invocation that took the lease and died (never closed); its lease lapses half a second on.
    const crashed = await backend.open({ order: 2 }, lambda(-9_500));
    const runId = crashed.opened?.invocation.runId as string;
    expect((await store.getRun(runId))?.leaseExpiresAt).toBeDefined();
    expect(schedulerCalls()).toEqual([]);
    expect(sends()).toEqual([]);
    const lapse = (await store.getRun(runId))?.leaseExpiresAt ?? 0;
    await until(() => Date.now() > lapse, 10_000);

    // The reconciler's pass (every minute; its grace is 0 here, not 2 minutes) finds the run by
    // its lease's end in the due index and wakes it.
    const reconciler = createReconcilerHandler({ env: environment, graceMs: 0, write: () => {} });
    const summary = await reconciler(
      {},
      {
        functionName: 'durable-reconciler',
        invokedFunctionArn: arn('durable-reconciler'),
        getRemainingTimeInMillis: () => 55_000,
      },
    );
    expect(summary).toMatchObject({ examined: 1, woken: 1 });
    const [woken] = invokes();
    expect(woken).toEqual({ durableLambda: { action: 'wake', runId } });

    expect(await handler(woken, lambda())).toEqual({ Status: 'PENDING' });
    expect(await store.getRun(runId)).toMatchObject({ status: 'RUNNING', lostInvocations: 1, invocations: 2 });
    expect(sends()).toHaveLength(1);
    expect(schedulerCalls()).toEqual([]);
  }, 60_000);
});
