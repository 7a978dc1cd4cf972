/**
 * The DynamoDB side of the due index (`packages/aws/TABLE.md`, "The due index"): a sparse GSI
 * sharded over 16 partition keys, kept on the run item by every write, read by one Query per
 * shard. What every store does is in the conformance suite; this is what only DynamoDB has: the
 * raw items and the index, the request counts, the places where DynamoDB's `dueAt` may be
 * earlier than `dueAtOf` (never later), and a lease retried with its own token.
 */
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DUE_INDEX, DUE_SHARDS, DynamoDbStore, dueShard, runPk } from '@durable-lambda/aws';
import { dueAtOf, type RunRecord } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
// Not (yet) exported by the package's entry point; the store's own module says them.
import { callbackOp, executionOp, runRecord, stepOp, T0 } from '../../store-conformance/conformance';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../../support/dynamodb-local';

let client: DynamoDBDocumentClient;
let sent: string[] = [];

beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
  client.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push(context.commandName ?? 'unknown');
      return next(args);
    },
    { step: 'initialize', name: 'count' },
  );
}, 60_000);

afterAll(() => client?.destroy());

let t = T0;
const clock = { now: () => t };
let tableName: string;
let store: DynamoDbStore;

beforeEach(async () => {
  t = T0;
  tableName = uniqueTableName('due');
  await createDurableTable(client, tableName);
  store = new DynamoDbStore({ client, tableName, clock });
});

async function requests(action: () => Promise<unknown>): Promise<Record<string, number>> {
  sent = [];
  await action();
  const counts: Record<string, number> = {};
  for (const name of sent) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}

async function runItem(runId: string): Promise<Record<string, unknown>> {
  const out = await client.send(
    new GetCommand({ TableName: tableName, Key: { pk: runPk(runId), sk: 'RUN' }, ConsistentRead: true }),
  );
  return out.Item ?? {};
}

/** The due index as DynamoDB holds it: run id, shard and dueAt of every entry. */
async function indexEntries(): Promise<Array<{ runId: string; shard: unknown; dueAt: unknown }>> {
  const out = await client.send(new ScanCommand({ TableName: tableName, IndexName: DUE_INDEX }));
  return (out.Items ?? [])
    .map((item) => ({ runId: String(item.pk).slice('RUN#'.length), shard: item.dueShard, dueAt: item.dueAt }))
    .sort((a, b) => (a.runId < b.runId ? -1 : 1));
}

async function leased(runId: string, overrides: Partial<RunRecord> = {}): Promise<number> {
  await store.createRun(runRecord(runId, overrides), executionOp());
  const grant = await store.acquireLease(runId, t, t + 60_000, `token-${runId}`);
  if (!grant) throw new Error('no lease');
  return grant.run.fence;
}

