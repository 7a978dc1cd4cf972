import { DescribeTableCommand, DescribeTimeToLiveCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import {
  BY_FUNCTION_INDEX,
  BY_STATUS_INDEX,
  createDurableTable,
  DUE_SHARDS,
  DynamoDbStore,
  dueShard,
  durableTableDefinition,
  LIST_INDEX,
  LIST_SHARDS,
  listKeyOf,
  operationSk,
  runPk,
} from '@durable-lambda/aws';
import type { Operation } from '@durable-lambda/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callbackOp, executionOp, payload, runRecord, stepOp, T0 } from '../../store-conformance/conformance';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../../support/dynamodb-local';

const MB = 1024 * 1024;

let client: DynamoDBDocumentClient;
/** Every command sent, by name, since the last reset. */
let sent: string[] = [];
/** Makes the next command of this name fail before it is sent. */
const failNext = new Map<string, Error>();

beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName ?? 'unknown';
      sent.push(name);
      const failure = failNext.get(name);
      if (failure) {
        failNext.delete(name);
        throw failure;
      }
      return next(args);
    },
    { step: 'initialize', name: 'countAndFail' },
  );
}, 60_000);

afterAll(() => client?.destroy());

let t = T0;
const clock = { now: () => t };
let tableName: string;
let store: DynamoDbStore;

beforeEach(async () => {
  t = T0;
  tableName = uniqueTableName('store');
  await createDurableTable(client, tableName);
  store = new DynamoDbStore({ client, tableName, clock });
  sent = [];
  failNext.clear();
});

/** Counts the commands `action` sends. */
async function requests(action: () => Promise<unknown>): Promise<Record<string, number>> {
  sent = [];
  await action();
  const counts: Record<string, number> = {};
  for (const name of sent) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}

async function leased(runId = 'r1'): Promise<number> {
  await store.createRun(runRecord(runId), executionOp());
  const grant = await store.acquireLease(runId, T0, T0 + 60_000, 'token-1');
  if (!grant) throw new Error('no lease');
  return grant.run.fence;
}

/** Every raw item of a run's partition. */
async function rawItems(runId: string): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': runPk(runId) },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

const chunkCount = async (runId: string) =>
  (await rawItems(runId)).filter((item) => String(item.sk).startsWith('CHUNK#')).length;

