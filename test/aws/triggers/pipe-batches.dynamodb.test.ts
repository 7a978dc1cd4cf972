/**
 * EventBridge Pipes batches through the production backend's open path (built as a
 * DurableFunction deploys it, over DynamoDB Local; Lambda a local fake endpoint recording the
 * invokes): a pipe delivers a JSON array of its source's records (SQS messages, DynamoDB Streams
 * records, Kinesis records). Each record starts one run keyed as its source keys it (`sqs:`,
 * `dynamodb:`, `kinesis:`, the function and the record's id), a redelivered record is the same run, and a record
 * whose start fails is named in `batchItemFailures` by the id Pipes reads (the SQS message id, the
 * stream record's `eventID`), so the pipe retries only from it.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  createDurableTable,
  DynamoDbStore,
  ProductionBackend,
  readProductionConfig,
  triggerBatchOf,
} from '@durable-lambda/aws';
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
/** Records whose user key is refused (an empty key fails the start), until healed. */
const poisoned = new Set<string>();

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
  const tableName = uniqueTableName('pipe-batches');
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
    {
      // The source's own key, except for a poisoned record: '' is no key, so its start fails.
      triggerRunKey: (input) => {
        const id = String(input.messageId ?? input.eventID);
        return poisoned.has(id) ? '' : undefined;
      },
    },
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

/** An SQS message as a pipe delivers it (the same record as Lambda's event source mapping's). */
const sqs = (messageId: string, body: string, receiveCount = 1) => ({
  messageId,
  receiptHandle: `rh-${messageId}-${receiveCount}`,
  body,
  attributes: { ApproximateReceiveCount: String(receiveCount), SentTimestamp: '1767225600000' },
  messageAttributes: {},
  md5OfBody: 'e4e68fb7bd0e697a0ae8f1bb342846b3',
  eventSource: 'aws:sqs',
  eventSourceARN: `arn:aws:sqs:us-east-1:${ACCOUNT}:orders-in`,
  awsRegion: 'us-east-1',
});
/** A DynamoDB Streams record as a pipe delivers it. */
const stream = (eventID: string, sequence: string, id: string) => ({
  eventID,
  eventName: 'INSERT',
  eventVersion: '1.1',
  eventSource: 'aws:dynamodb',
  awsRegion: 'us-east-1',
  dynamodb: {
    Keys: { id: { S: id } },
    NewImage: { id: { S: id } },
    SequenceNumber: sequence,
    SizeBytes: 26,
    StreamViewType: 'NEW_IMAGE',
  },
  eventSourceARN: `arn:aws:dynamodb:us-east-1:${ACCOUNT}:table/orders/stream/2026-01-01T00:00:00.000`,
});
/** A Kinesis record as a pipe delivers it: flat, `data` base64, no `kinesis` wrapper. */
const kinesis = (sequence: string, data: string) => ({
  kinesisSchemaVersion: '1.0',
  partitionKey: '1',
  sequenceNumber: sequence,
  data: Buffer.from(data).toString('base64'),
  approximateArrivalTimestamp: 1767225600.5,
  eventSource: 'aws:kinesis',
  eventVersion: '1.0',
  eventID: `shardId-000000000006:${sequence}`,
  eventName: 'aws:kinesis:record',
  invokeIdentityArn: `arn:aws:iam::${ACCOUNT}:role/pipe-role`,
  awsRegion: 'us-east-1',
  eventSourceARN: `arn:aws:kinesis:us-east-1:${ACCOUNT}:stream/orders`,
});

const invokes = () => aws.requests.filter((r) => INVOKE_PATH.test(r.path)).length;
const keys = async (prefix: string) =>
  (await store.listRuns({ functionName: 'orders', limit: 100 })).runs
    .map((r) => r.runKey ?? '')
    .filter((k) => k.startsWith(prefix))
    .sort();

