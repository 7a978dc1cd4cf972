import type { OperationUpdate } from '@durable-lambda/protocol';
import { finishOpened, getDurableEntry, type Serdes, StepSemantics, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { Harness, sleep } from '../support/harness';

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

describe('review findings', () => {
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

describe('review findings: writes after the end', () => {
  it('sends no checkpoint once a non-deterministic replay has ended the invocation', async () => {
    let changed = false;
    const handler = withDurableExecution(async (_e, ctx) => {
      if (!changed) {
        await ctx.runInChildContext('c', async (child) => child.wait({ seconds: 10 }));
        return 'old';
      }
      const inner = ctx.runInChildContext('c', async (child) => {
        await Promise.resolve();
        return child.step('changed', async () => 1); // recorded: a WAIT at 1-1
      });
      const eager = ctx.step('eager', async () => 2, { semantics: StepSemantics.AtMostOncePerRetry });
      return Promise.all([inner, eager]);
    });
    const h = new Harness(handler);
    await h.start();
    await h.invoke();
    changed = true;
    const run = await h.engine.getRun(h.runId);
    if (run?.nextWakeAt !== undefined) h.clock.advanceTo(run.nextWakeAt);
    const session = await h.engine.openRun(h.runId, { remainingTimeMs: () => 60_000 });
    if (!session) throw new Error('nothing to invoke');
    let ended = false;
    const late: unknown[] = [];
    const watched = Object.create(session, {
      checkpoint: {
        value: (updates: readonly OperationUpdate[]) => {
          if (ended) late.push(updates);
          return session.checkpoint(updates);
        },
      },
    });
    const result = await getDurableEntry(handler).execute(watched, {}, { inProcessWaitMs: 0, logSink: () => {} });
    ended = true;
    expect(result).toMatchObject({ type: 'completed', output: { Status: 'FAILED' } });
    await finishOpened(session, result);
    await sleep(20);
    expect(late).toEqual([]);
  });
});
