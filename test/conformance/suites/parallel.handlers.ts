/**
 * The parallel suite's handlers, written with our SDK from each requirement's description.
 * Branches run one at a time (`maxConcurrency: 1`) unless the requirement says otherwise.
 */
import { type BatchResult, type DurableContext, NestingType, type Serdes } from '@durable-lambda/sdk';
import { withDurableExecution } from '../harness/durable';
import type { HandlerEntry } from '../harness/requirement';

const oneByOne = { maxConcurrency: 1 };

/** What the requirements read of a batch result. */
const summary = (batch: BatchResult<unknown>) => ({
  completionReason: batch.completionReason,
  status: batch.status,
  successCount: batch.successCount,
  failureCount: batch.failureCount,
  totalCount: batch.totalCount,
});

/** Without the status: the projection some requirements return. */
const counts = (batch: BatchResult<unknown>) => {
  const { status: _status, ...rest } = summary(batch);
  return rest;
};

/** A branch returning `value` directly. */
const returns =
  <T>(value: T) =>
  async (_ctx: DurableContext) =>
    value;

/** A branch that fails. */
const fails = (message: string) => async (_ctx: DurableContext) => {
  throw new Error(message);
};

/** Writes a value as `{"wrapped":v}` and reads `v` back. */
const wrapping: Serdes<string> = {
  serialize: (value) => (value === undefined ? undefined : JSON.stringify({ wrapped: value })),
  deserialize: (text) => (text === undefined ? undefined : (JSON.parse(text) as { wrapped: string }).wrapped),
};