describe('DynamoDbStore: requests per operation', () => {
  it('the hot path is one request each and no transaction: create, lease, load, commit, release, outside event', async () => {
    // The first run of a function in this store also registers the function (once per store).
    expect(await requests(() => store.createRun(runRecord('r0'), executionOp()))).toEqual({ PutItemCommand: 2 });
    expect(await requests(() => store.createRun(runRecord('r1'), executionOp()))).toEqual({ PutItemCommand: 1 });
    let fence = 0;
    expect(
      await requests(async () => {
        fence = (await store.acquireLease('r1', T0, T0 + 60_000, 'token-1'))?.run.fence ?? 0;
      }),
    ).toEqual({ UpdateItemCommand: 1 });
    expect(await requests(() => store.loadOperations('r1'))).toEqual({ QueryCommand: 1 });
    expect(await requests(() => store.commit('r1', fence, { operations: [stepOp('1', '"a"')] }))).toEqual({
      UpdateItemCommand: 1,
    });
    expect(
      await requests(() =>
        store.commit('r1', fence, { operations: [callbackOp('2')], run: { nextWakeAt: null, handledEventSeq: 0 } }),
      ),
    ).toEqual({ UpdateItemCommand: 1 });
    expect(
      await requests(() =>
        store.commit('r1', fence, { operations: [], run: { leaseExpiresAt: null, nextWakeAt: T0 } }),
      ),
    ).toEqual({ UpdateItemCommand: 1 });
    // An outside writer reads the entry it changes, then swaps it: no transaction either.
    const done: Operation = { ...callbackOp('2'), Status: 'SUCCEEDED' };
    expect(await requests(() => store.writeOutsideEvent('r1', done, { Status: 'STARTED' }, true))).toEqual({
      GetItemCommand: 1,
      UpdateItemCommand: 1,
    });
    expect(await requests(() => store.getRun('r1'))).toEqual({ GetItemCommand: 1 });
    expect(await requests(() => store.getOperation('r1', '2'))).toEqual({ GetItemCommand: 2 });
    expect(await store.getOperation('r1', '2')).toEqual(done);
  });

  it('a lapsed lease costs one more update; a stale commit one refused update', async () => {
    const stale = await leased();
    t = T0 + 60_000;
    expect(await requests(() => store.acquireLease('r1', t, t + 60_000, 'token-2'))).toEqual({ UpdateItemCommand: 2 });
    expect(
      await requests(() => store.commit('r1', stale, { operations: [stepOp('1', '1')] }).catch(() => undefined)),
    ).toEqual({ UpdateItemCommand: 1 });
  });

  it('operations past the room of the run item go in fenced transactions; large values add one chunk batch', async () => {
    const fence = await leased();
    // 42 entries fit the run item (the EXECUTION is one of them); the other 109 are items, in two
    // transactions of at most 99 with the run item.
    const ops = Array.from({ length: 150 }, (_, i) => stepOp(String(i + 1), `"${i}"`));
    expect(await requests(() => store.commit('r1', fence, { operations: ops }))).toEqual({
      TransactWriteItemsCommand: 2,
    });
    expect(await store.loadOperations('r1')).toHaveLength(151);
    // A 5 MB result moves into chunks and its entry keeps the reference; the finished entries that
    // make the run item kilobytes larger move out to items first (one PutItem each), making room.
    const counts = await requests(() => store.commit('r1', fence, { operations: [stepOp('151', payload(5 * MB))] }));
    expect(counts).toMatchObject({ BatchWriteItemCommand: 1, UpdateItemCommand: 1 });
    expect(counts.PutItemCommand).toBeGreaterThan(0);
    expect(counts.TransactWriteItemsCommand).toBeUndefined();
    expect(await store.loadOperations('r1')).toHaveLength(152);
    expect(await requests(() => store.getOperation('r1', '151'))).toEqual({
      GetItemCommand: 2,
      BatchGetItemCommand: 1,
    });
  });

  it('loading follows the pages of a large run', async () => {
    const fence = await leased();
    const ops = Array.from({ length: 1_000 }, (_, i) => stepOp(String(i + 1), JSON.stringify(payload(1_200, `${i}`))));
    for (let i = 0; i < ops.length; i += 250) await store.commit('r1', fence, { operations: ops.slice(i, i + 250) });
    const counts = await requests(async () => expect(await store.loadOperations('r1')).toHaveLength(1_001));
    expect(counts.QueryCommand).toBeGreaterThanOrEqual(2);
  });
});

