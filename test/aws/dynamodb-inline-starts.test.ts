/**
 * Inline STARTs on DynamoDB Local: a step's START rides in the run item's `inflight` map instead
 * of an operation item of its own, and every later write of the step moves it to its item. These
 * tests look at the raw items, the requests sent, and what the reads return.
 */
import { type DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore, runPk } from '@durable-lambda/aws';
import type { Operation } from '@durable-lambda/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { executionOp, payload, runRecord, stepOp, T0 } from '../store-conformance/conformance';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';

let client: DynamoDBDocumentClient;
/** Every command sent, by name, since the last reset. */
let sent: string[] = [];
/** Makes the nth command of a name (counted from the last reset) fail before it is sent. */
const failAt = new Map<string, number>();

beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName ?? 'unknown';
      sent.push(name);
      if (failAt.get(name) === sent.filter((n) => n === name).length) {
        failAt.delete(name);
        throw new Error('crash: the invocation died here');
      }
      return next(args);
    },
    { step: 'initialize', name: 'countAndCrash' },
  );
}, 60_000);

afterAll(() => client?.destroy());

let t = T0;
const clock = { now: () => t };
let tableName: string;
let store: DynamoDbStore;

beforeEach(async () => {
  t = T0;
  tableName = uniqueTableName('inline');
  await createDurableTable(client, tableName);
  store = new DynamoDbStore({ client, tableName, clock });
  sent = [];
  failAt.clear();
});

/** A step's fresh attempt, as the SDK's START writes it. */
function start(id: string, attempt = 1, extra: Partial<Operation> = {}): Operation {
  return {
    Id: id,
    Name: `step ${id}`,
    Type: 'STEP',
    Status: 'STARTED',
    StartTimestamp: T0,
    StepDetails: { Attempt: attempt },
    ...extra,
  };
}

async function leased(runId = 'r1', overrides = {}): Promise<number> {
  await store.createRun(runRecord(runId, overrides), executionOp());
  const grant = await store.acquireLease(runId, t, t + 60_000, `token-${t}`);
  if (!grant) throw new Error('no lease');
  return grant.run.fence;
}

/** Counts the commands `action` sends. */
async function requests(action: () => Promise<unknown>): Promise<Record<string, number>> {
  sent = [];
  await action();
  const counts: Record<string, number> = {};
  for (const name of sent) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}

/** The raw run item. */
async function runItem(runId = 'r1'): Promise<Record<string, unknown>> {
  const out = await client.send(new GetCommand({ TableName: tableName, Key: { pk: runPk(runId), sk: 'RUN' } }));
  return out.Item ?? {};
}

/** The inline map of the raw run item. */
async function inflight(runId = 'r1'): Promise<Record<string, Operation> | undefined> {
  return (await runItem(runId)).inflight as Record<string, Operation> | undefined;
}

/** The ids that have an operation item of their own. */
async function itemIds(runId = 'r1'): Promise<string[]> {
  const out = await client.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :op)',
      ExpressionAttributeValues: { ':pk': runPk(runId), ':op': 'OP#' },
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).map((item) => (item.op as Operation).Id);
}

const statuses = async (runId = 'r1') => (await store.loadOperations(runId)).map((op) => `${op.Id}:${op.Status}`);

