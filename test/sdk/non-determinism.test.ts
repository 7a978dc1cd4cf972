import { LocalDurableTestRunner } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { Harness } from '../support/harness';

/** A handler whose code changes between its first and later invocations, like a bad deploy. */
function changingHandler(
  first: (ctx: import('@durable-lambda/sdk').DurableContext) => Promise<unknown>,
  later: typeof first,
) {
  let invocation = 0;
  return withDurableExecution(async (_e, ctx) => {
    invocation++;
    return invocation === 1 ? first(ctx) : later(ctx);
  });
}

describe('non-determinism', () => {
  it('fails the run with non_deterministic when a recorded position holds another operation type, naming both', async () => {
    const handler = changingHandler(
      async (ctx) => {
        await ctx.step('charge', async () => 1);
        await ctx.wait({ seconds: 1 });
      },
      async (ctx) => {
        await ctx.wait('sleep', { seconds: 1 });
      },
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getStatus()).toBe('FAILED');
    const error = result.getError();
    expect(error?.code).toBe('non_deterministic');
    expect(error?.errorMessage).toContain('recorded STEP "charge"');
    expect(error?.errorMessage).toContain('now WAIT "sleep"');
    expect(error?.errorMessage).toContain('operation 1');
  });

  it('fails the run with non_deterministic when the name at a recorded position changed', async () => {
    const handler = changingHandler(
      async (ctx) => {
        await ctx.step('a', async () => 1);
        await ctx.wait({ seconds: 1 });
      },
      async (ctx) => {
        await ctx.step('b', async () => 1);
      },
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getError()?.code).toBe('non_deterministic');
    expect(result.getError()?.errorMessage).toMatch(/recorded STEP "a", now STEP "b"/);
  });

  it('cannot be caught by handler code: the run fails even if the handler swallows errors', async () => {
    let sideEffects = 0;
    const handler = changingHandler(
      async (ctx) => {
        await ctx.step('a', async () => 1);
        await ctx.wait({ seconds: 1 });
      },
      async (ctx) => {
        try {
          await ctx.wait('different', { seconds: 1 });
        } catch {
          sideEffects++;
        }
        return 'swallowed';
      },
    );
    const h = new Harness(handler);
    await h.start();
    await h.runToEnd();
    expect((await h.run())?.status).toBe('FAILED');
    expect((await h.run())?.error?.ErrorCode).toBe('non_deterministic');
    expect(sideEffects).toBeLessThanOrEqual(1);
    expect((await h.run())?.result).toBeUndefined();
  });

  it('accepts the same code replayed, including unnamed operations', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      await ctx.step(async () => 1);
      await ctx.wait({ seconds: 1 });
      return ctx.step(async () => 2);
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toBe(2);
  });
});
