/**
 * A transactional step (`step(name, fn, { transact: true })`, issue 27): its `context.tx` writes
 * are committed with its outcome in one atomic write, so they are applied exactly once whatever
 * dies when; a failed user condition fails the attempt (`TransactConditionFailedError`) and goes
 * through the retry policy with nothing written; a refused write fails the step without retries.
 * Run by the test driver on the memory store's emulated tables.
 */
import { MemoryStore } from '@durable-lambda/engine';
import { type FaultOptions, TestDriver } from '@durable-lambda/local';
import { type DurableContext, TransactConditionFailedError, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

const START = Date.UTC(2030, 0, 1);
const quiet = { logSink: () => {} };

function storeWithTables(): MemoryStore {
  return new MemoryStore()
    .defineTable('Accounts', { partitionKey: 'id' })
    .defineTable('Ledger', { partitionKey: 'pk', sortKey: 'sk' });
}

/** Moves 10 from a to b, exactly once: debit conditioned on the balance, credit, a ledger line. */
function transfer(seen: { attempts: number[]; errors: unknown[] }) {
  return withDurableExecution(async (_event: unknown, ctx: DurableContext) => {
    const moved = await ctx.step(
      'transfer',
      async (step) => {
        seen.attempts.push(step.attempt);
        step.tx.update({
          TableName: 'Accounts',
          Key: { id: 'a' },
          UpdateExpression: 'SET #b = #b - :n',
          ConditionExpression: '#b >= :n',
          ExpressionAttributeNames: { '#b': 'balance' },
          ExpressionAttributeValues: { ':n': 10 },
        });
        step.tx.update({
          TableName: 'Accounts',
          Key: { id: 'b' },
          UpdateExpression: 'ADD #b :n',
          ExpressionAttributeNames: { '#b': 'balance' },
          ExpressionAttributeValues: { ':n': 10 },
        });
        step.tx.put({
          TableName: 'Ledger',
          Item: { pk: 'a', sk: step.idempotencyKey, amount: -10 },
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': 'pk' },
        });
        return 10;
      },
      { transact: true, retry: { maxAttempts: 3, initialMs: 1000 } },
    );
    await ctx.wait('pause', { seconds: 5 });
    return moved;
  }, quiet);
}

async function runTransfer(store: MemoryStore, faults?: FaultOptions) {
  const seen = { attempts: [] as number[], errors: [] as unknown[] };
  const driver = new TestDriver(
    { flow: transfer(seen) },
    { startTime: START, store: () => store, ...(faults ? { faults } : {}) },
  );
  const started = await driver.start('flow', undefined);
  const run = await driver.runUntilDone(started.runId);
  return { run, seen, driver };
}

const balances = (store: MemoryStore) => store.scanTable('Accounts').map((i) => [i.id, i.balance]);

describe('a transactional step', () => {
  it('commits its writes with its outcome, and a replay applies nothing again', async () => {
    const store = storeWithTables();
    const seed = withDurableExecution(async (_e: unknown, ctx: DurableContext) =>
      ctx.step('seed', (s) => s.tx.put({ TableName: 'Accounts', Item: { id: 'a', balance: 25 } }), { transact: true }),
    );
    const seeding = new TestDriver({ seed }, { startTime: START, store: () => store });
    await seeding.runUntilDone((await seeding.start('seed', undefined)).runId);
    const { run, seen } = await runTransfer(store);
    expect(run.error).toBeUndefined();
    expect(run.status).toBe('SUCCEEDED');
    expect(seen.attempts).toEqual([1]);
    expect(balances(store)).toEqual([
      ['a', 15],
      ['b', 10],
    ]);
    expect(store.scanTable('Ledger')).toHaveLength(1);
  });

  it('fails an attempt whose condition fails, writes none of it, and retries by its policy', async () => {
    const store = storeWithTables();
    const { run, seen } = await runTransfer(store);
    // No account a: its balance condition fails on every attempt; nothing was ever written.
    expect(seen.attempts).toEqual([1, 2, 3]);
    expect(run.status).toBe('FAILED');
    const step = (await store.loadOperations(run.runId)).find((op) => op.Name === 'transfer');
    expect(step?.StepDetails?.Error?.ErrorType).toBe('TransactConditionFailedError');
    expect(step?.StepDetails?.Error?.ErrorMessage).toContain('transactional write 0 (Update on table Accounts)');
    expect(store.scanTable('Accounts')).toEqual([]);
    expect(store.scanTable('Ledger')).toEqual([]);
    expect(new TransactConditionFailedError('1', 0, { kind: 'Update', tableName: 'Accounts' }).code).toBe(
      'transact_condition_failed',
    );
  });

  for (const [kind, seed] of [
    ['killBeforeStep', 10],
    ['killAfterStep', 11],
    ['storeLostResponse', 12],
    ['killInCheckpoint', 13],
    ['race', 14],
  ] as const) {
    it(`applies its writes exactly once under ${kind}`, async () => {
      let injected = 0;
      for (let s = seed; s < seed + 8; s++) {
        const store = storeWithTables();
        const seedFn = withDurableExecution(async (_e: unknown, ctx: DurableContext) =>
          ctx.step('seed', (st) => st.tx.put({ TableName: 'Accounts', Item: { id: 'a', balance: 25 } }), {
            transact: true,
          }),
        );
        const seeding = new TestDriver({ seedFn }, { startTime: START, store: () => store });
        await seeding.runUntilDone((await seeding.start('seedFn', undefined)).runId);
        const { run, driver } = await runTransfer(store, { seed: s, defaultProbability: 0, maxFaults: 2, [kind]: 0.7 });
        injected += driver.faults.filter((f) => f.kind === kind).length;
        expect(run.status).toBe('SUCCEEDED');
        expect(balances(store)).toEqual([
          ['a', 15],
          ['b', 10],
        ]);
        expect(store.scanTable('Ledger')).toHaveLength(1);
      }
      expect(injected).toBeGreaterThan(0);
    });
  }
});
