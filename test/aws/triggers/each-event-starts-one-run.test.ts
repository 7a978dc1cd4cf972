/**
 * Each trigger event starts exactly one run: the `TriggerReceiver` over the engine, on the memory
 * store and on DynamoDB Local. The invoker queues the invokes (Lambda's asynchronous invoke); the
 * test delivers them afterwards to the handler, so no run executes inside the batch's call.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  createDurableTable,
  DynamoDbStore,
  TriggerReceiver,
  type TriggerRunKey,
  triggerBatchOf,
} from '@durable-lambda/aws';
import { Engine, MemoryStore, type Store, type WakeRequest } from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../../support/dynamodb-local';

let client: DynamoDBDocumentClient | undefined;

beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
}, 60_000);

afterAll(() => client?.destroy());

const stores: Array<[string, (clock: VirtualClock) => Promise<Store>]> = [
  ['memory', async (clock) => new MemoryStore(clock)],
  [
    'DynamoDB Local',
    async (clock) => {
      const tableName = uniqueTableName('triggers');
      const c = client as DynamoDBDocumentClient;
      await createDurableTable(c, tableName);
      return new DynamoDbStore({ client: c, tableName, clock });
    },
  ],
];

const sqsRecord = (messageId: string, body: string, receiveCount = 1) => ({
  messageId,
  receiptHandle: `rh-${messageId}-${receiveCount}`,
  body,
  attributes: { ApproximateReceiveCount: String(receiveCount) },
  messageAttributes: {},
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:orders-in',
});

const streamRecord = (eventID: string, sequence: string, id: string) => ({
  eventID,
  eventName: 'INSERT',
  eventSource: 'aws:dynamodb',
  eventSourceARN: 'arn:aws:dynamodb:us-east-1:123456789012:table/orders/stream/2026-01-01T00:00:00.000',
  dynamodb: { Keys: { id: { S: id } }, NewImage: { id: { S: id } }, SequenceNumber: sequence },
});

const eventBridge = (id: string) => ({
  version: '0',
  id,
  'detail-type': 'OrderPlaced',
  source: 'shop',
  account: '123456789012',
  time: '2026-01-01T00:00:00Z',
  region: 'us-east-1',
  resources: [],
  detail: { order: 7 },
});

async function world(makeStore: (clock: VirtualClock) => Promise<Store>, runKey?: TriggerRunKey) {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const store = await makeStore(clock);
  const wakeUps: WakeRequest[] = [];
  const engine = new Engine({
    store,
    clock,
    waker: { wakeAt: async (r) => void wakeUps.push(r) },
    retentionMs: 86_400_000,
  });
  const invoked: Array<{ functionName: string; event: unknown }> = [];
  const receiver = new TriggerReceiver({
    engine,
    invoker: { invoke: async (functionName, event) => void invoked.push({ functionName, event }) },
    waker: engine.waker,
    clock,
    ...(runKey ? { runKey } : {}),
  });
  const executions: unknown[] = [];
  const handler = withDurableExecution(
    async (input: unknown, ctx) =>
      ctx.step('handle', async () => {
        executions.push(input);
        return 'handled';
      }),
    { backend: engine },
  );
  let seq = 0;
  /** Lambda delivering the queued asynchronous invokes. */
  const drain = async () => {
    for (const { event } of invoked.splice(0)) {
      await handler(event, {
        functionName: 'orders',
        awsRequestId: `r${++seq}`,
        getRemainingTimeInMillis: () => 60_000,
      });
    }
  };
  const deliver = async (event: unknown, functionName = 'orders') => {
    const batch = triggerBatchOf(event, `${functionName}-wake-ups`);
    if (!batch) throw new Error('not a trigger batch');
    return receiver.receive(batch, functionName);
  };
  const runs = async () => (await store.listRuns({ limit: 100 })).runs;
  return { deliver, drain, invoked, executions, runs, wakeUps };
}

