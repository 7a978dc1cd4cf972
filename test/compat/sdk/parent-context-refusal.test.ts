import { LocalDurableTestRunner } from '@durable-lambda/local';
import { createWaitStrategy, type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

/** AWS's message for a context used where another one runs. */
const misuse = (operation: string, expected: string, got: string) =>
  `Context usage error in "${operation}": You are using a parent or sibling context instead of the current child context. Expected context ID: "${expected}", but got: "${got}". When inside runInChildContext(), you must use the child context parameter, not the parent context.`;

async function run(handler: Parameters<typeof withDurableExecution>[0]) {
  const runner = new LocalDurableTestRunner({ handlerFunction: withDurableExecution(handler) });
  return { runner, result: await runner.run() };
}

describe('a parent context used where another context runs is refused, as AWS’s SDK does', () => {
  it('fails the run when the parent context is used inside a child context', async () => {
    let after = false;
    const { result } = await run(async (_e, ctx) => {
      await ctx.runInChildContext('child', async () => {
        await ctx.step('wrong', async () => 'never');
        after = true;
      });
      return 'unreachable';
    });
    expect(result.getStatus()).toBe('FAILED');
    expect(result.getError()).toMatchObject({
      errorType: 'Error',
      errorMessage: misuse('step', '1', 'undefined'),
      code: 'context_misuse',
    });
    expect(after).toBe(false);
  });

  it('fails the run when a context is used inside a step, naming the step', async () => {
    const { result } = await run(async (_e, ctx) => {
      await ctx.step('first', async () => 1);
      return ctx.step('outer', async () => ctx.wait({ seconds: 1 }));
    });
    expect(result.getStatus()).toBe('FAILED');
    expect(result.getError()?.errorMessage).toBe(misuse('wait', '2', 'undefined'));
    // The misused context recorded nothing: no wait was started.
    expect(result.getOperations().map((op) => op.getType())).not.toContain('WAIT');
  });

  it('fails the run when a context is used inside a waitForCondition check', async () => {
    const { result } = await run(async (_e, ctx) =>
      ctx.waitForCondition(
        'poll',
        async (state: number) => {
          await ctx.step('inside-check', async () => state);
          return state + 1;
        },
        { initialState: 0, waitStrategy: createWaitStrategy({ shouldContinuePolling: (s: number) => s < 2 }) },
      ),
    );
    expect(result.getStatus()).toBe('FAILED');
    expect(result.getError()?.errorMessage).toBe(misuse('step', '1', 'undefined'));
  });

  it('refuses a sibling context too: a child’s context used inside another child', async () => {
    let first: DurableContext | undefined;
    const { result } = await run(async (_e, ctx) => {
      await ctx.runInChildContext('a', async (a) => {
        first = a;
      });
      await ctx.runInChildContext('b', async () => {
        await first?.step('via-a', async () => 1);
      });
      return 'unreachable';
    });
    expect(result.getError()?.errorMessage).toBe(misuse('step', '2', '1'));
  });

  it('accepts each context where it runs: the handler’s, a child’s own, nested ones, map items', async () => {
    const { result } = await run(async (_e, ctx) => {
      const a = await ctx.step('a', async () => 1);
      const b = await ctx.runInChildContext('child', async (child) => {
        const inner = await child.runInChildContext('nested', async (nested) => nested.step('n', async () => 2));
        return inner + (await child.step('c', async () => 3));
      });
      const batch = await ctx.map([1, 2], async (item, value) => item.step(async () => value * 10));
      const combined = await ctx.promise.all([ctx.step('d', async () => 4)]);
      return [a, b, batch.getResults(), combined];
    });
    expect(result.getStatus()).toBe('SUCCEEDED');
    expect(result.getResult()).toEqual([1, 5, [10, 20], [4]]);
  });
});
