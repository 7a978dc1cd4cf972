/** The wait-for-condition suite's handlers, written with our SDK from each requirement's description. */
import { createWaitStrategy, JitterStrategy, type Serdes } from '@durable-lambda/sdk';
import { withDurableExecution } from '../harness/durable';
import type { HandlerEntry } from '../harness/requirement';

/** Checks again after a fixed delay while `more(state)` holds. */
const every = <T>(more: (state: T) => boolean, seconds = 1, maxAttempts?: number) =>
  createWaitStrategy<T>({
    shouldContinuePolling: more,
    initialDelay: { seconds },
    backoffRate: 1,
    jitter: JitterStrategy.NONE,
    ...(maxAttempts === undefined ? {} : { maxAttempts }),
  });

/** Counts up from `from` until `to`. */
const countTo = (to: number, from = 0, name?: string) =>
  withDurableExecution(async (_e: unknown, ctx) => {
    const config = { initialState: from, waitStrategy: every<number>((n) => n < to) };
    const check = async (n: number) => n + 1;
    return name === undefined ? ctx.waitForCondition(check, config) : ctx.waitForCondition(name, check, config);
  });

/** The state stored reversed (and read back): a real, non-identity encoding. */
const reversed: Serdes<string> = {
  serialize: (value) => (value === undefined ? undefined : JSON.stringify([...value].reverse().join(''))),
  deserialize: (text) => (text === undefined ? undefined : [...(JSON.parse(text) as string)].reverse().join('')),
};

export const WAIT_FOR_CONDITION_HANDLERS: Record<string, HandlerEntry> = {
  '6-1': withDurableExecution(async (threshold: number, ctx) =>
    ctx.waitForCondition(async (n: number) => n + 1, {
      initialState: 0,
      waitStrategy: every<number>((n) => n < threshold),
    }),
  ),
  '6-2': withDurableExecution(async (threshold: number, ctx) =>
    ctx.waitForCondition(async (n: number) => n, {
      initialState: 5,
      waitStrategy: every<number>((n) => n < threshold),
    }),
  ),
  '6-3': countTo(2, 0, 'poll-status'),
  '6-4': withDurableExecution(async (threshold: number, ctx) =>
    ctx.waitForCondition(async (n: number) => n + 1, {
      initialState: 5,
      waitStrategy: every<number>((n) => n < threshold),
    }),
  ),
  '6-5': withDurableExecution(async (threshold: number, ctx) =>
    ctx.waitForCondition(async (n: number) => n + 1, {
      initialState: 0,
      waitStrategy: every<number>((n) => n < threshold, 2),
    }),
  ),
  '6-6': withDurableExecution(async (_start: number, ctx) =>
    ctx.waitForCondition(async (n: number) => n + 1, {
      initialState: 0,
      waitStrategy: every<number>(() => true, 1, 3),
    }),
  ),
  '6-7': withDurableExecution(async (_e: unknown, ctx) =>
    ctx.waitForCondition(
      async (): Promise<number> => {
        throw new Error('the status service is down');
      },
      { initialState: 0, waitStrategy: every<number>(() => true) },
    ),
  ),
  '6-8': withDurableExecution(async (_e: unknown, ctx) => {
    try {
      return await ctx.waitForCondition(
        async (): Promise<number> => {
          throw new Error('the status service is down');
        },
        { initialState: 0, waitStrategy: every<number>(() => true) },
      );
    } catch {
      return 'recovered';
    }
  }),
  '6-9': withDurableExecution(async (_e: unknown, ctx) =>
    ctx.waitForCondition(
      async (state: { status: string; attempts: number }) => {
        const attempts = state.attempts + 1;
        return { status: attempts >= 2 ? 'DONE' : 'PENDING', attempts };
      },
      { initialState: { status: 'PENDING', attempts: 0 }, waitStrategy: every((s) => s.status === 'PENDING') },
    ),
  ),
  '6-10': withDurableExecution(async (_e: unknown, ctx) =>
    ctx.waitForCondition(async (): Promise<null> => null, { initialState: null, waitStrategy: every(() => false) }),
  ),
  '6-11': withDurableExecution(async (_e: unknown, ctx) =>
    ctx.waitForCondition(async (s: string) => `${s}x`, {
      initialState: '',
      serdes: reversed,
      waitStrategy: every<string>((s) => s.length < 2),
    }),
  ),
  '6-12': withDurableExecution(async (threshold: number, ctx) => {
    const reached = await ctx.waitForCondition(async (n: number) => n + 1, {
      initialState: 0,
      waitStrategy: every<number>((n) => n < threshold),
    });
    return ctx.step('times-ten', async () => reached * 10);
  }),
  '6-13': withDurableExecution(async (_e: unknown, ctx) => {
    const first = await ctx.waitForCondition(async (n: number) => n + 1, {
      initialState: 0,
      waitStrategy: every<number>((n) => n < 2),
    });
    return ctx.waitForCondition(async (n: number) => n + 1, {
      initialState: first,
      waitStrategy: every<number>((n) => n < 4),
    });
  }),
};