describe('DynamoDbStore: layout', () => {
  it('creates the table with keys, the listing index and the due index', async () => {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    expect(Table?.KeySchema).toEqual(durableTableDefinition(tableName).KeySchema);
    expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName).sort()).toEqual([LIST_INDEX, 'due'].sort());
    expect(
      durableTableDefinition(tableName, { legacyIndexes: true }).GlobalSecondaryIndexes?.map((i) => i.IndexName),
    ).toEqual([LIST_INDEX, 'due', BY_FUNCTION_INDEX, 'byFunctionBase', BY_STATUS_INDEX]);
  });

  it('enables TTL on ttl (a table made by a client of its own: the test client points TTL elsewhere)', async () => {
    const raw = new DynamoDBClient({
      endpoint: await dynamoDbLocalEndpoint(),
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const own = uniqueTableName('ttl');
    await createDurableTable(raw, own);
    const ttl = await raw.send(new DescribeTimeToLiveCommand({ TableName: own }));
    expect(ttl.TimeToLiveDescription).toMatchObject({ AttributeName: 'ttl', TimeToLiveStatus: 'ENABLED' });
    raw.destroy();
  });

  it('sorts operation ids in tree order', () => {
    const ids = ['0', '1', '1-1', '1-1-1', '1-2', '1-10', '2', '9', '10', '10-1', '100', 'zz-hash'];
    const shuffled = [...ids].reverse();
    expect(shuffled.sort((a, b) => (operationSk(a) < operationSk(b) ? -1 : 1))).toEqual(ids);
  });

  it('indexes run items only, once at their start; a status change rewrites the projected status in place', async () => {
    const fence = await leased('r1');
    await store.commit('r1', fence, { operations: [stepOp('1', payload(MB))] });
    await store.claimIdempotencyKey({
      key: 'k',
      requestHash: 'h',
      state: 'IN_PROGRESS',
      createdAt: T0,
      expiresAt: T0 + 1e6,
    });
    const indexed = async () =>
      (await client.send(new ScanCommand({ TableName: tableName, IndexName: LIST_INDEX }))).Items ?? [];
    expect((await indexed()).map((item) => [item.sk, item.listKey, item.status])).toEqual([
      ['RUN', listKeyOf('fn', 'r1'), 'RUNNING'],
    ]);
    await store.commit('r1', fence, { operations: [], run: { status: 'SUCCEEDED', endedAt: T0 + 50 } });
    expect((await indexed()).map((item) => item.status)).toEqual(['SUCCEEDED']);
    expect((await store.listRuns({ functionName: 'fn', status: 'RUNNING' })).runs).toEqual([]);
    expect((await store.listRuns({ functionName: 'fn', status: 'SUCCEEDED' })).runs.map((r) => r.runId)).toEqual([
      'r1',
    ]);
  });

  it('no partition key takes every run: a function spreads over 32 listing keys, the table over 64 due keys', async () => {
    const ids = Array.from({ length: 300 }, (_, i) => `spread-${i}`);
    const listing = new Map<string, number>();
    const due = new Map<string, number>();
    for (const id of ids) {
      listing.set(listKeyOf('orders', id), (listing.get(listKeyOf('orders', id)) ?? 0) + 1);
      due.set(dueShard(id), (due.get(dueShard(id)) ?? 0) + 1);
    }
    expect(listing.size).toBe(LIST_SHARDS);
    expect(due.size).toBe(DUE_SHARDS);
    // The largest share any one key takes stays near an even spread (1/32, 1/64).
    expect(Math.max(...listing.values()) / ids.length).toBeLessThan(3 / LIST_SHARDS);
    expect(Math.max(...due.values()) / ids.length).toBeLessThan(3 / DUE_SHARDS);
  });

  it('a listing queries the 32 partitions of the function (and the registry without one), then reads the page', async () => {
    await store.createRun(runRecord('r1'), executionOp());
    await store.createRun(runRecord('r2', { functionName: 'other' }), executionOp());
    await store.createRun(runRecord('r3', { functionName: 'fn:7' }), executionOp());
    const all = await requests(() => store.listRuns({}));
    expect(all).toEqual({ QueryCommand: 1 + 2 * LIST_SHARDS, BatchGetItemCommand: 1 });
    expect((await store.listRuns({})).runs.map((r) => r.runId).sort()).toEqual(['r1', 'r2', 'r3']);
    expect(await requests(() => store.listRuns({ functionName: 'fn', status: 'RUNNING' }))).toEqual({
      QueryCommand: LIST_SHARDS,
      BatchGetItemCommand: 1,
    });
    expect((await store.listRuns({ functionName: 'fn' })).runs.map((r) => r.runId).sort()).toEqual(['r1', 'r3']);
    expect((await store.listRuns({ functionName: 'fn:7' })).runs.map((r) => r.runId)).toEqual(['r3']);
  });

  it('a table that keeps the layout-1 indexes lists the runs written before layout 2 too', async () => {
    const legacyTable = uniqueTableName('legacy');
    await createDurableTable(client, legacyTable, { legacyIndexes: true });
    const legacy = new DynamoDbStore({ client, tableName: legacyTable, clock, legacyIndexes: true });
    await legacy.createRun(runRecord('new'), executionOp());
    // A run item as layout 1 wrote it: no listKey (so only the layout-1 indexes hold it).
    await client.send(
      new PutCommand({
        TableName: legacyTable,
        Item: {
          pk: runPk('old'),
          sk: 'RUN',
          ...runRecord('old', { createdAt: T0 - 5 }),
          epoch: 0,
          inflight: {},
        },
      }),
    );
    expect((await legacy.listRuns({ functionName: 'fn' })).runs.map((r) => r.runId)).toEqual(['new', 'old']);
    expect((await legacy.listRuns({ status: 'RUNNING' })).runs.map((r) => r.runId)).toEqual(['new', 'old']);
    // A store that is not told reads the listing index only.
    const unaware = new DynamoDbStore({ client, tableName: legacyTable, clock });
    expect((await unaware.listRuns({ functionName: 'fn' })).runs.map((r) => r.runId)).toEqual(['new']);
  });

  it('gives the run item the retention as ttl (seconds), and other items a ceiling', async () => {
    const input = JSON.stringify(payload(MB, 'in'));
    await store.createRun(runRecord('r1', { expiresAt: T0 + 1_500, input }), executionOp(input));
    const items = await rawItems('r1');
    expect(items.find((item) => item.sk === 'RUN')?.ttl).toBe(Math.ceil((T0 + 1_500) / 1000));
    // The EXECUTION is an entry of the run item (it lives and dies with it); chunks get the ceiling.
    expect(items.some((item) => item.sk === operationSk('0'))).toBe(false);
    const chunk = items.find((item) => String(item.sk).startsWith('CHUNK#'));
    expect(chunk?.ttl).toBe(Math.ceil((T0 + 400 * 86_400_000) / 1000));
  });

  it('no item is over the budget: a 5 MB value is split into chunks under 400 KB', async () => {
    const fence = await leased();
    const value = payload(5 * MB, 'big');
    await store.commit('r1', fence, { operations: [stepOp('1', value)] });
    const items = await rawItems('r1');
    const chunks = items.filter((item) => String(item.sk).startsWith('CHUNK#'));
    expect(chunks.length).toBe(Math.ceil(Buffer.byteLength(value) / (350_000 - 1024)));
    const size = (item: Record<string, unknown>) =>
      Object.entries(item).reduce(
        (sum, [key, value]) =>
          sum + key.length + (value instanceof Uint8Array ? value.length : Buffer.byteLength(JSON.stringify(value))),
        0,
      );
    for (const item of items) expect(size(item)).toBeLessThan(400_000);
  });

  it('stores a value shared by the run input and its EXECUTION operation once', async () => {
    const input = JSON.stringify(payload(MB, 'shared'));
    await store.createRun(runRecord('r1', { input }), executionOp(input));
    expect(await chunkCount('r1')).toBe(Math.ceil((Buffer.byteLength(input) + 0) / (350_000 - 1024)));
  });
});