describe('EventBridge Pipes batches through the production backend', () => {
  it('an SQS pipe batch starts one run per message; the redelivered message (new receipt, count 2) is the same run', async () => {
    const before = invokes();
    expect(await handler([sqs('p-1', '{"a":1}'), sqs('p-2', '{"a":2}')], lambda())).toEqual({ batchItemFailures: [] });
    expect(await handler([sqs('p-1', '{"a":1}', 2)], lambda())).toEqual({ batchItemFailures: [] });
    expect(executed).toBe(0);
    expect(await keys('sqs:orders:')).toEqual(['sqs:orders:p-1', 'sqs:orders:p-2']);
    // Each run invoked on its own (the redelivery, before p-1's first invocation, kicks it again).
    expect(invokes() - before).toBe(3);
    const run = (await store.listRuns({ functionName: 'orders', limit: 100 })).runs.find(
      (r) => r.runKey === 'sqs:orders:p-1',
    );
    // The input leaves out what changes per delivery: the redelivery asked for the same run, not a conflict.
    expect(JSON.parse(run?.input ?? '{}')).toEqual({
      messageId: 'p-1',
      body: '{"a":1}',
      messageAttributes: {},
      eventSourceARN: `arn:aws:sqs:us-east-1:${ACCOUNT}:orders-in`,
    });
  }, 60_000);

  it('a DynamoDB Streams pipe batch starts one run per record, keyed dynamodb:<eventID>; a failed record is named by its eventID', async () => {
    poisoned.add('d-2');
    const batch = [stream('d-1', '100', 'a'), stream('d-2', '200', 'b'), stream('d-3', '300', 'c')];
    expect(await handler(batch, lambda())).toEqual({ batchItemFailures: [{ itemIdentifier: 'd-2' }] });
    expect(await keys('dynamodb:orders:')).toEqual(['dynamodb:orders:d-1', 'dynamodb:orders:d-3']);
    // The pipe retries from the failed record: d-2 and d-3 again; d-3 is the same run.
    poisoned.delete('d-2');
    expect(await handler(batch.slice(1), lambda())).toEqual({ batchItemFailures: [] });
    expect(await keys('dynamodb:orders:')).toEqual([
      'dynamodb:orders:d-1',
      'dynamodb:orders:d-2',
      'dynamodb:orders:d-3',
    ]);
  }, 60_000);

  it('a Kinesis pipe batch starts one run per record, keyed kinesis:<eventID>, duplicates one run, failures by eventID', async () => {
    const one = kinesis('4959001', '{"order":1}');
    const two = kinesis('4959002', '{"order":2}');
    poisoned.add(two.eventID);
    expect(await handler([one, two, one], lambda())).toEqual({ batchItemFailures: [{ itemIdentifier: two.eventID }] });
    expect(await keys('kinesis:orders:')).toEqual([`kinesis:orders:${one.eventID}`]);
    poisoned.delete(two.eventID);
    expect(await handler([two], lambda())).toEqual({ batchItemFailures: [] });
    expect(await keys('kinesis:orders:')).toEqual(
      [`kinesis:orders:${one.eventID}`, `kinesis:orders:${two.eventID}`].sort(),
    );
    const run = (await store.listRuns({ functionName: 'orders', limit: 100 })).runs.find(
      (r) => r.runKey === `kinesis:orders:${one.eventID}`,
    );
    expect(JSON.parse(run?.input ?? '{}')).toEqual(one);
  }, 60_000);
});

describe('telling pipe batches apart', () => {
  it('takes an array of one source’s records; leaves mixed, unknown, malformed and wake-up arrays alone', () => {
    expect(triggerBatchOf([sqs('m', '{}')])).toMatchObject({ source: 'sqs', via: 'pipe', batched: true });
    expect(triggerBatchOf([stream('e', '1', 'a')])?.records[0]).toMatchObject({
      itemIdentifier: 'e',
      defaultKey: 'dynamodb:e',
    });
    // Lambda's own stream mapping still names a record by its sequence number.
    expect(triggerBatchOf({ Records: [stream('e', '1', 'a')] })?.records[0]?.itemIdentifier).toBe('1');
    expect(triggerBatchOf([kinesis('9', 'x')])?.records[0]).toMatchObject({
      source: 'kinesis',
      itemIdentifier: 'shardId-000000000006:9',
      defaultKey: 'kinesis:shardId-000000000006:9',
    });
    expect(triggerBatchOf([sqs('m', '{}'), kinesis('9', 'x')])).toBeUndefined();
    expect(triggerBatchOf([])).toBeUndefined();
    expect(triggerBatchOf([1, 2])).toBeUndefined();
    expect(triggerBatchOf([{ order: 1 }])).toBeUndefined();
    expect(triggerBatchOf([{ ...kinesis('9', 'x'), data: undefined }])).toBeUndefined();
    const wake = JSON.stringify({ durableLambda: { action: 'wake', runId: 'r1' } });
    expect(triggerBatchOf([sqs('m', wake)])).toBeUndefined();
    expect(
      triggerBatchOf(
        [{ ...sqs('m', '{}'), eventSourceARN: 'arn:aws:sqs:us-east-1:1:orders-wake-ups' }],
        'orders-wake-ups',
      ),
    ).toBeUndefined();
  });
});
