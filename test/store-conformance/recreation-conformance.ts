/**
 * Store conformance, continued: a run created anew over an expired one (a run key used again
 * after its run's retention). The id is the same, so nothing that must differ between the two
 * runs may be derived from the id alone: the store keeps the new run's `incarnation`, and the
 * engine over the store issues the new run its own step idempotency keys (seed 000: a key is
 * never issued for two attempts, across any re-creation), its own child runs, and refuses the old
 * run's callback ids. Called by `describeStoreConformance`.
 */
import { Engine, type RunRecord, runIdFor, type Store } from '@durable-lambda/engine';
import { FencedError } from '@durable-lambda/protocol';
import {
  type DurableContext,
  type DurableLambdaHandler,
  finishOpened,
  getDurableEntry,
  withDurableExecution,
} from '@durable-lambda/sdk';
import { describe, expect } from 'vitest';
import { type ConformanceClock, type ConformanceOptions, executionOp, leaseToken, runRecord, T0 } from './fixtures';
import { conformanceTest, useStore } from './support';

/** How long an ended run is kept by the engines of this suite. */
const RETENTION_MS = 60_000;

/** An engine over the store under test, on its clock, that keeps ended runs {@link RETENTION_MS}. */
function engineOver(store: Store, clock: ConformanceClock): Engine {
  return new Engine({
    store,
    clock,
    retentionMs: RETENTION_MS,
    waker: { wakeAt: async () => {} },
    // Child runs are driven by the test itself; every function is known.
    invoker: { invoke: async () => {}, knows: () => true },
  });
}

/**
 * Invokes `runId` with `handler` until it ends or waits only for something outside (a callback,
 * a child run), moving the clock to each wake-up. Returns the run as it then stands.
 */
async function drive(
  engine: Engine,
  clock: ConformanceClock,
  runId: string,
  handler: DurableLambdaHandler,
): Promise<RunRecord> {
  for (let i = 0; i < 20; i++) {
    const run = (await engine.getRun(runId)) as RunRecord;
    const due = run.nextWakeAt !== undefined || run.eventSeq > run.handledEventSeq;
    if (run.status !== 'RUNNING' || !due) return run;
    if (run.nextWakeAt !== undefined && run.nextWakeAt > clock.now()) clock.set(run.nextWakeAt);
    const session = await engine.openRun(runId, { remainingTimeMs: () => 60_000 });
    if (!session) throw new Error(`run ${runId} could not be opened`);
    const result = await getDurableEntry(handler).execute(
      session,
      { functionName: run.functionName },
      { inProcessWaitMs: 0, logSink: () => {} },
    );
    await finishOpened(session, result);
  }
  throw new Error(`run ${runId} did not settle`);
}

/** The callback id a run's CALLBACK operation `operationId` was issued. */
async function callbackIdOf(engine: Engine, runId: string, operationId: string): Promise<string> {
  const op = (await engine.getOperations(runId)).find((o) => o.Id === operationId);
  const id = op?.CallbackDetails?.CallbackId;
  if (!id) throw new Error(`run ${runId} has no callback ${operationId}`);
  return id;
}