describe('DynamoDbStore: chunk crash safety', () => {
  it('a crash after the chunks and before the item leaves the old value whole', async () => {
    const fence = await leased();
    const before = payload(MB, 'before');
    await store.commit('r1', fence, { operations: [stepOp('1', before)] });
    const chunksBefore = await chunkCount('r1');
    failNext.set('UpdateItemCommand', new Error('crash: the invocation died here'));
    await expect(store.commit('r1', fence, { operations: [stepOp('1', payload(MB, 'after'))] })).rejects.toThrow(
      'crash',
    );
    expect(await chunkCount('r1')).toBeGreaterThan(chunksBefore);
    expect(await store.getOperation('r1', '1')).toEqual(stepOp('1', before));
    expect((await store.loadOperations('r1'))[1]).toEqual(stepOp('1', before));
    // The next attempt writes the new value whole.
    const after = payload(MB, 'after');
    await store.commit('r1', fence, { operations: [stepOp('1', after)] });
    expect(await store.getOperation('r1', '1')).toEqual(stepOp('1', after));
  });

  it('a crash in the middle of the chunks does the same, for a run result too', async () => {
    const small = new DynamoDbStore({ client, tableName, clock, maxItemBytes: 8_192 });
    await small.createRun(runRecord('r1'), executionOp());
    const fence = (await small.acquireLease('r1', T0, T0 + 60_000, 'token-1'))?.run.fence ?? 0;
    const before = payload(300_000, 'before');
    await small.commit('r1', fence, { operations: [], run: { result: before } });
    // ~300 KB in 7 KB chunks is two BatchWriteItem requests: the second one fails.
    let batches = 0;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'BatchWriteItemCommand' && ++batches === 2) throw new Error('crash mid-chunks');
        return next(args);
      },
      { step: 'initialize', name: 'crashMidChunks' },
    );
    try {
      await expect(
        small.commit('r1', fence, { operations: [], run: { result: payload(300_000, 'after') } }),
      ).rejects.toThrow('crash mid-chunks');
    } finally {
      client.middlewareStack.remove('crashMidChunks');
    }
    expect(batches).toBe(2);
    expect((await small.getRun('r1'))?.result).toBe(before);
  });
});

