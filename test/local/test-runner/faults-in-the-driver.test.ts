import { MemoryStore, type Store } from '@durable-lambda/engine';
import { type FaultOptions, TestDriver, TestRunStoppedError } from '@durable-lambda/local';
import { type StepContext, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

const START = Date.UTC(2030, 0, 1);
const LEASE_MS = 15 * 60_000 + 10_000;

/** A handler with one recorded step and a wait; `ran` lists the attempts its body ran. */
function recordedWorkflow() {
  const ran: StepContext[] = [];
  const handler = withDurableExecution(async (_e, ctx) => {
    const value = await ctx.step('work', async (step) => {
      ran.push(step);
      return 'done';
    });
    await ctx.wait('pause', { seconds: 30 });
    return value;
  });
  return { ran, handler };
}

/** Only the named kinds, each at every place, at most once. */
function only(seed: number, kind: keyof Omit<FaultOptions, 'seed'>): FaultOptions {
  return { seed, defaultProbability: 0, maxFaults: 1, [kind]: 1 };
}

async function runOnce(faults: FaultOptions, store?: (clock: { now(): number }) => Store) {
  const { ran, handler } = recordedWorkflow();
  const driver = new TestDriver({ flow: handler }, { startTime: START, faults, ...(store ? { store } : {}) });
  const started = await driver.start('flow', undefined);
  const run = await driver.runUntilDone(started.runId);
  const invocations = driver.invocations.get(started.runId) ?? [];
  return { driver, run, ran, invocations };
}

describe('the test driver under injected faults', () => {
  it('recovers a run whose first event was dropped through the reconciler alone', async () => {
    const { driver, run, ran } = await runOnce(only(1, 'eventDropped'));
    expect(run.status).toBe('SUCCEEDED');
    expect(driver.faults.map((f) => [f.kind, f.run])).toEqual([['eventDropped', 'main']]);
    expect(driver.reconcileStats.woken).toBeGreaterThanOrEqual(1);
    expect(ran.map((s) => s.attempt)).toEqual([1]);
  });

  it('kills an invocation once a step START is durable: the lease lapses and attempt 2 runs', async () => {
    const { driver, run, ran, invocations } = await runOnce(only(2, 'killBeforeStep'));
    expect(run.status).toBe('SUCCEEDED');
    expect(driver.faults).toEqual([
      expect.objectContaining({ kind: 'killBeforeStep', operationId: '1', invocation: 0 }),
    ]);
    expect(ran.map((s) => s.attempt)).toEqual([2]);
    expect(invocations[0]?.status).toBe('KILLED');
    expect((invocations[1]?.startedAt.getTime() ?? 0) - START).toBeGreaterThanOrEqual(LEASE_MS);
  });

  it('kills an invocation after a step body, before its SUCCEED: the next attempt gets a new key', async () => {
    const { run, ran, invocations } = await runOnce(only(3, 'killAfterStep'));
    expect(run.status).toBe('SUCCEEDED');
    expect(ran.map((s) => s.attempt)).toEqual([1, 2]);
    expect(new Set(ran.map((s) => s.idempotencyKey)).size).toBe(2);
    expect(invocations[0]?.status).toBe('KILLED');
  });

  it('fences the first of two racing invocations out once the second took the run over', async () => {
    const { driver, run, ran, invocations } = await runOnce(only(4, 'race'));
    expect(run.status).toBe('SUCCEEDED');
    expect(driver.faults).toEqual([expect.objectContaining({ kind: 'race', invocation: 0 })]);
    // A paused at its step's START, before the body: only B ran it.
    expect(ran.map((s) => s.attempt)).toEqual([1]);
    expect(invocations[0]?.status).toBe('STOPPED');
    expect(invocations[1]?.status).toBe('PENDING');
    expect((invocations[1]?.startedAt.getTime() ?? 0) - START).toBeGreaterThanOrEqual(LEASE_MS);
  });

  it('retries a start whose write succeeded but whose response was lost, and finds the same run', async () => {
    const { driver, run } = await runOnce(only(5, 'storeLostResponse'));
    expect(run.status).toBe('SUCCEEDED');
    expect(driver.faults).toEqual([expect.objectContaining({ kind: 'storeLostResponse', detail: 'createRun' })]);
    expect(driver.runIds()).toHaveLength(1);
  });

  it('refuses the duplicate of a callback completion sent twice', async () => {
    let driver: TestDriver | undefined;
    const handler = withDurableExecution(async (_e, ctx) =>
      ctx.waitForCallback<string>('approve', async (callbackId) => {
        setImmediate(() => void driver?.sendCallbackSuccess(callbackId, 'yes'));
      }),
    );
    driver = new TestDriver({ flow: handler }, { startTime: START, faults: only(6, 'callbackTwice') });
    const started = await driver.start('flow', undefined);
    const run = await driver.runUntilDone(started.runId);
    expect(JSON.parse(run.result ?? 'null')).toBe('yes');
    expect(driver.faults.map((f) => f.kind)).toEqual(['callbackTwice']);
    expect([...driver.callbackCompletions.values()]).toEqual([{ accepted: 1, refused: 1, lost: 0 }]);
  });

  it('wakes every stranded run in one pass of the reconciler, as the deployed one does (it pages on)', async () => {
    const handler = withDurableExecution(async () => 'done');
    // Every run's first event dropped: all 150 are stranded, left to the reconciler.
    const driver = new TestDriver(
      { flow: handler },
      { startTime: START, faults: { seed: 10, defaultProbability: 0, eventDropped: 1 } },
    );
    const runs = [];
    for (let i = 0; i < 150; i++) runs.push((await driver.start('flow', undefined)).runId);
    for (const runId of runs) expect((await driver.runUntilDone(runId)).status).toBe('SUCCEEDED');

    expect(driver.faults.filter((f) => f.kind === 'eventDropped')).toHaveLength(150);
    // One reconciler invocation (a virtual minute) woke them all: more than one pass's 100.
    expect(driver.reconcileStats).toEqual({ passes: 1, woken: 150 });
    const firstStarts = new Set(runs.map((runId) => driver.invocations.get(runId)?.[0]?.startedAt.getTime()));
    expect(firstStarts.size).toBe(1);
  });

  it('fails a stranded run with a message naming the seed and its faults', async () => {
    // A store whose due index is broken: the reconciler can never find the run.
    const blind = (clock: { now(): number }) =>
      Object.assign(new MemoryStore(clock), { findDueRuns: async () => [] }) as unknown as Store;
    const failure = await runOnce({ seed: 77, defaultProbability: 0, wakeDropped: 1 }, blind).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TestRunStoppedError);
    expect(failure).toMatchObject({ code: 'run_stranded' });
    expect((failure as Error).message).toMatch(/is stranded/);
    expect((failure as Error).message).toMatch(/seed 77, \d+ fault\(s\) injected/);
    expect((failure as Error).message).toMatch(/wakeDropped run main/);
  });

  it('stops a runaway run that never ends, naming the seed', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      for (;;) await ctx.wait({ seconds: 1 });
    });
    const driver = new TestDriver(
      { loop: handler },
      { faults: { seed: 8, defaultProbability: 0 }, maxInvocations: 30 },
    );
    const started = await driver.start('loop', undefined);
    const failure = await driver.runUntilDone(started.runId).catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: 'run_runaway' });
    expect((failure as Error).message).toMatch(/more than 30 invocations[\s\S]*seed 8, 0 fault/);
  });

  it('runs on another store through the port alone, driven by wake-ups', async () => {
    const { driver, run, ran } = await runOnce(
      { seed: 9, defaultProbability: 0 },
      (clock) => new MemoryStore(clock) as unknown as Store,
    );
    expect(run.status).toBe('SUCCEEDED');
    expect(driver.memoryStore).toBeUndefined();
    expect(ran).toHaveLength(1);
  });
});
