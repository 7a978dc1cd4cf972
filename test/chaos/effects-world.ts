/**
 * The chaos world's effects (issue 27): a workflow of transactional steps (`{ transact: true }`:
 * each adds to a counter of its own, a non-idempotent write, and moves money under a balance
 * condition that the last move fails) and steps that emit outbox events, run under seeded faults
 * of every kind, with an outbox sink that loses some publish answers. Invariants, per seed:
 * - a transactional step's writes are applied once if its checkpoint is SUCCEEDED, never otherwise
 *   (no effect twice, no effect without its checkpoint, no checkpoint without its effect);
 * - every event of a succeeded step is delivered (none lost), none of a step that did not succeed;
 * - repeats only after a lost publish answer, or an invocation that died (or was fenced out)
 *   between publishing and recording it: counted and printed.
 */
import { MemoryOutbox, MemoryStore, type Store } from '@durable-lambda/engine';
import { type FaultOptions, TestDriver, type VirtualClock } from '@durable-lambda/local';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';

/** The user's tables of one seed, as the store under test holds them. */
export interface EffectTables {
  accounts: string;
  counters: string;
  /** The item at `key` of `table`, or undefined. */
  read(table: string, key: Record<string, unknown>): Promise<Record<string, unknown> | undefined>;
}

/** What one seed did and found. */
export interface EffectsOutcome {
  seed: number;
  status: string;
  faults: number;
  lostPublishAnswers: number;
  repeatedDeliveries: number;
  transactStepsSucceeded: number;
  conditionFailures: number;
  violations: string[];
}

const START = Date.UTC(2030, 0, 1);
const MOVES = 4;
const OPENING = 30;
const AMOUNT = 10;

function workflow(tables: { accounts: string; counters: string }) {
  const names = { '#b': 'balance' };
  return withDurableExecution(
    async (_event: unknown, ctx: DurableContext) => {
      await ctx.step(
        'open',
        (step) => {
          step.tx.put({
            TableName: tables.accounts,
            Item: { id: 'a', balance: OPENING },
            ConditionExpression: 'attribute_not_exists(#id)',
            ExpressionAttributeNames: { '#id': 'id' },
          });
          step.emit({ source: 'bank', detailType: 'Opened', detail: { id: 'a' } });
        },
        { transact: true },
      );
      let moved = 0;
      for (let i = 0; i < MOVES; i++) {
        try {
          await ctx.step(
            `move-${i}`,
            (step) => {
              step.tx.update({
                TableName: tables.counters,
                Key: { id: `move-${i}` },
                UpdateExpression: 'ADD #n :one',
                ExpressionAttributeNames: { '#n': 'applied' },
                ExpressionAttributeValues: { ':one': 1 },
              });
              step.tx.update({
                TableName: tables.accounts,
                Key: { id: 'a' },
                UpdateExpression: 'SET #b = #b - :n',
                ConditionExpression: '#b >= :n',
                ExpressionAttributeNames: names,
                ExpressionAttributeValues: { ':n': AMOUNT },
              });
              step.emit({ source: 'bank', detailType: 'Moved', detail: { i } });
              step.emit({ queueUrl: 'https://sqs.local/1/moves.fifo', body: `move-${i}`, groupId: 'a' });
            },
            { transact: true, retry: { maxAttempts: 2, initialMs: 1_000 } },
          );
          moved += 1;
        } catch {
          // The last move finds the balance short: its step failed, with nothing written.
        }
        await ctx.wait(`pause-${i}`, { seconds: 20 });
      }
      await ctx.step('report', (step) => step.emit({ source: 'bank', detailType: 'Done', detail: { moved } }));
      return moved;
    },
    { logSink: () => {} },
  );
}

