/**
 * The LocalRuntime's reconciler: at start and every `reconcileEveryMs` it wakes runs whose
 * wake-up was lost; it owns its SQLite file alone; its failures are reported, never thrown.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReconcileReport } from '@durable-lambda/engine';
import {
  DatabaseInUseError,
  FunctionNotFoundError,
  LocalRuntime,
  type LocalRuntimeOptions,
  SqliteStore,
} from '@durable-lambda/local';
import { type DurableLambdaHandler, withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'durable-embedded-reconcile-'));
let files = 0;
const cleanup: Array<() => void | Promise<void>> = [];

afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
}

function openStore(path = join(dir, `reconcile-${++files}.sqlite`)) {
  const store = new SqliteStore({ path });
  cleanup.push(() => store.close());
  return { store, path };
}

/** A runtime whose reconcile reports are kept, to see what the reconciler did. */
function runtimeOn(
  store: SqliteStore,
  functions: Record<string, DurableLambdaHandler>,
  options: Partial<LocalRuntimeOptions> = {},
) {
  const errors: unknown[] = [];
  const runtime = new LocalRuntime({
    store,
    functions: new Map(Object.entries(functions)),
    overrides: { logSink: () => {} },
    onError: (error) => errors.push(error),
    ...options,
  });
  const reports: ReconcileReport[] = [];
  const reconcile = runtime.engine.reconcile.bind(runtime.engine);
  runtime.engine.reconcile = async (...args) => {
    const report = await reconcile(...args);
    reports.push(report);
    return report;
  };
  const woke = (runId: string) => reports.flatMap((r) => r.woken).filter((w) => w.runId === runId);
  cleanup.push(() => runtime.stop());
  return { runtime, errors, reports, woke };
}

/** A wait the invocation suspends on (no in-process sleep), so only a wake-up can end it. */
const napper = withDurableExecution(
  async (_event, ctx) => {
    await ctx.wait('nap', { seconds: 1 });
    return 'woke';
  },
  { inProcessWaitMs: 0 },
);

/** Ends at once. */
const quick = withDurableExecution(async () => 'quick');

/** Resolves once the run's first invocation has closed with a wake-up due later. */
async function suspended(store: SqliteStore, runId: string) {
  return until(async () => {
    const run = await store.getRun(runId);
    return run?.leaseExpiresAt === undefined && run?.nextWakeAt !== undefined && run.invocations === 1 && run;
  });
}