describe.each(stores)('trigger events on %s', (_name, makeStore) => {
  it('an SQS message delivered twice (a second receive, new receipt and count) starts one run, invoked once', async () => {
    const w = await world(makeStore);
    const first = { Records: [sqsRecord('m-1', '{"order":1}'), sqsRecord('m-2', '{"order":2}')] };
    expect(await w.deliver(first)).toEqual({ batchItemFailures: [] });
    expect(w.invoked.map((i) => i.functionName)).toEqual(['orders', 'orders']);
    await w.drain();
    const again = { Records: [sqsRecord('m-1', '{"order":1}', 2)] };
    expect(await w.deliver(again)).toEqual({ batchItemFailures: [] });
    expect(w.invoked).toEqual([]);
    const runs = await w.runs();
    expect(runs).toHaveLength(2);
    expect(runs.every((r) => r.status === 'SUCCEEDED' && r.invocations === 1)).toBe(true);
    expect(w.executions).toHaveLength(2);
    expect(w.executions).toContainEqual({
      messageId: 'm-1',
      body: '{"order":1}',
      messageAttributes: {},
      eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:orders-in',
    });
  }, 60_000);

  it('an EventBridge event delivered twice is one run, answered with it both times', async () => {
    const w = await world(makeStore);
    const first = await w.deliver(eventBridge('ev-1'));
    const second = await w.deliver(eventBridge('ev-1'));
    expect(first).toMatchObject({ created: true });
    expect(second).toEqual({ ...first, created: false });
    await w.drain();
    expect(w.executions).toEqual([eventBridge('ev-1')]);
    expect(await w.runs()).toHaveLength(1);
  }, 60_000);

  it('one event sent to two functions (a rule with two targets, a stream with two consumers) starts a run of each', async () => {
    const w = await world(makeStore);
    const orders = await w.deliver(eventBridge('ev-2'));
    const audit = await w.deliver(eventBridge('ev-2'), 'audit');
    expect(orders).toMatchObject({ created: true });
    expect(audit).toMatchObject({ created: true });
    const stream = { Records: [streamRecord('s-9', '900', 'o-9')] };
    expect(await w.deliver(stream)).toEqual({ batchItemFailures: [] });
    expect(await w.deliver(stream, 'audit:live')).toEqual({ batchItemFailures: [] });
    const runs = await w.runs();
    expect(runs.map((r) => `${r.functionName} ${r.runKey}`).sort()).toEqual([
      'audit events:audit:ev-2',
      'audit:live dynamodb:audit:s-9',
      'orders dynamodb:orders:s-9',
      'orders events:orders:ev-2',
    ]);
  }, 60_000);

  it('a stream batch with a record whose start fails names its sequence number; the redelivery starts only it', async () => {
    let poisoned = true;
    // The user's key: the item's id; an id that is not a key (empty) fails the start.
    const w = await world(makeStore, (input) => {
      const id = (input as { dynamodb: { Keys: { id: { S: string } } } }).dynamodb.Keys.id.S;
      return id === 'bad' && poisoned ? '' : `order:${id}`;
    });
    const batch = {
      Records: [streamRecord('e1', '100', 'a'), streamRecord('e2', '200', 'bad'), streamRecord('e3', '300', 'c')],
    };
    expect(await w.deliver(batch)).toEqual({ batchItemFailures: [{ itemIdentifier: '200' }] });
    await w.drain();
    expect((await w.runs()).map((r) => r.runKey).sort()).toEqual(['order:a', 'order:c']);
    // Streams retry from the failed record: records 2 and 3 again, now both start; 3 is the same run.
    poisoned = false;
    expect(await w.deliver({ Records: batch.Records.slice(1) })).toEqual({ batchItemFailures: [] });
    expect(w.invoked).toHaveLength(1);
    await w.drain();
    const runs = await w.runs();
    expect(runs.map((r) => r.runKey).sort()).toEqual(['order:a', 'order:bad', 'order:c']);
    expect(w.executions).toHaveLength(3);
  }, 60_000);

  it('an outbox event published twice (its first answer lost: two message ids, one durableEventId) starts one run, executed once', async () => {
    const w = await world(makeStore);
    // As Lambda delivers the message `AwsOutboxPublisher` sends: the event's id as a message attribute.
    const emitted = (messageId: string) => ({
      ...sqsRecord(messageId, '{"order":5}'),
      messageAttributes: {
        durableEventId: { stringValue: 'run-1:1:0', stringListValues: [], binaryListValues: [], dataType: 'String' },
      },
    });
    expect(await w.deliver({ Records: [emitted('m-1')] })).toEqual({ batchItemFailures: [] });
    await w.drain();
    expect(await w.deliver({ Records: [emitted('m-2')] })).toEqual({ batchItemFailures: [] });
    expect(w.invoked).toEqual([]);
    const runs = await w.runs();
    expect(runs.map((r) => r.runKey)).toEqual(['outbox:orders:run-1:1:0']);
    expect(w.executions).toHaveLength(1);
    // On EventBridge the id rides in the detail: a repeat has another event id, the same run.
    const event = (id: string) => ({ ...eventBridge(id), detail: { order: 6, durableEventId: 'run-1:2:0' } });
    const first = await w.deliver(event('ev-7'));
    const second = await w.deliver(event('ev-8'));
    expect(first).toMatchObject({ created: true });
    expect(second).toEqual({ ...first, created: false });
    await w.drain();
    expect(w.executions).toHaveLength(2);
  }, 60_000);

  it('a user key shared by two events names one run: the second event is that run', async () => {
    const w = await world(makeStore, () => 'tenant-1');
    const batch = { Records: [sqsRecord('m-1', '{"v":1}')] };
    expect(await w.deliver(batch)).toEqual({ batchItemFailures: [] });
    expect(await w.deliver({ Records: [sqsRecord('m-2', '{"v":2}')] })).toEqual({ batchItemFailures: [] });
    expect(await w.runs()).toHaveLength(1);
  }, 60_000);
});

describe('telling trigger batches apart', () => {
  it("leaves the wake-up queue's own batches, plain events and wake events to the backend", () => {
    const wake = JSON.stringify({ durableLambda: { action: 'wake', runId: 'r1' } });
    const fromWakeQueue = {
      Records: [{ ...sqsRecord('m', wake), eventSourceARN: 'arn:aws:sqs:us-east-1:1:orders-wake-ups' }],
    };
    expect(triggerBatchOf(fromWakeQueue, 'orders-wake-ups')).toBeUndefined();
    // A wake-up body with no known wake-up queue is still a wake-up.
    expect(triggerBatchOf({ Records: [sqsRecord('m', wake)] })).toBeUndefined();
    expect(triggerBatchOf({ order: 1 })).toBeUndefined();
    expect(triggerBatchOf({ durableLambda: { action: 'wake', runId: 'r1' } })).toBeUndefined();
    expect(triggerBatchOf({ Records: [sqsRecord('m', '{}')] }, 'orders-wake-ups')?.source).toBe('sqs');
    expect(triggerBatchOf(eventBridge('e'))?.source).toBe('eventbridge');
  });
});