export function describeRecreationConformance(
  name: string,
  setup: () => Promise<{ store: Store; clock: ConformanceClock }>,
  options: ConformanceOptions = {},
): void {
  const test = conformanceTest(options);

  describe(`${name}: store conformance (a run created anew over an expired one)`, () => {
    const s = useStore(setup);

    test('the run created anew keeps its own incarnation, in every read and lease', async () => {
      await s.store.createRun(
        runRecord('r1', { runKey: 'key-1', incarnation: 'aaaaaaaaaaaaaaaa', expiresAt: T0 + 5_000 }),
        executionOp(),
      );
      expect((await s.store.getRun('r1'))?.incarnation).toBe('aaaaaaaaaaaaaaaa');
      s.clock.set(T0 + 5_000);
      const fresh = runRecord('r1', { runKey: 'key-1', incarnation: 'bbbbbbbbbbbbbbbb', createdAt: T0 + 5_000 });
      expect((await s.store.createRun(fresh, executionOp())).run.incarnation).toBe('bbbbbbbbbbbbbbbb');
      expect((await s.store.getRun('r1'))?.incarnation).toBe('bbbbbbbbbbbbbbbb');
      const grant = await s.store.acquireLease('r1', T0 + 5_000, T0 + 60_000, leaseToken());
      expect(grant?.run.incarnation).toBe('bbbbbbbbbbbbbbbb');
      expect((await s.store.listRuns({})).runs.map((run) => run.incarnation)).toEqual(['bbbbbbbbbbbbbbbb']);
    });

    test('a run key used again after retention: no step idempotency key is issued twice', async () => {
      const engine = engineOver(s.store, s.clock);
      const keys: Array<{ amount: number; key: string }> = [];
      const pay = withDurableExecution(
        async (event: { amount: number }, ctx: DurableContext) =>
          ctx.step(
            'charge',
            async ({ idempotencyKey, attempt }) => {
              keys.push({ amount: event.amount, key: idempotencyKey });
              // The first attempt fails: the second runs in another invocation, with the same run's keys.
              if (attempt === 1) throw new Error('gateway busy');
              return `charged ${event.amount}`;
            },
            { retry: { maxAttempts: 2, initialMs: 1_000 } },
          ),
        { logSink: () => {} },
      );
      const first = await engine.startRun({ functionName: 'pay', input: '{"amount":100}', runKey: 'order-42' });
      expect((await drive(engine, s.clock, first.run.runId, pay)).status).toBe('SUCCEEDED');
      s.clock.set(s.clock.now() + RETENTION_MS);
      const second = await engine.startRun({ functionName: 'pay', input: '{"amount":999}', runKey: 'order-42' });
      expect(second.created).toBe(true);
      expect(second.run.runId).toBe(first.run.runId);
      const done = await drive(engine, s.clock, second.run.runId, pay);
      expect(done.result).toBe('"charged 999"');

      expect(keys.map((k) => k.amount)).toEqual([100, 100, 999, 999]);
      expect(new Set(keys.map((k) => k.key)).size).toBe(4);
      // Each key is `<run>:<step>:<attempt>`, its run part the same for both attempts of a run
      // (stable across invocations) and different between the two runs of the key.
      const runPart = keys.map((k) => k.key.slice(0, k.key.indexOf(':')));
      expect(runPart[0]).toBe(runPart[1]);
      expect(runPart[2]).toBe(runPart[3]);
      expect(runPart[0]).not.toBe(runPart[2]);
      for (const part of runPart) expect(part.startsWith(`${runIdFor('order-42')}.`)).toBe(true);
      expect(keys.map((k) => k.key.slice(k.key.indexOf(':')))).toEqual([':1:1', ':1:2', ':1:1', ':1:2']);
    });

    test("a parent created anew starts its own child run; the old parent's child never completes its invoke", async () => {
      const engine = engineOver(s.store, s.clock);
      const parent = withDurableExecution(
        async (_event: unknown, ctx: DurableContext) => ctx.invoke<unknown, string>('bill', 'billing', { n: 1 }),
        { logSink: () => {} },
      );
      const billing = withDurableExecution(
        async (_event: unknown, ctx: DurableContext) => {
          const [paid] = await ctx.createCallback<string>('paid');
          return `paid by ${await paid}`;
        },
        { logSink: () => {} },
      );
      const childOf = async (runId: string): Promise<string> => {
        const op = (await engine.getOperations(runId)).find((o) => o.Type === 'CHAINED_INVOKE');
        const child = op?.ChainedInvokeDetails?.ChildRunId;
        if (!child) throw new Error(`run ${runId} started no child`);
        return child;
      };

      const old = (await engine.startRun({ functionName: 'orders', input: '{}', runKey: 'order-7' })).run.runId;
      await drive(engine, s.clock, old, parent);
      const oldChild = await childOf(old);
      await drive(engine, s.clock, oldChild, billing);
      // The old parent is cancelled alone: its child goes on waiting for its callback.
      await engine.cancelRun(old);
      s.clock.set(s.clock.now() + RETENTION_MS);
      expect(await engine.getRun(old)).toBeUndefined();

      const again = await engine.startRun({ functionName: 'orders', input: '{}', runKey: 'order-7' });
      expect(again.created).toBe(true);
      await drive(engine, s.clock, old, parent);
      const newChild = await childOf(old);
      expect(newChild).not.toBe(oldChild);
      expect((await engine.getRun(oldChild))?.status).toBe('RUNNING');

      // The old child ends now: its parent's id names the new run, whose invoke is not its own.
      await engine.sendCallbackSuccess(await callbackIdOf(engine, oldChild, '1'), 'old');
      expect((await drive(engine, s.clock, oldChild, billing)).result).toBe('"paid by old"');
      expect((await engine.getOperations(old)).find((o) => o.Id === '1')?.Status).toBe('STARTED');

      await drive(engine, s.clock, newChild, billing);
      await engine.sendCallbackSuccess(await callbackIdOf(engine, newChild, '1'), 'new');
      await drive(engine, s.clock, newChild, billing);
      expect((await drive(engine, s.clock, old, parent)).result).toBe('"paid by new"');
    });

    test("the old run's callback ids and fences are refused by the run created anew", async () => {
      const engine = engineOver(s.store, s.clock);
      const approve = withDurableExecution(
        async (_event: unknown, ctx: DurableContext) => {
          const [approved] = await ctx.createCallback<string>('approval');
          return `approved by ${await approved}`;
        },
        { logSink: () => {} },
      );
      const runId = (await engine.startRun({ functionName: 'fn', input: '{}', runKey: 'approval-1' })).run.runId;
      await drive(engine, s.clock, runId, approve);
      const oldCallback = await callbackIdOf(engine, runId, '1');
      const oldFence = (await engine.getRun(runId))?.fence as number;
      await engine.cancelRun(runId);
      s.clock.set(s.clock.now() + RETENTION_MS);

      expect((await engine.startRun({ functionName: 'fn', input: '{}', runKey: 'approval-1' })).created).toBe(true);
      await drive(engine, s.clock, runId, approve);
      const newCallback = await callbackIdOf(engine, runId, '1');
      expect(newCallback).not.toBe(oldCallback);
      await expect(engine.sendCallbackSuccess(oldCallback, '"old"')).rejects.toMatchObject({
        code: 'callback_not_found',
      });
      await expect(s.store.commit(runId, oldFence, { operations: [] })).rejects.toBeInstanceOf(FencedError);
      await engine.sendCallbackSuccess(newCallback, 'new');
      expect((await drive(engine, s.clock, runId, approve)).result).toBe('"approved by new"');
    });
  });
}
