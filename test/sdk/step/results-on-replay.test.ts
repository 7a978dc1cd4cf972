import { LocalDurableTestRunner } from '@durable-lambda/local';
import { StepError, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

/** What a step hands back once it finished: run once, its stored result or failure replayed after. */
describe('step results and failures across invocations', () => {
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
});
