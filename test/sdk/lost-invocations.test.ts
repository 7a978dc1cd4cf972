import { StepError, StepSemantics, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { Harness, until } from '../support/harness';

/** A step body that never finishes: the invocation running it is abandoned, as if it crashed. */
const hang = () => new Promise<never>(() => {});

describe('lost invocations', () => {
  it('counts an attempt started by a crashed invocation as a failed attempt with code invocation_lost, then retries it', async () => {
    let crash = true;
    const attempts: number[] = [];
    const handler = withDurableExecution(async (_e, ctx) =>
      ctx.step(
        'work',
        async ({ attempt }) => {
          attempts.push(attempt);
          if (crash) {
            crash = false;
            return hang();
          }
          return 'ok';
        },
        { retry: { maxAttempts: 3, initialMs: 1000, jitter: 'NONE' } },
      ),
    );
    const h = new Harness(handler, { lazyStartMs: 0 });
    await h.start();
    void h.invoke(60_000); // crashes mid-step: never closes
    await until(async () => (await h.op('1'))?.Status === 'STARTED');
    const lease = (await h.run())?.leaseExpiresAt ?? 0;
    expect(h.wakeUps.some((w) => w.reason === 'lease' && w.at === lease)).toBe(true);

    h.clock.advanceTo(lease); // the safety wake-up fires
    await h.invoke();
    const op = await h.op('1');
    expect(op?.Status).toBe('PENDING');
    expect(op?.StepDetails?.Error?.ErrorCode).toBe('invocation_lost');
    expect((await h.run())?.lostInvocations).toBe(1);
    await h.invoke();
    expect((await h.run())?.status).toBe('SUCCEEDED');
    expect(attempts).toEqual([1, 2]);
    expect((await h.op('1'))?.StepDetails?.Attempt).toBe(2);
  });

  it('spends retry budget: a step lost on its last attempt fails with a StepError caused by StepInterruptedError', async () => {
    const caught: unknown[] = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      try {
        await ctx.step('work', hang, { retry: { maxAttempts: 1 }, semantics: StepSemantics.AtMostOncePerRetry });
      } catch (error) {
        caught.push(error);
        return 'recovered';
      }
    });
    const h = new Harness(handler);
    await h.start();
    void h.invoke(60_000);
    await until(async () => (await h.op('1'))?.Status === 'STARTED');
    h.clock.advanceTo((await h.run())?.leaseExpiresAt ?? 0);
    await h.invoke();
    expect((await h.run())?.result).toBe('"recovered"');
    // AWS's shape: the handler sees a StepError; its cause is named StepInterruptedError.
    expect(caught[0]).toBeInstanceOf(StepError);
    expect(((caught[0] as StepError).cause as Error).name).toBe('StepInterruptedError');
    expect((caught[0] as StepError).code).toBe('invocation_lost');
  });

  it('records an at-most-once attempt START before running its code', async () => {
    const order: string[] = [];
    let h: Harness;
    const handler = withDurableExecution(async (_e, ctx) =>
      ctx.step(
        'once',
        async () => {
          order.push(`body saw ${(await h.op('1'))?.Status}`);
          return 1;
        },
        { semantics: StepSemantics.AtMostOncePerRetry },
      ),
    );
    h = new Harness(handler);
    await h.start();
    await h.invoke();
    expect(order).toEqual(['body saw STARTED']);
  });

  it('writes a short at-least-once step as one write, without a START', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      for (let i = 0; i < 5; i++) await ctx.step(`s${i}`, async () => i);
      return 'ok';
    });
    const h = new Harness(handler, { lazyStartMs: 1000 });
    await h.start();
    await h.invoke();
    // 5 steps: 5 checkpoint writes, plus the final commit that records the run's outcome.
    expect(h.store.operationWrites()).toBe(6);
    const actions = h.store.commits.flatMap((c) => c.operations.map((o) => o.Status));
    expect(actions.filter((s) => s === 'STARTED')).toHaveLength(0);
  });

  it('writes the START of a step that runs longer than lazyStartMs, so a crash in it is detected', async () => {
    let release = () => {};
    const handler = withDurableExecution(async (_e, ctx) =>
      ctx.step('slow', () => new Promise<number>((resolve) => (release = () => resolve(1)))),
    );
    const h = new Harness(handler, { lazyStartMs: 20 });
    await h.start();
    const done = h.invoke();
    await until(async () => (await h.op('1'))?.Status === 'STARTED');
    release();
    await done;
    expect((await h.op('1'))?.Status).toBe('SUCCEEDED');
    expect((await h.op('1'))?.StepDetails?.Attempt).toBe(1);
  });

  it('writes starts eagerly after a lost invocation, so a step that crashes fast cannot re-run silently forever', async () => {
    let bodies = 0;
    const handler = withDurableExecution(async (_e, ctx) =>
      ctx.step(
        'fast-crash',
        () => {
          bodies++;
          return hang();
        },
        { retry: { maxAttempts: 2, initialMs: 1000 } },
      ),
    );
    // lazyStartMs is long: the first crash happens before any START is written.
    const h = new Harness(handler, { lazyStartMs: 60_000 });
    await h.start();
    void h.invoke(60_000);
    await until(() => bodies === 1);
    expect(await h.op('1')).toBeUndefined();
    h.clock.advanceTo((await h.run())?.leaseExpiresAt ?? 0);
    void h.invoke(60_000); // knows the last invocation was lost: writes START first
    await until(async () => (await h.op('1'))?.Status === 'STARTED');
    h.clock.advanceTo((await h.run())?.leaseExpiresAt ?? 0);
    await h.invoke(); // finds the lost attempt: invocation_lost, retry later
    expect((await h.op('1'))?.StepDetails?.Error?.ErrorCode).toBe('invocation_lost');
    void h.invoke(60_000); // attempt 2 crashes too; its START is still written first
    await until(async () => (await h.op('1'))?.StepDetails?.Attempt === 2 && (await h.op('1'))?.Status === 'STARTED');
    h.clock.advanceTo((await h.run())?.leaseExpiresAt ?? 0);
    await h.invoke();
    const run = await h.run();
    expect(run?.status).toBe('FAILED');
    expect(run?.error?.ErrorCode).toBe('invocation_lost');
    expect(bodies).toBe(3);
  });
});
