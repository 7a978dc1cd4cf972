import { Engine } from '@durable-lambda/engine';
import { type DurableLambdaHandler, type Serdes, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { CountingStore, Harness } from '../support/harness';

/** A serdes that takes real time (e.g. one that offloads payloads to S3), as AWS's interface allows. */
const slowSerdes: Serdes<unknown> = {
  serialize: async (value) => {
    await new Promise((r) => setTimeout(r, 5));
    return value === undefined ? undefined : JSON.stringify(value);
  },
  deserialize: async (data) => {
    await new Promise((r) => setTimeout(r, 5));
    return data === undefined ? undefined : JSON.parse(data);
  },
};

describe('suspension', () => {
  it('ends an invocation with an explicit PENDING result and the earliest due time as the wake-up', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      await Promise.all([ctx.wait('long', { hours: 2 }), ctx.wait('short', { minutes: 30 })]);
      return 'both done';
    });
    const h = new Harness(handler);
    await h.start();
    const t0 = h.clock.now();
    const result = await h.invoke();
    expect(result).toMatchObject({ type: 'completed', output: { Status: 'PENDING' } });
    expect((await h.run())?.nextWakeAt).toBe(t0 + 30 * 60_000);
    expect(h.wakeUps.filter((w) => w.reason === 'due').map((w) => w.at)).toEqual([t0 + 30 * 60_000]);
    await h.invoke();
    expect((await h.run())?.nextWakeAt).toBe(t0 + 2 * 3_600_000);
    await h.invoke();
    expect((await h.run())?.result).toBe('"both done"');
  });

  it('does not suspend while a step is still running beside a wait', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      const [, value] = await Promise.all([
        ctx.wait('w', { seconds: 10 }),
        ctx.step('slow', () => new Promise((r) => setTimeout(() => r('slow done'), 30))),
      ]);
      return value;
    });
    const h = new Harness(handler);
    await h.start();
    await h.invoke();
    expect((await h.op('2'))?.Status).toBe('SUCCEEDED');
    await h.invoke();
    expect((await h.run())?.result).toBe('"slow done"');
  });

  it('sleeps in-process through a wait below the threshold when the invocation has time left', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      await ctx.wait({ seconds: 1 });
      return ctx.step('after', async () => 'ok');
    });
    // Real clock: the in-process sleep really takes the second.
    const store = new CountingStore();
    const engine = new Engine({ store, waker: { wakeAt: async () => {} } });
    const { run } = await engine.startRun({ functionName: 'fn' });
    const session = await engine.openRun(run.runId, { remainingTimeMs: () => 60_000 });
    const { getDurableEntry, finishOpened } = await import('@durable-lambda/sdk');
    const started = Date.now();
    const result = await getDurableEntry(handler).execute(session!, {}, { inProcessWaitMs: 5_000, logSink: () => {} });
    await finishOpened(session!, result);
    expect(Date.now() - started).toBeGreaterThanOrEqual(995);
    expect(result).toMatchObject({ type: 'completed', output: { Status: 'SUCCEEDED', Result: '"ok"' } });
    const wait = (await engine.getOperations(run.runId)).find((o) => o.Type === 'WAIT');
    expect(wait?.Status).toBe('SUCCEEDED');
  });

  it('suspends instead of sleeping when the invocation lacks the time', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      await ctx.wait({ seconds: 1 });
      return 'ok';
    });
    const h = new Harness(handler, { inProcessWaitMs: 5_000 });
    await h.start();
    const result = await h.invoke(2_500);
    expect(result).toMatchObject({ type: 'completed', output: { Status: 'PENDING' } });
  });

  it('suspends a retry backoff above the threshold and resumes it in the next invocation', async () => {
    let calls = 0;
    const handler: DurableLambdaHandler = withDurableExecution(async (_e, ctx) =>
      ctx.step(
        'flaky',
        async () => {
          if (++calls === 1) throw new Error('once');
          return calls;
        },
        { retry: { initialMs: 10_000, jitter: 'NONE' } },
      ),
    );
    const h = new Harness(handler, { inProcessWaitMs: 5_000 });
    await h.start();
    const t0 = h.clock.now();
    expect(await h.invoke()).toMatchObject({ type: 'completed', output: { Status: 'PENDING' } });
    expect((await h.run())?.nextWakeAt).toBe(t0 + 10_000);
    await h.invoke();
    expect((await h.run())?.result).toBe('2');
  });

  it('does not suspend while an async step serdes reads the stored result beside a pending callback', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      const [callback, callbackId] = await ctx.createCallback('approval');
      const order = await ctx.step('load', async () => ({ id: 7 }), { serdes: slowSerdes });
      // The callback can only come once this step has sent its id.
      await ctx.step('notify', async () => `sent ${callbackId} for ${(order as { id: number }).id}`);
      return callback;
    });
    const h = new Harness(handler);
    await h.start();
    // Suspended before 'notify' ran, the run would wait forever for a callback nobody can send.
    expect(await h.invoke()).toMatchObject({ type: 'completed', output: { Status: 'PENDING' } });
    expect((await h.op('3'))?.Status).toBe('SUCCEEDED');
  });

  it('does not suspend while an async child-context serdes runs beside a pending callback', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      const [callback, callbackId] = await ctx.createCallback('approval');
      const value = await ctx.runInChildContext('prepare', async (child) => child.step('inner', async () => 1), {
        serdes: slowSerdes,
      });
      await ctx.step('notify', async () => `sent ${callbackId} (${String(value)})`);
      return callback;
    });
    const h = new Harness(handler);
    await h.start();
    // Suspended before 'notify' ran, the run would wait forever for a callback nobody can send.
    expect(await h.invoke()).toMatchObject({ type: 'completed', output: { Status: 'PENDING' } });
    expect((await h.op('3'))?.Status).toBe('SUCCEEDED');
  });
});
