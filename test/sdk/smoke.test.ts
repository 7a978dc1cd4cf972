import { describe, expect, it } from 'vitest';
import { withDurableExecution, RetryAfterError } from '@durable-lambda/sdk';
import { LocalDurableTestRunner } from '@durable-lambda/local';

describe('smoke', () => {
  it('runs steps, waits, retries and child contexts', async () => {
    let calls = 0;
    const handler = withDurableExecution(async (event: { n: number }, ctx) => {
      const a = await ctx.step('a', async () => event.n + 1);
      await ctx.wait('nap', { hours: 1 });
      const b = await ctx.step('flaky', async (s) => {
        calls++;
        if (s.attempt < 3) throw new RetryAfterError('busy', 2000);
        return a * 10;
      });
      const c = await ctx.runInChildContext('kids', async (child) => {
        const x = await child.step('x', async () => 1);
        await child.wait({ seconds: 5 });
        return x + b;
      });
      return { a, b, c };
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run({ payload: { n: 1 } });
    expect(result.getError()).toBeUndefined();
    expect(result.getResult()).toEqual({ a: 2, b: 20, c: 21 });
    expect(calls).toBe(3);
    console.log(result.getInvocationCount(), result.getOperations().map((o) => [o.getId(), o.getType(), o.getName(), o.getStatus()]));
    expect(runner.getOperation('flaky').getStepDetails().attempt).toBe(3);
    expect(runner.getOperation('nap').getWaitDetails().waitSeconds).toBe(3600);
  });
});
