import { LocalDurableTestRunner } from '@durable-lambda/local';
import type { OperationUpdate } from '@durable-lambda/protocol';
import { finishOpened, getDurableEntry, StepSemantics, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { Harness, sleep } from '../support/harness';

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
  it("fails the run with non_deterministic and AWS's error when a recorded position holds another operation type", async () => {
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
    expect(error?.errorType).toBe('NonDeterministicExecutionError');
    expect(error?.errorMessage).toBe(
      '[Unrecoverable Execution] Non-deterministic execution detected: Operation type mismatch for step "1". ' +
        'Expected type "STEP", but got "WAIT". This indicates non-deterministic control flow in your workflow code.',
    );
    // Our code stays off AWS's fields.
    expect(Object.keys(error ?? {})).not.toContain('code');
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
    expect(result.getError()?.errorType).toBe('NonDeterministicExecutionError');
    expect(result.getError()?.errorMessage).toBe(
      '[Unrecoverable Execution] Non-deterministic execution detected: Operation name mismatch for step "1". ' +
        'Expected name "a", but got "b". This indicates non-deterministic control flow in your workflow code.',
    );
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

describe('writes after a non-deterministic replay ended the invocation', () => {
  it('sends no checkpoint once a non-deterministic replay has ended the invocation', async () => {
    let changed = false;
    const handler = withDurableExecution(async (_e, ctx) => {
      if (!changed) {
        await ctx.runInChildContext('c', async (child) => child.wait({ seconds: 10 }));
        return 'old';
      }
      const inner = ctx.runInChildContext('c', async (child) => {
        await Promise.resolve();
        return child.step('changed', async () => 1); // recorded: a WAIT at 1-1
      });
      const eager = ctx.step('eager', async () => 2, { semantics: StepSemantics.AtMostOncePerRetry });
      return Promise.all([inner, eager]);
    });
    const h = new Harness(handler);
    await h.start();
    await h.invoke();
    changed = true;
    const run = await h.engine.getRun(h.runId);
    if (run?.nextWakeAt !== undefined) h.clock.advanceTo(run.nextWakeAt);
    const session = await h.engine.openRun(h.runId, { remainingTimeMs: () => 60_000 });
    if (!session) throw new Error('nothing to invoke');
    let ended = false;
    const late: unknown[] = [];
    const watched = Object.create(session, {
      checkpoint: {
        value: (updates: readonly OperationUpdate[]) => {
          if (ended) late.push(updates);
          return session.checkpoint(updates);
        },
      },
    });
    const result = await getDurableEntry(handler).execute(watched, {}, { inProcessWaitMs: 0, logSink: () => {} });
    ended = true;
    expect(result).toMatchObject({ type: 'completed', output: { Status: 'FAILED' } });
    await finishOpened(session, result);
    await sleep(20);
    expect(late).toEqual([]);
  });
});