/** Runs one seed on `store` (a factory for the driver's clock) with `tables`. */
export async function runEffectsSeed(
  seed: number,
  options: { store: (clock: VirtualClock) => Store; tables: EffectTables; faults: Omit<FaultOptions, 'seed'> },
): Promise<EffectsOutcome> {
  const { tables } = options;
  let publishes = 0;
  // Every seventh delivery's answer is lost (after the event went out): a repeat must follow.
  const outbox = new MemoryOutbox(undefined, () => (++publishes % 7 === 0 ? 'lostResponse' : undefined));
  const driver = new TestDriver(
    { bank: workflow(tables) },
    { startTime: START, store: options.store, outbox, faults: { seed, ...options.faults }, maxInvocations: 1_000 },
  );
  const violations: string[] = [];
  const started = await driver.start('bank', undefined);
  const done = await driver.runUntilDone(started.runId);
  // Events a dead invocation left: the reconciler's passes, as deployed, every minute.
  for (let i = 0; i < 10 && (await driver.store.getRun(started.runId))?.outbox; i++) {
    driver.clock.advanceTo(driver.clock.now() + 60_000);
    await driver.engine.reconcile({ graceMs: 0 });
  }
  if ((await driver.store.getRun(started.runId))?.outbox)
    violations.push('events left unpublished after the reconciler');
  const ops = await driver.store.loadOperations(started.runId);
  const succeeded = (name: string) => ops.some((op) => op.Name === name && op.Status === 'SUCCEEDED');
  let transactStepsSucceeded = 0;
  let conditionFailures = 0;
  // Transactional effects: once with a SUCCEEDED checkpoint, never without one.
  for (let i = 0; i < MOVES; i++) {
    const applied = (await tables.read(tables.counters, { id: `move-${i}` }))?.applied ?? 0;
    const ok = succeeded(`move-${i}`);
    if (ok) transactStepsSucceeded += 1;
    if (ok && applied !== 1) violations.push(`move-${i} SUCCEEDED with its writes applied ${applied} times`);
    if (!ok && applied !== 0) violations.push(`move-${i} not SUCCEEDED, yet its writes applied ${applied} times`);
    const step = ops.find((op) => op.Name === `move-${i}`);
    if (step?.StepDetails?.Error?.ErrorType === 'TransactConditionFailedError') conditionFailures += 1;
  }
  const opened = succeeded('open');
  const balance = (await tables.read(tables.accounts, { id: 'a' }))?.balance;
  const moves = [...Array(MOVES).keys()].filter((i) => succeeded(`move-${i}`)).length;
  if (opened && balance !== OPENING - AMOUNT * moves) violations.push(`balance ${balance} after ${moves} moves`);
  if (!opened && balance !== undefined) violations.push('the account exists without its step');
  // Attempts lost to faults spend retries too: fewer moves may succeed, never more than the money allows.
  if (moves > MOVES - 1) violations.push(`${moves} moves succeeded; the balance allows ${MOVES - 1}`);
  // Events: every one of a succeeded step delivered, none of another.
  const delivered = new Set(outbox.deliveries.map((d) => d.id.split(':').slice(1).join(':')));
  const expected = new Set<string>();
  for (const op of ops) {
    if (op.Type !== 'STEP' || op.Status !== 'SUCCEEDED') continue;
    const count = op.Name === 'open' || op.Name === 'report' ? 1 : op.Name?.startsWith('move-') ? 2 : 0;
    for (let k = 0; k < count; k++) expected.add(`${op.Id}:${k}`);
  }
  for (const id of expected)
    if (!delivered.has(id)) violations.push(`event ${id} of a succeeded step was never delivered`);
  for (const id of delivered) if (!expected.has(id)) violations.push(`event ${id} delivered without a succeeded step`);
  const repeatedDeliveries = outbox.deliveries.length - delivered.size;
  const faults = driver.faults.length;
  if (repeatedDeliveries > outbox.lostResponses + 3 * faults) {
    violations.push(`${repeatedDeliveries} repeats for ${outbox.lostResponses} lost answers and ${faults} faults`);
  }
  // A run may end FAILED (a step out of attempts, every one killed): the invariants hold all the same.
  return {
    seed,
    status: done.status,
    faults,
    lostPublishAnswers: outbox.lostResponses,
    repeatedDeliveries,
    transactStepsSucceeded,
    conditionFailures,
    violations,
  };
}

/** A memory store with the seed's tables declared. */
export function memoryEffects(): { store: (clock: VirtualClock) => Store; tables: EffectTables } {
  let store: MemoryStore | undefined;
  const tables: EffectTables = {
    accounts: 'Accounts',
    counters: 'Counters',
    read: async (table, key) => store?.getTableItem(table, key),
  };
  return {
    store: (clock) => {
      store = new MemoryStore(clock)
        .defineTable('Accounts', { partitionKey: 'id' })
        .defineTable('Counters', { partitionKey: 'id' });
      return store;
    },
    tables,
  };
}

/** Sums outcomes for the printed line. */
export function effectsReport(label: string, outcomes: readonly EffectsOutcome[]): string {
  const sum = (f: (o: EffectsOutcome) => number) => outcomes.reduce((n, o) => n + f(o), 0);
  return (
    `chaos effects (${label}): ${outcomes.length} runs, ${sum((o) => o.faults)} faults, ` +
    `${sum((o) => o.transactStepsSucceeded)} transactional steps applied once, ${sum((o) => o.conditionFailures)} condition failures, ` +
    `${outcomes.filter((o) => o.status !== 'SUCCEEDED').length} runs failed by lost attempts, ` +
    `${sum((o) => o.lostPublishAnswers)} lost publish answers, ${sum((o) => o.repeatedDeliveries)} repeated deliveries, ` +
    `violations ${sum((o) => o.violations.length)}`
  );
}