export const PARALLEL_HANDLERS: Record<string, HandlerEntry> = {
  '8-1': withDurableExecution(async (_e: unknown, ctx) => {
    const batch = await ctx.parallel(
      'parallel',
      [async (c) => c.step(async () => 'task-1'), async (c) => c.step(async () => 'task-2')],
      oneByOne,
    );
    return batch.getResults();
  }),
  '8-2': withDurableExecution(async (_e: unknown, ctx) =>
    (await ctx.parallel([returns('alpha'), returns('beta')], oneByOne)).getResults(),
  ),
  '8-3': withDurableExecution(async (_e: unknown, ctx) => {
    const batch = await ctx.parallel(
      'named',
      [
        { name: 'first', func: returns('one') },
        { name: 'second', func: returns('two') },
      ],
      oneByOne,
    );
    return batch.getResults();
  }),
  '8-4': withDurableExecution(async (_e: unknown, ctx) =>
    (await ctx.parallel<unknown>([returns('hello'), returns(42), returns({ k: 'v' })], oneByOne)).getResults(),
  ),
  '8-5': withDurableExecution(async (_e: unknown, ctx) => (await ctx.parallel<string>([])).getResults()),
  '8-6': withDurableExecution(async (_e: unknown, ctx) =>
    summary(
      await ctx.parallel([returns('ok'), fails('branch 1 fails'), returns('never')], {
        ...oneByOne,
        completionConfig: { toleratedFailureCount: 0 },
      }),
    ),
  ),
  '8-7': withDurableExecution(async (_e: unknown, ctx) => {
    const batch = await ctx.parallel([fails('branch 0 fails'), returns('never')], {
      ...oneByOne,
      completionConfig: { toleratedFailureCount: 0 },
    });
    batch.throwIfError();
    return batch.getResults();
  }),
  '8-8': withDurableExecution(async (_e: unknown, ctx) => {
    const { completionReason, successCount, totalCount } = summary(
      await ctx.parallel([returns('a'), returns('b'), returns('c'), returns('d')], {
        ...oneByOne,
        completionConfig: { minSuccessful: 2 },
      }),
    );
    return { completionReason, successCount, totalCount };
  }),
  '8-9': withDurableExecution(async (_e: unknown, ctx) =>
    summary(
      await ctx.parallel([returns('a'), fails('branch 1 fails'), returns('c')], {
        ...oneByOne,
        completionConfig: { toleratedFailureCount: 1 },
      }),
    ),
  ),
  '8-10': withDurableExecution(async (_e: unknown, ctx) =>
    counts(
      await ctx.parallel([fails('branch 0 fails'), fails('branch 1 fails'), returns('c')], {
        ...oneByOne,
        completionConfig: { toleratedFailureCount: 1 },
      }),
    ),
  ),
  '8-11': withDurableExecution(async (_e: unknown, ctx) =>
    (await ctx.parallel([returns('r0'), returns('r1'), returns('r2')], { maxConcurrency: 2 })).getResults(),
  ),
  '8-12': withDurableExecution(async (_e: unknown, ctx) => {
    const batch = await ctx.parallel([async (c) => c.step(async () => 'fa'), async (c) => c.step(async () => 'fb')], {
      ...oneByOne,
      nesting: NestingType.FLAT,
    });
    return batch.getResults();
  }),
  '8-13': withDurableExecution(async (_e: unknown, ctx) =>
    counts(
      await ctx.parallel([fails('branch 0 fails'), fails('branch 1 fails'), returns('c'), returns('d')], {
        ...oneByOne,
        completionConfig: { toleratedFailurePercentage: 25 },
      }),
    ),
  ),
  '8-14': withDurableExecution(async (_e: unknown, ctx) => {
    const batch = await ctx.parallel(
      [
        async (c) => c.step(async () => 'b0'),
        async (c) => {
          await c.wait({ seconds: 2 });
          return 'b1';
        },
      ],
      oneByOne,
    );
    return batch.getResults();
  }),
  '8-15': withDurableExecution(async (_e: unknown, ctx) =>
    (await ctx.parallel([returns('x'), returns('y')], { ...oneByOne, itemSerdes: wrapping })).getResults(),
  ),
  '8-16': withDurableExecution(async (_e: unknown, ctx) =>
    summary(
      await ctx.parallel([fails('0 fails'), fails('1 fails'), fails('2 fails')], {
        ...oneByOne,
        completionConfig: { toleratedFailureCount: 3 },
      }),
    ),
  ),
  '8-17': withDurableExecution(async (_e: unknown, ctx) =>
    summary(
      await ctx.parallel([returns('a'), fails('branch 1 fails'), returns('c')], {
        ...oneByOne,
        completionConfig: { minSuccessful: 3 },
      }),
    ),
  ),
  '8-18': withDurableExecution(async (_e: unknown, ctx) =>
    counts(
      await ctx.parallel([fails('0 fails'), fails('1 fails'), returns('c'), returns('d')], {
        ...oneByOne,
        completionConfig: { minSuccessful: 3, toleratedFailureCount: 1 },
      }),
    ),
  ),
  '8-19': withDurableExecution(async (_e: unknown, ctx) =>
    (await ctx.parallel([returns('a'), returns('b')], { maxConcurrency: 0 })).getResults(),
  ),
  '8-20': withDurableExecution(async (_e: unknown, ctx) => {
    const batch = await ctx.parallel([returns('a'), fails('branch 1 fails'), returns('c')], {
      ...oneByOne,
      completionConfig: { toleratedFailureCount: 1 },
    });
    return {
      hasFailure: batch.hasFailure,
      successCount: batch.succeeded().length,
      failureCount: batch.failed().length,
      errorCount: batch.getErrors().length,
    };
  }),
  '8-21': withDurableExecution(async (_e: unknown, ctx) => {
    const outer = await ctx.parallel(
      [
        async (branch) =>
          (
            await branch.parallel(
              [async (c) => c.step(async () => 'i1'), async (c) => c.step(async () => 'i2')],
              oneByOne,
            )
          ).getResults(),
      ],
      oneByOne,
    );
    return outer.getResults();
  }),
  '8-22': withDurableExecution(async (_e: unknown, ctx) =>
    summary(
      await ctx.parallel([fails('branch 0 fails'), returns('b'), returns('c'), returns('d')], {
        ...oneByOne,
        completionConfig: { toleratedFailurePercentage: 25 },
      }),
    ),
  ),
};