describe('LocalRuntime reconciler', () => {
  it('wakes a run whose wake-up was lost while it ran (no timer, no stored row): the periodic pass finds it', async () => {
    const { store } = openStore();
    const { runtime, errors, woke } = runtimeOn(store, { napper }, { reconcileEveryMs: 200 });
    await runtime.start();
    const run = await runtime.startRun('napper', {});
    await suspended(store, run.runId);
    // The wake-up is lost: its timer and its row are gone.
    for (const wakeUp of store.wakeUps.list()) await runtime.waker.cancel(wakeUp);
    expect(store.wakeUps.list()).toEqual([]);

    const done = await runtime.waitForRun(run.runId, { timeoutMs: 30_000 });
    expect(done.status).toBe('SUCCEEDED');
    expect(JSON.parse(done.result as string)).toBe('woke');
    expect(woke(run.runId)).toContainEqual({ runId: run.runId, reason: 'due' });
    expect(errors).toEqual([]);
  });

  it('at start, wakes a run whose wake-up was lost while no runtime ran (the start pass, not the loop)', async () => {
    const { store, path } = openStore();
    const first = runtimeOn(store, { napper });
    await first.runtime.start();
    const run = await first.runtime.startRun('napper', {});
    const waiting = await suspended(store, run.runId);
    await first.runtime.stop();
    store.close();

    const { store: reopened } = openStore(path);
    for (const wakeUp of reopened.wakeUps.list()) reopened.wakeUps.remove(wakeUp);
    await until(async () => Date.now() > (waiting.nextWakeAt ?? 0) && true);
    // No periodic pass within the test: only the one at start can wake it.
    const second = runtimeOn(reopened, { napper }, { reconcileEveryMs: 3_600_000 });
    await second.runtime.start();
    const done = await second.runtime.waitForRun(run.runId, { timeoutMs: 30_000 });
    expect(done.status).toBe('SUCCEEDED');
    expect(second.woke(run.runId)).toEqual([{ runId: run.runId, reason: 'due' }]);
    expect([...first.errors, ...second.errors]).toEqual([]);
  });

  it('at start, wakes every stranded run once, however many: each pass pages on from the last', async () => {
    const { store } = openStore();
    const { runtime, errors, reports, woke } = runtimeOn(store, { quick }, { reconcileEveryMs: 3_600_000 });
    // 250 runs stored while no runtime ran, never woken: only the start's passes can find them.
    const runs = [];
    for (let i = 0; i < 250; i++) runs.push((await runtime.engine.startRun({ functionName: 'quick' })).run.runId);

    await runtime.start();
    const done = await Promise.all(runs.map((runId) => runtime.waitForRun(runId, { timeoutMs: 30_000 })));
    expect(done.every((run) => run.status === 'SUCCEEDED')).toBe(true);
    for (const runId of runs) expect(woke(runId)).toHaveLength(1);
    // 25 passes of 10 (one more finds none, maybe after the last run ended): never the same 10
    // again and again.
    expect(reports.slice(0, 25).map((r) => r.woken.length)).toEqual(Array(25).fill(10));
    expect(reports.slice(25).flatMap((r) => r.woken)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('a periodic pass wakes every stranded run once, and the runs it woke start before its later passes', async () => {
    const { store } = openStore();
    const { runtime, errors, reports, woke } = runtimeOn(
      store,
      { quick },
      { reconcileEveryMs: 200, engine: { reconcileGraceMs: 0 } },
    );
    // At each pass's start: how many of the runs the passes before woke have been invoked.
    const startedBefore: number[] = [];
    const reconcile = runtime.engine.reconcile.bind(runtime.engine);
    runtime.engine.reconcile = async (...args) => {
      const earlier = reports.flatMap((r) => r.woken.map((w) => w.runId));
      const invoked = await Promise.all(earlier.map(async (runId) => (await store.getRun(runId))?.invocations ?? 0));
      startedBefore.push(invoked.filter((n) => n > 0).length);
      return reconcile(...args);
    };
    await runtime.start();
    // The start's pass (over an empty store) first; the runs then go in without yielding to the
    // event loop (SQLite answers at once), so the next periodic pass finds all of them.
    await until(async () => reports.length >= 1);
    // Stored while the runtime runs, never woken (as if every wake-up was lost).
    const runs = [];
    for (let i = 0; i < 250; i++) runs.push((await runtime.engine.startRun({ functionName: 'quick' })).run.runId);

    const done = await Promise.all(runs.map((runId) => runtime.waitForRun(runId, { timeoutMs: 30_000 })));
    expect(done.every((run) => run.status === 'SUCCEEDED')).toBe(true);
    for (const runId of runs) expect(woke(runId)).toHaveLength(1);
    // The passes that found them: 10 each, 25 of them (one more finds none, maybe after the last run
    // ended); a pass's runs had started two passes later.
    const first = reports.findIndex((r) => r.woken.length > 0);
    expect(reports.slice(first, first + 25).map((r) => r.woken.length)).toEqual(Array(25).fill(10));
    expect(reports.slice(first + 25).flatMap((r) => r.woken)).toEqual([]);
    for (let pass = first + 2; pass < first + 25; pass++) {
      expect(startedBefore[pass], `pass ${pass - first}`).toBeGreaterThanOrEqual((pass - first - 1) * 10);
    }
    expect(errors).toEqual([]);
  });

  it('at start, releases the Idempotency-Key claims a dead process left in progress (its answers stay)', async () => {
    const { store, path } = openStore();
    const claim = (key: string, claimToken: string) =>
      ({
        key,
        requestHash: 'h',
        state: 'IN_PROGRESS',
        claimToken,
        createdAt: Date.now(),
        expiresAt: Date.now() + 900_000,
      }) as const;
    // A request cut off between its claim and its answer, and one answered.
    expect(await store.claimIdempotencyKey(claim('POST /v1/runs cut', 'dead'))).toEqual({ claimed: true });
    await store.claimIdempotencyKey(claim('POST /v1/runs answered', 'done'));
    await store.completeIdempotencyKey(
      'POST /v1/runs answered',
      { status: 201, body: '{}' },
      { claimToken: 'done', expiresAt: Date.now() + 86_400_000 },
    );
    expect(await store.claimIdempotencyKey(claim('POST /v1/runs cut', 'retry'))).toMatchObject({
      claimed: false,
      existing: { state: 'IN_PROGRESS' },
    });
    store.close();

    const { store: reopened } = openStore(path);
    const { runtime } = runtimeOn(reopened, { quick });
    await runtime.start();
    expect(await reopened.claimIdempotencyKey(claim('POST /v1/runs cut', 'retry'))).toEqual({ claimed: true });
    expect(await reopened.claimIdempotencyKey(claim('POST /v1/runs answered', 'again'))).toMatchObject({
      claimed: false,
      existing: { state: 'COMPLETED', response: { status: 201 } },
    });
  });

  it('refuses to start on a file another runtime has (database_in_use), and starts once that one closed it', async () => {
    const { store, path } = openStore();
    const first = runtimeOn(store, { napper });
    await first.runtime.start();
    const { store: other } = openStore(path);
    const second = runtimeOn(other, { napper });
    await expect(second.runtime.start()).rejects.toBeInstanceOf(DatabaseInUseError);
    await expect(second.runtime.start()).rejects.toMatchObject({ code: 'database_in_use' });
    expect(second.runtime.running).toBe(false);

    await first.runtime.stop();
    store.close();
    await second.runtime.start();
    expect(second.runtime.running).toBe(true);
    const run = await second.runtime.startRun('napper', {});
    expect((await second.runtime.waitForRun(run.runId, { timeoutMs: 30_000 })).status).toBe('SUCCEEDED');
  });

  it('reports a failing pass through onError and goes on; stop() ends the loop', async () => {
    const { store } = openStore();
    let calls = 0;
    store.findDueRuns = async () => {
      calls++;
      throw new Error('the due index is unavailable');
    };
    const { runtime, errors } = runtimeOn(store, { napper }, { reconcileEveryMs: 50 });
    await runtime.start();
    await until(async () => calls >= 3);
    expect(errors.length).toBeGreaterThanOrEqual(2);
    expect(errors[0]).toMatchObject({ message: 'the due index is unavailable' });
    await runtime.stop();
    const after = calls;
    await sleep(500);
    expect(calls).toBe(after);
  });

  it('reports a run of a function this process lacks once, however often the reconciler wakes it', async () => {
    const { store } = openStore();
    const { runtime, errors, woke } = runtimeOn(
      store,
      { napper },
      { reconcileEveryMs: 50, engine: { reconcileGraceMs: 0 } },
    );
    await runtime.start();
    const { run } = await runtime.engine.startRun({ functionName: 'elsewhere' });
    await until(async () => woke(run.runId).length >= 3);
    await runtime.stop();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(FunctionNotFoundError);
    expect((await store.getRun(run.runId))?.status).toBe('RUNNING');
  });

  it('gives up an invocation past its timeout (a step that never returns): the run resumes, that attempt lost', async () => {
    let attempts = 0;
    const hangs = withDurableExecution(
      async (_event, ctx) =>
        ctx.step(
          'long',
          async ({ attempt }) => {
            attempts++;
            if (attempt === 1) await new Promise(() => {}); // never returns, in a live process
            return attempt;
          },
          { retry: { maxAttempts: 3, initialMs: 100 } },
        ),
      { inProcessWaitMs: 0 },
    );
    const { store } = openStore();
    const { runtime, errors } = runtimeOn(store, { hangs }, { invocationMs: 300, engine: { leaseGraceMs: 200 } });
    await runtime.start();
    const run = await runtime.startRun('hangs', {});
    const done = await runtime.waitForRun(run.runId, { timeoutMs: 30_000 });
    expect(done).toMatchObject({ status: 'SUCCEEDED', result: '2', lostInvocations: 1 });
    expect(attempts).toBe(2);
    const step = await store.getOperation(run.runId, '1');
    expect(step?.StepDetails?.Attempt).toBe(2);
    expect(errors).toContainEqual(
      expect.objectContaining({ message: expect.stringMatching(/past its 300 ms timeout/) }),
    );
    // The given-up invocation holds nothing: stop() does not wait for it, and no wake-up is left.
    await runtime.stop();
    expect(store.wakeUps.list()).toEqual([]);
  });

  it('refuses a reconcileEveryMs that is not a positive number, naming it', () => {
    const { store } = openStore();
    for (const reconcileEveryMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new LocalRuntime({ store, functions: new Map(), reconcileEveryMs })).toThrow(/reconcileEveryMs/);
    }
  });
});
