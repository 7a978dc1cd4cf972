import { LocalDurableTestRunner } from '@durable-lambda/local';
import { StepError, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { Harness } from '../support/harness';

describe('replay', () => {
  it('runs each completed step once across invocations and replays its stored result', async () => {
    const runs: Record<string, number> = {};
    const count = <T>(k: string, value: T): T => {
      runs[k] = (runs[k] ?? 0) + 1;
      return value;
    };
    const handler = withDurableExecution(async (_e, ctx) => {
      const a = await ctx.step('a', async () => count('a', 1));
      await ctx.wait({ seconds: 10 });
      const b = await ctx.step('b', async () => count('b', a + 1));
      await ctx.wait({ minutes: 5 });
      const c = await ctx.step('c', async () => count('c', b + 1));
      return [a, b, c];
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toEqual([1, 2, 3]);
    expect(runs).toEqual({ a: 1, b: 1, c: 1 });
    expect(result.getInvocationCount()).toBe(3);
  });

  it('returns the same value live and on replay, because a first run round-trips through serdes too', async () => {
    const seen: unknown[] = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      const value = await ctx.step('when', async () => ({ at: new Date(Date.UTC(2026, 1, 2)), skip: undefined, n: 1 }));
      seen.push(value);
      await ctx.wait({ seconds: 1 });
      return value;
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(seen).toHaveLength(2);
    expect(seen[0]).toEqual({ at: '2026-02-02T00:00:00.000Z', n: 1 });
    expect(seen[1]).toEqual(seen[0]);
    expect(result.getResult()).toEqual(seen[0]);
  });

  it('rethrows a stored failure as StepError with the original message, type and code, live and on replay', async () => {
    const caught: StepError[] = [];
    class PaymentDeclined extends Error {
      code = 'card_declined';
      constructor() {
        super('card declined');
        this.name = 'PaymentDeclined';
      }
    }
    const handler = withDurableExecution(async (_e, ctx) => {
      try {
        await ctx.step(
          'pay',
          async () => {
            throw new PaymentDeclined();
          },
          { retryStrategy: () => ({ shouldRetry: false }) },
        );
      } catch (error) {
        caught.push(error as StepError);
      }
      await ctx.wait({ seconds: 1 });
      return 'done';
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toBe('done');
    expect(caught).toHaveLength(2);
    for (const error of caught) {
      expect(error).toBeInstanceOf(StepError);
      expect(error.message).toBe('card declined');
      // AWS's shape: errorType is the class; the original type is the cause's name.
      expect(error.errorType).toBe('StepError');
      expect(error.code).toBe('card_declined');
      expect((error.cause as Error).name).toBe('PaymentDeclined');
    }
    expect(caught[1]?.stack).toBeDefined();
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

  it('gives child context operations nested ids and replays a finished context without running it', async () => {
    let bodyRuns = 0;
    const handler = withDurableExecution(async (_e, ctx) => {
      const total = await ctx.runInChildContext('outer', async (outer) => {
        bodyRuns++;
        const x = await outer.step('x', async () => 2);
        const y = await outer.runInChildContext('inner', async (inner) => inner.step('y', async () => 3));
        return x * y;
      });
      await ctx.wait({ seconds: 1 });
      return total;
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run();
    expect(result.getResult()).toBe(6);
    expect(bodyRuns).toBe(1);
    expect(result.getOperations().map((o) => [o.getId(), o.getType(), o.getParentId()])).toEqual([
      ['1', 'CONTEXT', undefined],
      ['1-1', 'STEP', '1'],
      ['1-2', 'CONTEXT', '1'],
      ['1-2-1', 'STEP', '1-2'],
      ['2', 'WAIT', undefined],
    ]);
    expect(
      runner
        .getOperation('outer')
        .getChildOperations()!
        .map((o) => o.getName()),
    ).toEqual(['x', 'inner']);
    expect(runner.getOperation('outer').getContextDetails()?.result).toBe(6);
  });

  it('surfaces a failing child context as ChildContextError, also on replay', async () => {
    const seen: string[] = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      try {
        await ctx.runInChildContext('fails', async () => {
          throw new RangeError('out of range');
        });
      } catch (error) {
        const cause = (error as Error).cause as Error;
        seen.push(`${(error as Error).name}:${(cause.cause as Error).name}:${(error as Error).message}`);
      }
      await ctx.wait({ seconds: 1 });
    });
    await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(seen).toEqual(['ChildContextError:RangeError:out of range', 'ChildContextError:RangeError:out of range']);
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
});