describe('DynamoDbStore: the due index', () => {
  it('is a GSI on (dueShard, dueAt) projecting expiresAt, holding run items with a dueAt only', async () => {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const due = Table?.GlobalSecondaryIndexes?.find((index) => index.IndexName === DUE_INDEX);
    expect(due?.KeySchema).toEqual([
      { AttributeName: 'dueShard', KeyType: 'HASH' },
      { AttributeName: 'dueAt', KeyType: 'RANGE' },
    ]);
    expect(due?.Projection).toEqual({ ProjectionType: 'INCLUDE', NonKeyAttributes: ['expiresAt'] });

    const fence = await leased('ended');
    await store.commit('ended', fence, { operations: [stepOp('1', '"a"')] });
    await store.createRun(runRecord('waiting'), executionOp());
    await store.claimIdempotencyKey({
      key: 'k',
      requestHash: 'h',
      state: 'IN_PROGRESS',
      createdAt: T0,
      expiresAt: T0 + 9e6,
    });
    // The lease kept the due time the run had (its start): no index write per lease.
    expect(await indexEntries()).toEqual([
      { runId: 'ended', shard: dueShard('ended'), dueAt: T0 },
      { runId: 'waiting', shard: dueShard('waiting'), dueAt: T0 },
    ]);
    await store.commit('ended', fence, {
      operations: [],
      run: { status: 'SUCCEEDED', endedAt: T0, leaseExpiresAt: null, nextWakeAt: null, dueAt: null },
    });
    const item = await runItem('ended');
    expect('dueAt' in item || 'dueShard' in item).toBe(false);
    expect((await indexEntries()).map((entry) => entry.runId)).toEqual(['waiting']);
  });

  it('spreads runs over its 64 shards by a stable hash of the run id', () => {
    const shards = new Set(Array.from({ length: 2_000 }, (_, i) => dueShard(`run-${i}`)));
    expect(DUE_SHARDS).toBe(64);
    expect(shards.size).toBe(64);
    for (const shard of shards) expect(shard).toMatch(/^due#([0-9]|[1-5][0-9]|6[0-3])$/);
    expect(dueShard('run-7')).toBe(dueShard('run-7'));
  });

  it('findDueRuns costs one Query per shard, nothing else', async () => {
    await store.createRun(runRecord('r1'), executionOp());
    expect(await requests(() => store.findDueRuns(T0, 10))).toEqual({ QueryCommand: DUE_SHARDS });
  });

  it('findDueRuns refuses a bad bound or limit with invalid_argument, naming the field', async () => {
    for (const limit of [0, -1, 1.5, 1_001, Number.NaN]) {
      await expect(store.findDueRuns(T0, limit), `limit ${limit}`).rejects.toMatchObject({
        code: 'invalid_argument',
        field: 'limit',
      });
    }
    for (const before of [Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(store.findDueRuns(before, 1)).rejects.toMatchObject({ code: 'invalid_argument', field: 'before' });
    }
  });

  it('reads partition by partition: one Query of its one shard, the partitions together holding every entry once', async () => {
    expect(store.duePartitions()).toBe(DUE_SHARDS);
    const ids = Array.from({ length: 40 }, (_, i) => `p-${i}`);
    for (const [i, runId] of ids.entries()) {
      await store.createRun(runRecord(runId, { nextWakeAt: T0 + (i % 7) }), executionOp());
    }
    const merged = await store.findDueRuns(T0 + 10, 1_000);
    const byPartition = [];
    for (let partition = 0; partition < DUE_SHARDS; partition++) {
      expect(await requests(() => store.findDueRuns(T0 + 10, 1_000, undefined, partition))).toEqual({
        QueryCommand: 1,
      });
      const entries = await store.findDueRuns(T0 + 10, 1_000, undefined, partition);
      for (const entry of entries) expect(dueShard(entry.runId)).toBe(`due#${partition}`);
      // In the index's order, as the merged read.
      expect(entries).toEqual(merged.filter((entry) => dueShard(entry.runId) === `due#${partition}`));
      byPartition.push(...entries);
    }
    expect(byPartition).toHaveLength(ids.length);
    expect(new Set(byPartition.map((entry) => entry.runId))).toEqual(new Set(ids));

    // Paged within a partition from an entry `after`, as the reconciler goes on from a cursor.
    const fullest = Array.from({ length: DUE_SHARDS }, (_, partition) =>
      merged.filter((entry) => dueShard(entry.runId) === `due#${partition}`),
    ).sort((a, b) => b.length - a.length)[0] as typeof merged;
    const partition = Number(dueShard((fullest[0] as (typeof merged)[0]).runId).slice('due#'.length));
    const paged = [];
    for (let after: (typeof merged)[0] | undefined; ; ) {
      const page = await store.findDueRuns(T0 + 10, 1, after, partition);
      if (page.length === 0) break;
      paged.push(...page);
      after = page[0];
    }
    expect(paged).toEqual(fullest);
  });

  it('refuses a partition that is not one of its shards, naming the field', async () => {
    for (const partition of [-1, 1.5, DUE_SHARDS, Number.NaN]) {
      await expect(store.findDueRuns(T0, 10, undefined, partition), `partition ${partition}`).rejects.toMatchObject({
        code: 'invalid_argument',
        field: 'partition',
      });
    }
  });

  it('an expired run never holds back the runs due after it', async () => {
    for (let i = 0; i < 5; i++) {
      await store.createRun(runRecord(`old-${i}`, { nextWakeAt: T0 + i, expiresAt: T0 + 1_000 }), executionOp());
    }
    await store.createRun(runRecord('live', { nextWakeAt: T0 + 100 }), executionOp());
    t = T0 + 1_000;
    expect(await store.findDueRuns(T0 + 1_000, 2)).toEqual([{ runId: 'live', dueAt: T0 + 100 }]);
  });
});

describe('DynamoDbStore: dueAt may be earlier than dueAtOf, never later', () => {
  it('an event that lands while the lease is held: a commit that keeps the lease leaves the run due now', async () => {
    const fence = await leased('r1');
    await store.commit('r1', fence, { operations: [callbackOp('1')] });
    const done: Operation = { ...callbackOp('1'), Status: 'SUCCEEDED', CallbackDetails: { CallbackId: 'cb-1' } };
    await store.writeOutsideEvent('r1', done, { Status: 'STARTED' }, true);
    t = T0 + 10;
    // The commit's condition fails on eventSeq, then it is written again due now: two requests, no read.
    expect(
      await requests(() =>
        store.commit('r1', fence, { operations: [], run: { handledEventSeq: 0, dueAt: T0 + 60_000 } }),
      ),
    ).toEqual({ UpdateItemCommand: 2 });
    const run = await store.getRun('r1');
    expect(run?.dueAt).toBe(T0 + 10);
    expect(dueAtOf(run as RunRecord)).toBe(T0 + 60_000);
  });

  it('a commit that handled every event costs one request', async () => {
    const fence = await leased('r1');
    expect(
      await requests(() =>
        store.commit('r1', fence, { operations: [], run: { handledEventSeq: 0, leaseExpiresAt: null, dueAt: T0 } }),
      ),
    ).toEqual({ UpdateItemCommand: 1 });
  });

  it('an event on an ended run makes an entry the reconciler removes by a revision', async () => {
    const fence = await leased('r1');
    await store.commit('r1', fence, { operations: [callbackOp('1')] });
    await store.commit('r1', fence, {
      operations: [],
      run: { status: 'FAILED', endedAt: T0, leaseExpiresAt: null, nextWakeAt: null, dueAt: null },
    });
    const done: Operation = { ...callbackOp('1'), Status: 'SUCCEEDED', CallbackDetails: { CallbackId: 'cb-1' } };
    t = T0 + 5;
    expect(await store.writeOutsideEvent('r1', done, { Status: 'STARTED' }, true)).toBe(true);
    const run = await store.getRun('r1');
    expect(run?.dueAt).toBe(T0 + 5);
    expect(dueAtOf(run as RunRecord)).toBeUndefined();
    await store.reviseRun('r1', 'FAILED', { dueAt: null }, []);
    expect(await store.findDueRuns(T0 + 5, 10)).toEqual([]);
  });
});

describe('DynamoDbStore: a lease asked for again with its own token', () => {
  it('is the same grant (same fence, counted once); another expiry or token is refused', async () => {
    await store.createRun(runRecord('r1'), executionOp());
    const first = await store.acquireLease('r1', T0, T0 + 60_000, 'token-a');
    const again = await store.acquireLease('r1', T0, T0 + 60_000, 'token-a');
    // The same run and fence (the first also carries its replay from the returned item).
    expect({ run: again?.run, previousLost: again?.previousLost }).toEqual({
      run: first?.run,
      previousLost: first?.previousLost,
    });
    expect(await store.acquireLease('r1', T0, T0 + 60_001, 'token-a')).toBeUndefined();
    expect(await store.acquireLease('r1', T0, T0 + 60_000, 'token-b')).toBeUndefined();
    expect(await store.getRun('r1')).toMatchObject({ fence: 1, invocations: 1 });
  });

  it('after a revision released it, the old token no longer holds anything', async () => {
    await store.createRun(runRecord('r1'), executionOp());
    await store.acquireLease('r1', T0, T0 + 60_000, 'token-a');
    await store.reviseRun('r1', 'RUNNING', { status: 'CANCELLED', endedAt: T0, nextWakeAt: null }, []);
    expect(await store.acquireLease('r1', T0, T0 + 60_000, 'token-a')).toBeUndefined();
    expect((await runItem('r1')).leaseToken).toBeUndefined();
  });
});
