/**
 * The production backend's open path, built from the environment as a DurableFunction deploys it,
 * over DynamoDB Local (Lambda, SQS and Scheduler a local fake endpoint that records requests):
 * a trigger batch from another queue starts one run per message and invokes each through Lambda
 * (asynchronously, the alias), never running the handler in the batch's invocation; the wake-up
 * queue's own batch still goes to the wake-up receiver; a schedule firing starts its run.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore, ProductionBackend, readProductionConfig } from '@durable-lambda/aws';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../../support/dynamodb-local';
import { awsError, type CapturedRequest, FakeAwsServer, type FakeResponse } from '../fake-aws-server';

const ACCOUNT = '123456789012';
const INVOKE_PATH = /^\/2015-03-31\/functions\/(.+)\/invocations$/;

function answer(request: CapturedRequest): FakeResponse {
  if (request.method === 'POST' && INVOKE_PATH.test(request.path)) return { status: 202, body: '' };
  return awsError(400, 'ValidationException', `unexpected ${request.method} ${request.path}`);
}

const aws = new FakeAwsServer(answer);
const saved: Record<string, string | undefined> = {};
let client: DynamoDBDocumentClient;
let store: DynamoDbStore;
let handler: (event: unknown, context: object) => Promise<unknown>;
let executed = 0;

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
  const tableName = uniqueTableName('trigger-routing');
  await createDurableTable(client, tableName);
  store = new DynamoDbStore({ client, tableName });
  const backend = new ProductionBackend(
    readProductionConfig({
      DURABLE_TABLE_NAME: tableName,
      DURABLE_SCHEDULE_GROUP: 'durable-orders',
      DURABLE_SCHEDULER_ROLE_ARN: `arn:aws:iam::${ACCOUNT}:role/durable-orders-scheduler`,
      DURABLE_WAKE_QUEUE_URL: `${fake}/${ACCOUNT}/orders-wake-ups`,
      AWS_REGION: 'us-east-1',
    }),
    {},
    { pinning: 'version', aliases: { orders: 'live' } },
  );
  handler = withDurableExecution(
    async (_event: unknown, ctx) =>
      ctx.step('work', async () => {
        executed++;
        return 'done';
      }),
    { backend },
  ) as (event: unknown, context: object) => Promise<unknown>;
}, 60_000);

afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await aws.stop();
  client?.destroy();
});

let seq = 0;
const lambda = () => ({
  awsRequestId: `req-${++seq}-${Date.now()}`,
  functionName: 'orders',
  functionVersion: '7',
  invokedFunctionArn: `arn:aws:lambda:us-east-1:${ACCOUNT}:function:orders:live`,
  getRemainingTimeInMillis: () => 60_000,
});
const record = (messageId: string, body: string, queue: string) => ({
  messageId,
  receiptHandle: `rh-${messageId}`,
  body,
  attributes: { ApproximateReceiveCount: '1' },
  messageAttributes: {},
  eventSource: 'aws:sqs',
  eventSourceARN: `arn:aws:sqs:us-east-1:${ACCOUNT}:${queue}`,
});
const invokes = () =>
  aws.requests
    .filter((r) => INVOKE_PATH.test(r.path))
    .map((r) => ({ target: decodeURIComponent(INVOKE_PATH.exec(r.path)?.[1] ?? ''), body: JSON.parse(r.body) }));

describe('the production backend with triggers and schedules', () => {
  it('starts one run per trigger message, invoked through the alias, nothing run in the batch', async () => {
    const batch = { Records: [record('t-1', '{"a":1}', 'orders-in'), record('t-2', '{"a":2}', 'orders-in')] };
    expect(await handler(batch, lambda())).toEqual({ batchItemFailures: [] });
    expect(await handler({ Records: [batch.Records[0]] }, lambda())).toEqual({ batchItemFailures: [] });
    expect(executed).toBe(0);
    const sent = invokes();
    // The redelivery came before t-1's run was first invoked: kicked again (as the control API's
    // start does); the second invoke finds the run held or nothing due. Still one run per message.
    expect(sent).toHaveLength(3);
    // Each run's first invocation reaches the version the alias pointed at when its event came
    // (the batch ran there), where the run pins at its first lease: as a plain start event's would.
    expect(new Set(sent.map((i) => i.target))).toEqual(
      new Set([`arn:aws:lambda:us-east-1:${ACCOUNT}:function:orders:7`]),
    );
    const runs = (await store.listRuns({ functionName: 'orders', limit: 100 })).runs;
    expect(runs.map((r) => r.runKey).sort()).toEqual(['sqs:orders:t-1', 'sqs:orders:t-2']);
    // Recorded by the bare name until its first lease pins it (nothing of it ran anywhere yet).
    expect(new Set(runs.map((r) => r.functionName))).toEqual(new Set(['orders']));
  }, 60_000);

  it("leaves the wake-up queue's message to the wake-up receiver (a body that is no wake-up: failed, to dead-letter)", async () => {
    const fromWakeQueue = { Records: [record('w-1', '{"not":"a wake-up"}', 'orders-wake-ups')] };
    expect(await handler(fromWakeQueue, lambda())).toEqual({ batchItemFailures: [{ itemIdentifier: 'w-1' }] });
  }, 60_000);

  it('starts the run of a schedule firing, once for a duplicate firing', async () => {
    const firing = {
      durableLambda: {
        action: 'schedule',
        name: 'nightly',
        scheduledTime: '2026-01-01T03:00:00Z',
        overlap: 'allowAll',
      },
    };
    const first = (await handler(firing, lambda())) as { runId: string; created: boolean };
    expect(first).toMatchObject({ schedule: 'nightly', created: true });
    expect(await handler(firing, lambda())).toMatchObject({ runId: first.runId, created: false });
    expect((await store.getRun(first.runId))?.runKey).toBe('schedule:orders:nightly:2026-01-01T03:00:00.000Z');
  }, 60_000);
});
