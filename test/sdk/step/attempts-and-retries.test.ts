import { LocalDurableTestRunner } from '@durable-lambda/local';
import { createRetryStrategy, JitterStrategy, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { Harness } from '../../support/harness';

/** A step's attempts: the key each one gets, the retry policy that applies, when retries run and end. */
describe('step attempts and retries', () => {
  it('gives each attempt a distinct idempotency key <runId>:<stepId>:<attempt>', async () => {
    const keys: string[] = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      await ctx.step('first', async () => 1);
      return ctx.step(
        'pay',
        async ({ idempotencyKey, attempt }) => {
          keys.push(idempotencyKey);
          if (attempt < 3) throw new Error('again');
          return attempt;
        },
        { retry: { initialMs: 1000 } },
      );
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    const runId = result.getRunId();
    expect(keys).toEqual([`${runId}:2:1`, `${runId}:2:2`, `${runId}:2:3`]);
  });

  it('applies function-level retry defaults to steps that set none, and a step-level policy wins', async () => {
    const attempts: Record<string, number> = { plain: 0, own: 0 };
    const handler = withDurableExecution(
      async (_e, ctx) => {
        const fail = (k: string) => async () => {
          attempts[k] = (attempts[k] ?? 0) + 1;
          throw new Error(k);
        };
        await ctx.step('plain', fail('plain')).catch(() => undefined);
        await ctx.step('own', fail('own'), { retry: { maxAttempts: 4, initialMs: 1000 } }).catch(() => undefined);
        return attempts;
      },
      { retry: { maxAttempts: 2, initialMs: 1000 } },
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toEqual({ plain: 2, own: 4 });
  });

  it('uses retryPresets.default (6 attempts) for a step that configures nothing', async () => {
    let attempts = 0;
    const handler = withDurableExecution(async (_e, ctx) =>
      ctx.step('x', async () => {
        attempts++;
        throw new Error('always');
      }),
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getStatus()).toBe('FAILED');
    expect(attempts).toBe(6);
  });

  it('schedules each retry exactly at the delay the strategy chose, on the virtual clock', async () => {
    const handler = withDurableExecution(async (_e, ctx) =>
      ctx.step(
        'x',
        async ({ attempt }) => {
          if (attempt < 4) throw new Error('again');
          return attempt;
        },
        {
          retryStrategy: createRetryStrategy({
            maxAttempts: 5,
            initialDelay: { seconds: 2 },
            backoffRate: 3,
            jitter: JitterStrategy.NONE,
          }),
        },
      ),
    );
    const h = new Harness(handler);
    await h.start();
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) {
      await h.invoke(); // the attempt fails at the clock's current time
      waits.push(((await h.run())?.nextWakeAt ?? 0) - h.clock.now());
    }
    expect(waits).toEqual([2000, 6000, 18000]);
    await h.invoke();
    expect((await h.run())?.result).toBe('4');
  });

  it('resumes a step mid-retry in the next invocation with the attempt number the engine kept', async () => {
    const attempts: number[] = [];
    const handler = withDurableExecution(async (_e, ctx) =>
      ctx.step(
        'flaky',
        async ({ attempt }) => {
          attempts.push(attempt);
          if (attempt < 3) throw new Error('not yet');
          return attempt;
        },
        { retry: { initialMs: 2000, jitter: 'NONE' } },
      ),
    );
    const h = new Harness(handler);
    await h.start();
    expect((await h.invoke()).type).toBe('completed');
    expect((await h.op('1'))?.Status).toBe('PENDING');
    expect((await h.op('1'))?.StepDetails?.Attempt).toBe(1);
    await h.invoke();
    expect((await h.op('1'))?.StepDetails?.Attempt).toBe(2);
    await h.invoke();
    expect((await h.run())?.result).toBe('3');
    expect(attempts).toEqual([1, 2, 3]);
  });

  it('fails a step at once on NonRetriableError, even as the cause of another error', async () => {
    const { NonRetriableError } = await import('@durable-lambda/sdk');
    let attempts = 0;
    const handler = withDurableExecution(async (_e, ctx) =>
      ctx.step('x', async () => {
        attempts++;
        throw new Error('wrapped', { cause: new NonRetriableError('invalid input') });
      }),
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(attempts).toBe(1);
    expect(result.getError()).toMatchObject({ code: 'non_retriable', errorMessage: 'wrapped' });
  });

  it('fails the run with the uncaught StepError of a step that used up its attempts', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      await ctx.step(
        'boom',
        async () => {
          throw new TypeError('bad');
        },
        { retry: { maxAttempts: 2, initialMs: 1000, jitter: 'NONE' } },
      );
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run();
    expect(result.getStatus()).toBe('FAILED');
    // As on AWS: the run's error is the uncaught StepError.
    expect(result.getError()).toMatchObject({ errorType: 'StepError', errorMessage: 'bad', code: 'step_failed' });
    expect(runner.getOperation('boom').getStepDetails()?.error).toMatchObject({ errorType: 'TypeError' });
    expect(runner.getOperation('boom').getStepDetails()?.attempt).toBe(2);
  });
});
