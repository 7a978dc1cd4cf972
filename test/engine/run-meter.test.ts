/**
 * The run meter on the engine: each invocation's consumption is added to its run by the
 * invocation's last write (no extra write), measured by the engine's wall-clock meter unless the
 * host hands its own (`EngineSession.meterWith`), which is asked once, with the wake-up that follows.
 */
import { addToMeter, type InvocationMeter, type RunMeterIncrement, type WakeRequest } from '@durable-lambda/engine';
import { finishOpened, getDurableEntry, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { CountingStore, Harness } from '../support/harness';

const steps = withDurableExecution(async (_event: unknown, ctx) => {
  await ctx.step('a', async () => 1);
  await ctx.wait({ seconds: 30 });
  await ctx.step('b', async () => 2);
  return 'done';
});

/** A host's meter that answers `increment` and records what it was asked. */
function fixedMeter(increment: RunMeterIncrement, asked: Array<WakeRequest | undefined>): InvocationMeter {
  return {
    settle(wake) {
      asked.push(wake);
      return increment;
    },
  };
}

describe('run meter', () => {
  it('counts each invocation and its real duration with the write that ends it, not an extra one', async () => {
    const h = new Harness(steps);
    await h.start();
    expect((await h.run())?.meter).toBeUndefined();
    expect(await h.runToEnd()).toBe(2);
    const run = await h.run();
    expect(run?.status).toBe('SUCCEEDED');
    expect(run?.meter?.invocations).toBe(2);
    // Each invocation is billed at least the 1 ms Lambda's rounding gives it.
    expect(run?.meter?.billedMs).toBeGreaterThanOrEqual(2);
    // Locally nothing else is measured: the AWS figures are absent, not zero.
    expect(Object.keys(run?.meter ?? {}).sort()).toEqual(['billedMs', 'invocations']);
    // Only the closes carried it: one metered write per invocation.
    const metered = h.store.commits.filter((c) => c.run?.meter !== undefined);
    expect(metered).toHaveLength(2);
    expect(metered.every((c) => c.run?.leaseExpiresAt === null)).toBe(true);
  });

  it("asks a host's meter once per invocation, with the wake-up the close asks for next", async () => {
    const h = new Harness(steps);
    const asked: Array<WakeRequest | undefined> = [];
    await h.start();
    for (let i = 0; i < 2; i++) {
      const run = await h.run();
      if (run?.nextWakeAt !== undefined) h.clock.advanceTo(run.nextWakeAt);
      const session = await h.engine.openRun(h.runId);
      if (!session) throw new Error('nothing to open');
      session.meterWith(fixedMeter({ invocations: 1, billedMs: 40, mbMs: 40 * 1024, wru: 3, sqsRequests: 3 }, asked));
      const output = await getDurableEntry(steps).execute(session, { functionName: 'fn' }, { inProcessWaitMs: 0 });
      await finishOpened(session, output);
    }
    // The first close waits 30 s: its wake-up is priced with it. The last ends the run: none.
    expect(asked).toEqual([{ runId: h.runId, functionName: 'fn', at: expect.any(Number), reason: 'due' }, undefined]);
    expect(asked[0]?.at).toBe(h.wakeUps.find((w) => w.reason === 'due')?.at);
    expect((await h.run())?.meter).toEqual({ invocations: 2, billedMs: 80, mbMs: 81_920, wru: 6, sqsRequests: 6 });
  });

  it('an invocation that faults records its consumption with the release', async () => {
    const store = new CountingStore();
    const failing = withDurableExecution(async (_event: unknown, ctx) => {
      await ctx.step('a', async () => 1);
      return 'never';
    });
    const h = new Harness(failing, {}, store);
    await h.start();
    const session = await h.engine.openRun(h.runId);
    if (!session) throw new Error('nothing to open');
    const asked: Array<WakeRequest | undefined> = [];
    session.meterWith(fixedMeter({ invocations: 1, billedMs: 9, rru: 1 }, asked));
    await session.abort(new Error('the store is down'));
    expect(asked).toEqual([{ runId: h.runId, functionName: 'fn', at: expect.any(Number), reason: 'due' }]);
    expect((await h.run())?.meter).toEqual({ invocations: 1, billedMs: 9, rru: 1 });
  });

  it('adds figures field by field; an absent one stays absent and a bad one is refused', () => {
    const sum = addToMeter(addToMeter(undefined, { wru: 1.5 }), { invocations: 1, billedMs: 3, wru: 1, rru: 0 });
    expect(sum).toEqual({ invocations: 1, billedMs: 3, wru: 2.5 });
    expect(() => addToMeter(sum, { wru: -1 })).toThrow(expect.objectContaining({ code: 'invalid_meter' }));
  });
});
