import { FencedError } from '@durable-lambda/protocol';
import { withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { Harness } from '../support/harness';

describe('checkpointing', () => {
  it('batches the outcomes of steps that finish in the same turn into one write', async () => {
    const handler = withDurableExecution(async (_e, ctx) =>
      Promise.all([ctx.step('a', async () => 1), ctx.step('b', async () => 2), ctx.step('c', async () => 3)]),
    );
    const h = new Harness(handler);
    await h.start();
    await h.invoke();
    expect((await h.run())?.result).toBe('[1,2,3]');
    const checkpointWrites = h.store.commits.filter((c) => c.operations.some((o) => o.Type === 'STEP'));
    expect(checkpointWrites).toHaveLength(1);
    expect(checkpointWrites[0]?.operations.map((o) => o.Id)).toEqual(['1', '2', '3']);
  });

  it('makes a step result durable before the handler sees it: a failed write ends the invocation, the code after never runs', async () => {
    const afterStep: string[] = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      const value = await ctx.step('charge', async () => 'charged');
      afterStep.push(value);
      return value;
    });
    const h = new Harness(handler);
    await h.start();
    h.store.failNextCommit = new Error('throttled');
    const result = await h.invoke();
    expect(result.type).toBe('fault');
    expect(afterStep).toEqual([]);
    // The run resumes after the fault; the step runs again (at least once) and the run finishes.
    const run = await h.run();
    expect(run?.status).toBe('RUNNING');
    expect(run?.leaseExpiresAt).toBeUndefined();
    await h.invoke();
    expect((await h.run())?.result).toBe('"charged"');
    expect(afterStep).toEqual(['charged']);
  });

  it('stops a stale invocation quietly when a newer one owns the run: it writes nothing more', async () => {
    let release = () => {};
    let secondBody = 0;
    const handler = withDurableExecution(async (_e, ctx) => {
      await ctx.step('slow', () => new Promise<void>((r) => (release = r)));
      await ctx.step('second', async () => ++secondBody);
      return 'done';
    });
    const h = new Harness(handler);
    await h.start();
    const stale = h.invoke(1_000);
    await new Promise((r) => setTimeout(r, 10));
    // The stale invocation's lease lapses; the safety wake-up starts a newer invocation.
    h.clock.advanceTo((await h.run())?.leaseExpiresAt ?? 0);
    const fresh = h.invoke();
    await new Promise((r) => setTimeout(r, 10));
    const writesBefore = h.store.commits.length;
    release(); // both invocations' steps complete; only the newer may write
    expect(await stale).toEqual({ type: 'fenced' });
    await fresh;
    expect((await h.run())?.result).toBe('"done"');
    expect(h.store.commits.length).toBeGreaterThan(writesBefore);
    expect(secondBody).toBe(1);
  });

  it('reports a fenced checkpoint from the store as FencedError', async () => {
    const handler = withDurableExecution(async (_e, ctx) => ctx.step('x', async () => 1));
    const h = new Harness(handler);
    await h.start();
    h.store.failNextCommit = new FencedError();
    expect(await h.invoke()).toEqual({ type: 'fenced' });
  });
});
