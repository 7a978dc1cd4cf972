import { FencedError } from '@durable-lambda/protocol';
import { withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { Harness, until } from '../support/harness';

describe('checkpointing', () => {
  it('batches the outcomes of steps that finish in the same turn into one write', async () => {
    const handler = withDurableExecution(async (_e, ctx) =>
      Promise.all([ctx.step('a', async () => 1), ctx.step('b', async () => 2), ctx.step('c', async () => 3)]),
    );
    const h = new Harness(handler);
    await h.start();
    await h.invoke();
    expect((await h.run())?.result).toBe('[1,2,3]');
    // The three STARTs go in one write; the three outcomes, written behind, ride with the write
    // that ends the run (its EXECUTION record last).
    const stepWrites = h.store.commits.filter((c) => c.operations.some((o) => o.Type === 'STEP'));
    expect(stepWrites.map((c) => c.operations.map((o) => `${o.Id}:${o.Status}`))).toEqual([
      ['1:STARTED', '2:STARTED', '3:STARTED'],
      ['1:SUCCEEDED', '2:SUCCEEDED', '3:SUCCEEDED', '0:SUCCEEDED'],
    ]);
    expect(stepWrites[1]?.run?.status).toBe('SUCCEEDED');
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
    let bodies = 0;
    let secondBody = 0;
    const handler = withDurableExecution(async (_e, ctx) => {
      await ctx.step(
        'slow',
        () =>
          new Promise<void>((r) => {
            bodies++;
            release = r;
          }),
      );
      await ctx.step('second', async () => ++secondBody);
      return 'done';
    });
    const h = new Harness(handler);
    await h.start();
    const stale = h.invoke(1_000);
    await until(() => bodies === 1, 30_000);
    // The stale invocation's lease lapses; the safety wake-up starts a newer invocation.
    h.clock.advanceTo((await h.run())?.leaseExpiresAt ?? 0);
    const writesBefore = h.store.commits.length;
    // The newer invocation found the stale one's attempt started and lost: a retry is due.
    expect(await h.invoke()).toMatchObject({ type: 'completed', output: { Status: 'PENDING' } });
    release(); // the stale attempt completes, but its outcome may not be written
    expect(await stale).toEqual({ type: 'fenced' });
    h.clock.advanceTo((await h.run())?.nextWakeAt ?? 0);
    const retry = h.invoke();
    await until(() => bodies === 2, 30_000);
    release(); // attempt 2, in the newest invocation
    await retry;
    expect((await h.run())?.result).toBe('"done"');
    expect(h.store.commits.length).toBeGreaterThan(writesBefore);
    expect(secondBody).toBe(1);
    const slow = (await h.operations()).find((o) => o.Name === 'slow');
    expect(slow?.StepDetails?.Attempt).toBe(2);
    expect(slow?.StepDetails?.FailedAttempts?.[0]?.Error.ErrorCode).toBe('invocation_lost');
  });

  it('reports a fenced checkpoint from the store as FencedError', async () => {
    const handler = withDurableExecution(async (_e, ctx) => ctx.step('x', async () => 1));
    const h = new Harness(handler);
    await h.start();
    h.store.failNextCommit = new FencedError();
    expect(await h.invoke()).toEqual({ type: 'fenced' });
  });
});

describe('updates that ride with the invocation end', () => {
  const outcomesCarried = (result: unknown) =>
    ((result as { output?: { Updates?: Array<{ Type: string; Action: string; Id: string }> } }).output?.Updates ?? [])
      .map((u) => `${u.Type}:${u.Action}`)
      .sort();

  it('carry a step outcome and a long wait START with the suspension when nothing can overtake them', async () => {
    const handler = withDurableExecution(
      async (_e, ctx) => {
        await ctx.step('a', async () => 1);
        await ctx.wait('later', { hours: 1 });
        return 'done';
      },
      { inProcessWaitMs: 0 },
    );
    const h = new Harness(handler);
    await h.start();
    expect(outcomesCarried(await h.invoke())).toEqual(['STEP:SUCCEED', 'WAIT:START']);
  });

  it('are written before the end while a callback is open: its completion may land before the end, and must not be stored before the submitter that ran first', async () => {
    const handler = withDurableExecution(
      async (_e, ctx) => {
        const answer = await ctx.waitForCallback<string>('approval', async () => {});
        return answer;
      },
      { inProcessWaitMs: 0 },
    );
    const h = new Harness(handler);
    await h.start();
    const result = await h.invoke();
    expect(result).toMatchObject({ type: 'completed', output: { Status: 'PENDING' } });
    expect(outcomesCarried(result)).toEqual([]);
    // The submitter's outcome went out in a checkpoint of its own, before the invocation ended.
    const submitter = h.store.commits.find((c) =>
      c.operations.some((o) => o.Type === 'STEP' && o.Status === 'SUCCEEDED'),
    );
    expect(submitter).toBeDefined();
  });
});