describe('DynamoDbStore: expired items', () => {
  it('reads ignore operation items whose ttl has passed, though DynamoDB still holds them', async () => {
    const fence = await leased();
    await store.commit('r1', fence, { operations: [stepOp('1', '"a"')] });
    const op = stepOp('1', '"a"');
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          pk: runPk('r1'),
          sk: operationSk('2'),
          op: { ...op, Id: '2' },
          f: fence,
          ttl: Math.floor(T0 / 1000) - 1,
        },
      }),
    );
    expect((await rawItems('r1')).some((item) => item.sk === operationSk('2'))).toBe(true);
    expect((await store.loadOperations('r1')).map((o) => o.Id)).toEqual(['0', '1']);
    expect(await store.getOperation('r1', '2')).toBeUndefined();
    expect(await store.writeOutsideEvent('r1', { ...op, Id: '2' }, { Status: 'SUCCEEDED' }, true)).toBe(false);
  });

  it('an expired run item still in the table is invisible, and its operations with it', async () => {
    await store.createRun(runRecord('r1', { expiresAt: T0 + 1 }), executionOp());
    t = T0 + 1;
    expect((await rawItems('r1')).length).toBe(1);
    expect(await store.getRun('r1')).toBeUndefined();
    expect(await store.loadOperations('r1')).toEqual([]);
    expect(await store.getOperation('r1', '0')).toBeUndefined();
  });

  it('a chunk past its ttl makes the value unreadable, never partial', async () => {
    const fence = await leased();
    await store.commit('r1', fence, { operations: [stepOp('1', payload(MB, 'x'))] });
    const chunk = (await rawItems('r1')).find((item) => String(item.sk).startsWith('CHUNK#'));
    await client.send(new PutCommand({ TableName: tableName, Item: { ...chunk, ttl: Math.floor(T0 / 1000) - 1 } }));
    await expect(store.getOperation('r1', '1')).rejects.toMatchObject({ code: 'chunk_missing' });
  });
});

describe('DynamoDbStore: errors', () => {
  it('refuses a document client that would fail on undefined values', () => {
    const raw = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
    expect(() => new DynamoDbStore({ client: raw, tableName })).toThrow('removeUndefinedValues: true');
    raw.destroy();
  });

  it('errors other than condition failures propagate as they are', async () => {
    const fence = await leased();
    const throttled = Object.assign(new Error('slow down'), { name: 'ProvisionedThroughputExceededException' });
    failNext.set('UpdateItemCommand', throttled);
    await expect(store.commit('r1', fence, { operations: [stepOp('1', '1')] })).rejects.toBe(throttled);
    const missing = new DynamoDbStore({ client, tableName: 'no-such-table', clock });
    await expect(missing.getRun('r1')).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });

  it('a transaction that collided with another is sent again', async () => {
    const fence = await leased();
    const conflict = Object.assign(new Error('conflict'), {
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }],
    });
    failNext.set('TransactWriteItemsCommand', conflict);
    // More operations than the run item holds: the rest go in a transaction with it.
    const ops = Array.from({ length: 70 }, (_, i) => stepOp(String(i + 1), `${i}`));
    const counts = await requests(() => store.commit('r1', fence, { operations: ops }));
    expect(counts).toEqual({ TransactWriteItemsCommand: 2 });
    expect(await store.getOperation('r1', '70')).toEqual(stepOp('70', '69'));
  });
});
