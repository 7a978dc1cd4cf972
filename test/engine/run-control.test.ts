import { withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { Harness, stoppedAsStale, until } from '../support/harness';

describe('run control', () => {
  it('retries a failed run: completed steps are kept, the failed step gets attempts whose numbers continue', async () => {
    const runs: Record<string, number> = { prepare: 0 };
    const keys: string[] = [];
    let healthy = false;
    const handler = withDurableExecution(async (_e, ctx) => {
      await ctx.step('prepare', async () => {
        runs.prepare = (runs.prepare ?? 0) + 1;
        return 'ready';
      });
      return ctx.runInChildContext('block', (child) =>
        child.step(
          'charge',
          async ({ idempotencyKey }) => {
            keys.push(idempotencyKey);
            if (!healthy) throw new Error('gateway down');
            return 'charged';
          },
          { retry: { maxAttempts: 2, initialMs: 1000 } },
        ),
      );
    });
    const h = new Harness(handler);
    await h.start();
    await h.runToEnd();
    expect((await h.run())?.status).toBe('FAILED');

    healthy = true;
    const revised = await h.engine.retryRun(h.runId);
    expect(revised.status).toBe('RUNNING');
    expect(revised.error).toBeUndefined();
    expect(h.wakeUps.at(-1)).toMatchObject({ runId: h.runId, reason: 'event' });
    await h.runToEnd();
    const run = await h.run();
    expect(run?.status).toBe('SUCCEEDED');
    expect(run?.result).toBe('"charged"');
    expect(runs.prepare).toBe(1);
    expect(keys).toEqual([`${h.runId}:2-1:1`, `${h.runId}:2-1:2`, `${h.runId}:2-1:3`]);
  });

  it('refuses to retry a run that did not fail, with run_state_conflict', async () => {
    const h = new Harness(withDurableExecution(async () => 'ok'));
    await h.start();
    await h.runToEnd();
    await expect(h.engine.retryRun(h.runId)).rejects.toMatchObject({ code: 'run_state_conflict' });
    await expect(h.engine.retryRun('nope')).rejects.toMatchObject({ code: 'run_not_found' });
  });

  it('cancels a waiting run: it ends CANCELLED and its pending wake-up does nothing', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      await ctx.wait({ hours: 1 });
      return 'never';
    });
    const h = new Harness(handler);
    await h.start();
    await h.invoke();
    const cancelled = await h.engine.cancelRun(h.runId);
    expect(cancelled).toMatchObject({ status: 'CANCELLED' });
    expect(cancelled.error?.ErrorCode).toBe('run_cancelled');
    h.clock.advanceBy(3_600_000);
    expect(await h.engine.openRun(h.runId)).toBeUndefined();
    await expect(h.engine.cancelRun(h.runId)).rejects.toMatchObject({ code: 'run_state_conflict' });
  });

  it('fences out an invocation that is running when its run is cancelled: it writes nothing more', async () => {
    let release: (() => void) | undefined;
    const handler = withDurableExecution(async (_e, ctx) => {
      await ctx.step('slow', () => new Promise<void>((r) => (release = r)));
      await ctx.step('after', async () => 1);
    });
    const h = new Harness(handler);
    await h.start();
    const running = h.invoke();
    await until(() => release !== undefined, 30_000);
    await h.engine.cancelRun(h.runId);
    release?.();
    expect(stoppedAsStale(await running, h.lastClose)).toBe(true);
    // Only the START written before the cancel: the step's outcome and the next step never land.
    const steps = (await h.operations()).filter((o) => o.Type === 'STEP');
    expect(steps.map((o) => [o.Name, o.Status])).toEqual([['slow', 'STARTED']]);
    expect((await h.run())?.status).toBe('CANCELLED');
  });

  it('lists runs newest first, by function and status, a page at a time', async () => {
    const h = new Harness(withDurableExecution(async () => 'ok'));
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      h.clock.advanceBy(1000);
      ids.push((await h.engine.startRun({ functionName: i % 2 ? 'odd' : 'even', input: String(i) })).run.runId);
    }
    const first = await h.engine.listRuns({ limit: 2 });
    expect(first.runs.map((r) => r.runId)).toEqual([ids[4], ids[3]]);
    const second = await h.engine.listRuns({ limit: 2, ...(first.cursor ? { cursor: first.cursor } : {}) });
    expect(second.runs.map((r) => r.runId)).toEqual([ids[2], ids[1]]);
    expect((await h.engine.listRuns({ functionName: 'odd' })).runs.map((r) => r.runId)).toEqual([ids[3], ids[1]]);
    expect((await h.engine.listRuns({ status: 'SUCCEEDED' })).runs).toHaveLength(0);
    await expect(h.engine.listRuns({ limit: 0 })).rejects.toMatchObject({ code: 'invalid_argument', field: 'limit' });
    await expect(h.engine.listRuns({ cursor: 'garbage' })).rejects.toMatchObject({ field: 'cursor' });
  });
});
