/**
 * The step suite's handlers, written with our SDK from each requirement's description. Anything a
 * handler counts across attempts comes from the step context (`attempt`), never from a variable
 * outside the handler: each requirement runs on two runners with the same handler.
 */
import { createRetryStrategy, JitterStrategy, retryPresets, type Serdes } from '@durable-lambda/sdk';
import { withDurableExecution } from '../harness/durable';
import type { HandlerEntry } from '../harness/requirement';

/** An error a retry strategy recognises as passing (by class). */
class TransientError extends Error {
  override name = 'TransientError';
}

/** Writes every string upper-cased; reads values back as written. */
const upperCaseSerdes: Serdes<unknown> = {
  serialize: (value) =>
    value === undefined ? undefined : JSON.stringify(value, (_k, v) => (typeof v === 'string' ? v.toUpperCase() : v)),
  deserialize: (text) => (text === undefined ? undefined : JSON.parse(text)),
};

const oneSecond = { seconds: 1 };

export const STEP_HANDLERS: Record<string, HandlerEntry> = {
  '1-1': withDurableExecution(async (who: string, ctx) => ctx.step(async () => `Hello, ${who}!`)),
  '1-2': withDurableExecution(async (who: string, ctx) => ctx.step('custom_step_name', async () => `Hello, ${who}!`)),
  '1-3': withDurableExecution(async (_e: unknown, ctx) => {
    const first = await ctx.step(async () => 'first');
    return ctx.step(async () => `${first}_second`);
  }),
  '1-4': withDurableExecution(async (user: { name: string; tags: string[] }, ctx) =>
    ctx.step(async () => ({ user: { name: user.name, tags: user.tags }, count: user.tags.length })),
  ),
  '1-5': withDurableExecution(async (_e: unknown, ctx) => ctx.step(async () => null)),
  '1-6': withDurableExecution(async (text: string, ctx) => ctx.step(async () => text, { serdes: upperCaseSerdes })),
  '1-7': withDurableExecution(async (who: string, ctx) =>
    ctx.step(async (step) => {
      step.logger.info(`Greeting step started for: ${who}`);
      const greeting = `Hello, ${who}!`;
      step.logger.info(`Greeting step completed with: ${greeting}`);
      return greeting;
    }),
  ),
  '1-8': withDurableExecution(async (_e: unknown, ctx) => {
    const value = await ctx.step(async () => 'computed');
    await ctx.wait({ seconds: 2 });
    return value;
  }),
  '1-9': withDurableExecution(async (_e: unknown, ctx) => {
    const value = await ctx.step(async (step) => {
      step.logger.info('step executed');
      return 'cached_value';
    });
    await ctx.wait(oneSecond);
    return value;
  }),
  '1-10': withDurableExecution(async (_e: unknown, ctx) => {
    try {
      await ctx.step(
        async (step) => {
          step.logger.info('step executed');
          throw new Error('permanent failure');
        },
        { retryStrategy: retryPresets.noRetry },
      );
    } catch {
      // The stored failure is thrown again on replay, and caught again.
    }
    await ctx.wait(oneSecond);
    return 'caught';
  }),
  '1-11': withDurableExecution(async (_e: unknown, ctx) =>
    ctx.step(
      async (step) => {
        if (step.attempt === 1) throw new Error('unreliable: first attempt fails');
        return 'Operation succeeded';
      },
      { retryStrategy: (_error, attempt) => ({ shouldRetry: attempt < 3, delay: oneSecond }) },
    ),
  ),
  '1-12': withDurableExecution(async (_e: unknown, ctx) =>
    ctx.step(
      async () => {
        throw new Error('always fails');
      },
      {
        retryStrategy: createRetryStrategy({
          maxAttempts: 4,
          initialDelay: oneSecond,
          backoffRate: 1,
          jitter: JitterStrategy.NONE,
        }),
      },
    ),
  ),
  '1-13': withDurableExecution(async (_e: unknown, ctx) =>
    ctx.step(async (step) => {
      if (step.attempt < 3) throw new Error(`attempt ${step.attempt} fails`);
      return 'third time';
    }),
  ),
  '1-14': withDurableExecution(async (_e: unknown, ctx) =>
    ctx.step(
      async (step) => {
        if (step.attempt < 3) throw new Error(`attempt ${step.attempt} fails`);
        return 'third time';
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
  ),
  '1-15': withDurableExecution(async (_e: unknown, ctx) =>
    ctx.step(
      async (step) => {
        if (step.attempt === 1) throw new TransientError('try again');
        return 'recovered';
      },
      { retryStrategy: (error) => ({ shouldRetry: error instanceof TransientError, delay: oneSecond }) },
    ),
  ),
  '1-16': withDurableExecution(async (_e: unknown, ctx) =>
    ctx.step(
      async () => {
        throw new TransientError('not retried');
      },
      { retryStrategy: (error) => ({ shouldRetry: !(error instanceof TransientError), delay: oneSecond }) },
    ),
  ),
  '1-19': withDurableExecution(async (_e: unknown, ctx) =>
    ctx.step(
      async () => {
        throw new Error('always fails');
      },
      { retryStrategy: retryPresets.noRetry },
    ),
  ),
  '1-20': withDurableExecution(async (_e: unknown, ctx) => {
    let value: string;
    try {
      value = await ctx.step(
        async () => {
          throw new Error('fails');
        },
        { retryStrategy: retryPresets.noRetry },
      );
    } catch {
      value = 'fallback';
    }
    return ctx.step(async () => `${value}_result`);
  }),
};
