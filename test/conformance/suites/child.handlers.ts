/**
 * The child-context suite's handlers, written with our SDK from each requirement's description.
 * Every child context is named: the requirements expect a Name on its events.
 */
import { retryPresets, type Serdes } from '@durable-lambda/sdk';
import { withDurableExecution } from '../harness/durable';
import type { HandlerEntry } from '../harness/requirement';

/** Writes the value as upper-case text (not JSON); reads the text back as it is. */
const upperCaseText: Serdes<string> = {
  serialize: (value) => (value === undefined ? undefined : String(value).toUpperCase()),
  deserialize: (text) => text,
};

const aSecond = { seconds: 1 };

export const CHILD_HANDLERS: Record<string, HandlerEntry> = {
  '3-1': withDurableExecution(async (text: string, ctx) =>
    ctx.runInChildContext('child', async (child) => child.step(async () => text)),
  ),
  '3-2': withDurableExecution(async (input: { name: string; value: string }, ctx) =>
    ctx.runInChildContext(input.name, async (child) => child.step(async () => input.value)),
  ),
  '3-3': withDurableExecution(async (text: string, ctx) =>
    ctx.runInChildContext('child', async (child) => {
      const first = await child.step(async () => text);
      return child.step(async () => first);
    }),
  ),
  '3-4': withDurableExecution(async (_e: unknown, ctx) =>
    ctx.runInChildContext('child', async (child) =>
      child.step(
        async () => {
          throw new Error('inner step fails');
        },
        { retryStrategy: retryPresets.noRetry },
      ),
    ),
  ),
  '3-5': withDurableExecution(async (text: string, ctx) => {
    try {
      await ctx.runInChildContext('child', async (child) =>
        child.step(
          async () => {
            throw new Error('inner step fails');
          },
          { retryStrategy: retryPresets.noRetry },
        ),
      );
    } catch {
      // Recovered below.
    }
    return ctx.step('recover', async () => text);
  }),
  '3-6': withDurableExecution(async (text: string, ctx) =>
    ctx.runInChildContext('outer', async (outer) => {
      await outer.step(async () => text);
      return outer.runInChildContext('inner', async (inner) => inner.step(async () => text));
    }),
  ),
  '3-7': withDurableExecution(async (text: string, ctx) =>
    ctx.runInChildContext('child', async (child) =>
      child.step(
        async (step) => {
          if (step.attempt === 1) throw new Error('first attempt fails');
          return text;
        },
        { retryStrategy: (_error, attempt) => ({ shouldRetry: attempt < 3, delay: aSecond }) },
      ),
    ),
  ),
  '3-8': withDurableExecution(async (_e: unknown, ctx) =>
    ctx.runInChildContext('child', async (child) =>
      child.step(
        async () => {
          throw new Error('always fails');
        },
        { retryStrategy: (_error, attempt) => ({ shouldRetry: attempt < 2, delay: aSecond }) },
      ),
    ),
  ),
  '3-9': withDurableExecution(async (text: string, ctx) => {
    const value = await ctx.runInChildContext('child', async (child) => child.step(async () => text));
    await ctx.wait(aSecond);
    return value;
  }),
  '3-10': withDurableExecution(async (text: string, ctx) =>
    ctx.runInChildContext('child', async (child) => {
      const value = await child.step(async () => text);
      await child.wait(aSecond);
      return value;
    }),
  ),
  '3-11': withDurableExecution(async (text: string, ctx) => {
    // Replay logging on: a re-executed child context logs again, observably.
    ctx.configureLogger({ modeAware: false });
    const big = await ctx.runInChildContext('child', async (child) => {
      // A child context's logger has its own mode (AWS's too): replay logging on here as well.
      child.configureLogger({ modeAware: false });
      child.logger.info(`building a large result for ${text}`);
      const seed = await child.step(async () => text);
      // Well past the size a checkpoint holds: the context's result is rebuilt on replay.
      return seed.repeat(Math.ceil(300_000 / Math.max(1, seed.length)));
    });
    await ctx.wait(aSecond);
    return big.length;
  }),
  '3-13': withDurableExecution(async (text: string, ctx) => {
    await ctx.runInChildContext('child', async (child) => {
      await child.wait(aSecond);
      return text;
    });
    return ctx.step('after', async () => text);
  }),
  '3-14': withDurableExecution(async (text: string, ctx) =>
    ctx.runInChildContext('child', async (child) => child.step(async () => text), { serdes: upperCaseText }),
  ),
  '3-15': withDurableExecution(async (_e: unknown, ctx) =>
    ctx.runInChildContext('child', async () => {
      throw new Error('thrown directly');
    }),
  ),
  '3-16': withDurableExecution(async (_e: unknown, ctx) => ctx.runInChildContext('child', async () => null)),
  '3-17': withDurableExecution(async (text: string, ctx) => {
    ctx.configureLogger({ modeAware: false });
    const value = await ctx.runInChildContext('child', async (child) => {
      child.logger.info(`child ran for ${text}`);
      return text;
    });
    await ctx.wait(aSecond);
    return value;
  }),
  '3-18': withDurableExecution(async (text: string, ctx) => {
    const value = await ctx.runInChildContext('child', async (child) => {
      const inner = await child.step(async () => text);
      await child.wait(aSecond);
      return inner;
    });
    const outer = await ctx.step('outer', async () => value);
    await ctx.wait(aSecond);
    return outer;
  }),
};
