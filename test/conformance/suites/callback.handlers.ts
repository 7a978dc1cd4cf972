/**
 * The callback suite's handlers, written with our SDK from each requirement's description. The
 * callback's name is the run's input (or an element of it) unless the requirement names it.
 */
import type { CreateCallbackConfig, DurableContext } from '@durable-lambda/sdk';
import { withDurableExecution } from '../harness/durable';
import type { HandlerEntry } from '../harness/requirement';

/** Waits for one callback named `name` and returns what it was completed with. */
const awaitOne = (config?: CreateCallbackConfig<string>) =>
  withDurableExecution(async (name: string, ctx) => {
    const [result] = await ctx.createCallback<string>(name, config);
    return result;
  });

/** Creates a callback, does `between`, then waits for the callback. */
const thenAwait = (between: (ctx: DurableContext) => Promise<unknown>, config?: { timeout: { seconds: number } }) =>
  withDurableExecution(async (name: string, ctx) => {
    const [result] = await ctx.createCallback<string>(name, config);
    await between(ctx);
    return result;
  });

export const CALLBACK_HANDLERS: Record<string, HandlerEntry> = {
  '4-1': awaitOne(),
  '4-2': withDurableExecution(async (_e: unknown, ctx) => {
    const [result] = await ctx.createCallback<string>('approval');
    return result;
  }),
  '4-3': awaitOne({ timeout: { seconds: 5 } }),
  '4-4': awaitOne({ heartbeatTimeout: { seconds: 5 } }),
  '4-5': awaitOne({ heartbeatTimeout: { seconds: 10 } }),
  '4-6': awaitOne(),
  '4-7': thenAwait((ctx) => ctx.step('between', async () => 'step done')),
  '4-8': thenAwait((ctx) => ctx.step('between', async () => 'step done'), { timeout: { seconds: 5 } }),
  '4-9': thenAwait((ctx) => ctx.wait({ seconds: 5 })),
  '4-10': thenAwait((ctx) => ctx.wait({ seconds: 5 })),
  '4-11': thenAwait((ctx) => ctx.wait({ seconds: 6 }), { timeout: { seconds: 3 } }),
  '4-12': withDurableExecution(async (name: string, ctx) => {
    const [promise] = await ctx.createCallback<string>(name);
    const result = await promise;
    await ctx.wait({ seconds: 2 });
    return result;
  }),
  '4-13': withDurableExecution(async (name: string, ctx) => {
    const [promise] = await ctx.createCallback<string>(name);
    let message: string;
    try {
      message = `got ${await promise}`;
    } catch (error) {
      message = `callback failed: ${(error as Error).message}`;
    }
    await ctx.wait({ seconds: 2 });
    return message;
  }),
  '4-14': withDurableExecution(async (name: string, ctx) => {
    const [promise] = await ctx.createCallback<string>(name, { timeout: { seconds: 3 } });
    let message: string;
    try {
      message = `got ${await promise}`;
    } catch (error) {
      message = `callback timed out: ${(error as Error).message}`;
    }
    await ctx.wait({ seconds: 2 });
    return message;
  }),
  '4-15': withDurableExecution(async (name: string, ctx) => {
    const [promise] = await ctx.createCallback<{ id: string; message: string; timestamp: number }>(name, {
      serdes: {
        deserialize: (text) => {
          if (text === undefined) return undefined;
          const raw = JSON.parse(text) as { id: string; message: string; timestamp: string };
          return { id: raw.id, message: raw.message, timestamp: Date.parse(raw.timestamp) / 1000 };
        },
      },
    });
    return { received: await promise };
  }),
  '4-16': withDurableExecution(async (name: string, ctx) => {
    const [promise] = await ctx.createCallback<number>(name, {
      serdes: { deserialize: (text) => (text === undefined ? undefined : Number(JSON.parse(text))) },
    });
    const count = await promise;
    return { count, doubled: count * 2 };
  }),
  '4-17': withDurableExecution(async ([a, b]: [string, string], ctx) => {
    const [first] = await ctx.createCallback<string>(a);
    const resultA = await first;
    const [second] = await ctx.createCallback<string>(b);
    return { a: resultA, b: await second };
  }),
  '4-18': withDurableExecution(async ([a, b]: [string, string], ctx) => {
    const [first] = await ctx.createCallback<string>(a);
    const [second] = await ctx.createCallback<string>(b);
    const resultA = await first;
    return { a: resultA, b: await second };
  }),
  '4-19': withDurableExecution(async ([a, b]: [string, string], ctx) => {
    const [first] = await ctx.createCallback<string>(a);
    const [second] = await ctx.createCallback<string>(b);
    const resultB = await second;
    return { a: await first, b: resultB };
  }),
};