describe('DynamoDbStore: inline STARTs', () => {
  it("a step's START rides in the run item: one UpdateItem, no operation item, read back STARTED", async () => {
    const fence = await leased();
    expect(await requests(() => store.commit('r1', fence, { operations: [start('2')] }))).toEqual({
      UpdateItemCommand: 1,
    });
    expect(await itemIds()).toEqual(['0']);
    expect(await inflight()).toEqual({ 2: start('2') });
    expect((await store.loadOperations('r1'))[1]).toEqual(start('2'));
    expect(await store.getOperation('r1', '2')).toEqual(start('2'));

    // The outcome rides with the next START: one transaction, the outcome's item and the new entry.
    const done = stepOp('2', '"a"');
    expect(await requests(() => store.commit('r1', fence, { operations: [done, start('10')] }))).toEqual({
      TransactWriteItemsCommand: 1,
    });
    expect(await itemIds()).toEqual(['0', '2']);
    expect(Object.keys((await inflight()) ?? {})).toEqual(['10']);
    // Tree order, the inline one placed among the items.
    expect(await statuses()).toEqual(['0:STARTED', '2:SUCCEEDED', '10:STARTED']);
    expect(await store.getOperation('r1', '2')).toEqual(done);
  });

  it('a retry, a new attempt and a reopen each leave the newest state, never a stale START', async () => {
    const fence = await leased();
    await store.commit('r1', fence, { operations: [start('1')] });
    const retrying: Operation = {
      ...start('1'),
      Status: 'PENDING',
      StepDetails: { Attempt: 1, NextAttemptTimestamp: T0 + 1_000, Error: { ErrorType: 'Error', ErrorMessage: 'x' } },
    };
    await store.commit('r1', fence, { operations: [retrying] });
    expect(await inflight()).toEqual({});
    expect(await store.getOperation('r1', '1')).toEqual(retrying);

    // The second attempt's START goes inline again, over the PENDING item: reads show the START.
    await store.commit('r1', fence, { operations: [start('1', 2)] });
    expect(await itemIds()).toEqual(['0', '1']);
    expect(await store.getOperation('r1', '1')).toEqual(start('1', 2));
    expect(await statuses()).toEqual(['0:STARTED', '1:STARTED']);

    // A revision that reopens the step writes its item and drops the entry in the same transaction.
    const reopened: Operation = {
      ...start('1', 2),
      Status: 'READY',
      StepDetails: { Attempt: 2, NextAttemptTimestamp: T0 },
    };
    expect(await store.reviseRun('r1', 'RUNNING', {}, [reopened])).toBeDefined();
    expect(await inflight()).toEqual({});
    expect(await store.getOperation('r1', '1')).toEqual(reopened);
    expect(await statuses()).toEqual(['0:STARTED', '1:READY']);
  });

  it('holds at most 8 STARTs; the rest go to items, and a store without hints learns the map from a refusal', async () => {
    const fence = await leased();
    const starts = Array.from({ length: 10 }, (_, i) => start(String(i + 1)));
    expect(await requests(() => store.commit('r1', fence, { operations: starts }))).toEqual({
      TransactWriteItemsCommand: 1,
    });
    expect(Object.keys((await inflight()) ?? {}).sort()).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
    expect(await itemIds()).toEqual(['0', '9', '10']);
    expect(await store.loadOperations('r1')).toEqual([executionOp(), ...starts]);

    // Another store instance guesses an empty map: the full map refuses, and the START goes to an item.
    const other = new DynamoDbStore({ client, tableName, clock });
    expect(await requests(() => other.commit('r1', fence, { operations: [start('11')] }))).toEqual({
      UpdateItemCommand: 1,
      TransactWriteItemsCommand: 1,
    });
    expect(await itemIds()).toEqual(['0', '9', '10', '11']);
    expect(Object.keys((await inflight()) ?? {})).toHaveLength(8);

    // This store knows the map is full: no refused write, the START goes to an item at once.
    const finished = ['1', '2', '3'].map((id) => stepOp(id, '"done"'));
    expect(await requests(() => store.commit('r1', fence, { operations: [...finished, start('12')] }))).toEqual({
      TransactWriteItemsCommand: 1,
    });
    expect(Object.keys((await inflight()) ?? {}).sort()).toEqual(['4', '5', '6', '7', '8']);
    // Room again: the next START is inline.
    await store.commit('r1', fence, { operations: [start('13')] });
    expect(Object.keys((await inflight()) ?? {})).toContain('13');
    expect(await statuses()).toEqual([
      '0:STARTED',
      ...['1', '2', '3'].map((id) => `${id}:SUCCEEDED`),
      ...Array.from({ length: 10 }, (_, i) => `${i + 4}:STARTED`),
    ]);
  });

  it('keeps the run item within its budget: 8 of the largest inline STARTs beside the largest inline input, result and error', async () => {
    const quarter = 350_000 / 4;
    const input = JSON.stringify(payload(quarter - 1_000, 'in'));
    const fence = await leased('r1', { input });
    const error = { ErrorType: 'Error', ErrorMessage: payload(quarter - 1_000, 'err') };
    await store.commit('r1', fence, { operations: [], run: { result: payload(quarter - 1_000, 'out'), error } });
    // A START as large as inline allows (512 B with its key), and one just over it.
    const sized = (id: string, bytes: number) => {
      const base = Buffer.byteLength(JSON.stringify(start(id, 1, { Name: '' }))) + Buffer.byteLength(id);
      return start(id, 1, { Name: 'n'.repeat(bytes - base) });
    };
    const largest = Array.from({ length: 8 }, (_, i) => sized(String(i + 1), 512));
    await store.commit('r1', fence, { operations: [...largest, sized('9', 513)] });
    const item = await runItem();
    expect(Object.keys(item.inflight as object)).toHaveLength(8);
    // Nothing moved out to chunks: the three large fields are inline too.
    expect([item.input, item.inputRef, item.resultRef, item.errorRef]).toEqual([
      input,
      undefined,
      undefined,
      undefined,
    ]);
    expect(await itemIds()).toEqual(['0', '9']);
    // Attribute names plus JSON values: over DynamoDB's own count, which is under 400 KB.
    const size = Object.entries(item).reduce(
      (sum, [key, value]) => sum + key.length + Buffer.byteLength(JSON.stringify(value)),
      0,
    );
    expect(size).toBeLessThan(350_000);
    expect(await store.loadOperations('r1')).toEqual([executionOp(), ...largest, sized('9', 513)]);
  });

  it('a store with small items keeps STARTs in items (inline STARTs take at most an eighth of an item)', async () => {
    // 4 KB items: at most 64 B per inline START (8 in an eighth of the item), less than this one's ~110 B.
    const small = new DynamoDbStore({ client, tableName, clock, maxItemBytes: 4_096 });
    expect(Buffer.byteLength(JSON.stringify(start('1')))).toBeGreaterThan(4_096 / 64);
    await small.createRun(runRecord('r1'), executionOp());
    const fence = (await small.acquireLease('r1', T0, T0 + 60_000, 'token'))?.run.fence ?? 0;
    await small.commit('r1', fence, { operations: [start('1')] });
    expect(await itemIds()).toEqual(['0', '1']);
    expect(await inflight()).toEqual({});
    expect(await small.getOperation('r1', '1')).toEqual(start('1'));
  });

  it('a run item written before inline STARTs (no map) takes STARTs as items until its next lease makes the map', async () => {
    const fence = await leased();
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { pk: runPk('r1'), sk: 'RUN' },
        UpdateExpression: 'REMOVE inflight',
      }),
    );
    // The lease's hint says "empty map": the write is refused once, then learns there is none.
    expect(await requests(() => store.commit('r1', fence, { operations: [start('1')] }))).toEqual({
      UpdateItemCommand: 1,
      TransactWriteItemsCommand: 1,
    });
    expect(await requests(() => store.commit('r1', fence, { operations: [stepOp('1', '1'), start('2')] }))).toEqual({
      TransactWriteItemsCommand: 1,
    });
    expect(await inflight()).toBeUndefined();
    expect(await statuses()).toEqual(['0:STARTED', '1:SUCCEEDED', '2:STARTED']);

    t = T0 + 60_000;
    const next = (await store.acquireLease('r1', t, t + 60_000, 'token-2'))?.run.fence ?? 0;
    expect(await inflight()).toEqual({});
    await store.commit('r1', next, { operations: [stepOp('2', '2'), start('3')] });
    expect(await itemIds()).toEqual(['0', '1', '2']);
    expect(await statuses()).toEqual(['0:STARTED', '1:SUCCEEDED', '2:SUCCEEDED', '3:STARTED']);
  });

  it('a commit of more than 99 operations clears inline STARTs batch by batch: a crash between batches hides no outcome', async () => {
    const fence = await leased();
    await store.commit('r1', fence, { operations: Array.from({ length: 8 }, (_, i) => start(String(i + 1))) });
    const outcomes = Array.from({ length: 150 }, (_, i) => stepOp(String(i + 1), `"${i}"`));
    failAt.set('TransactWriteItemsCommand', 2);
    sent = [];
    await expect(store.commit('r1', fence, { operations: outcomes })).rejects.toThrow('crash');
    // The first transaction wrote the outcomes of 1…99 and removed their entries with them.
    expect(await inflight()).toEqual({});
    const loaded = await store.loadOperations('r1');
    expect(loaded.slice(1, 100).every((op) => op.Status === 'SUCCEEDED')).toBe(true);
    expect(loaded).toHaveLength(100);
    await store.commit('r1', fence, { operations: outcomes });
    expect(await store.loadOperations('r1')).toEqual([executionOp(), ...outcomes]);
  });

  it('a run created again over an expired one starts with no inline START of the old one', async () => {
    const fence = await leased('r1', { expiresAt: T0 + 100_000 });
    await store.commit('r1', fence, { operations: [start('1')] });
    t = T0 + 100_000;
    expect(await store.loadOperations('r1')).toEqual([]);
    expect(await store.getOperation('r1', '1')).toBeUndefined();
    expect((await store.createRun(runRecord('r1'), executionOp())).created).toBe(true);
    expect(await store.loadOperations('r1')).toEqual([executionOp()]);
    expect(await store.getOperation('r1', '1')).toBeUndefined();
  });
});
