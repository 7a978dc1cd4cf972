/**
 * The map suite's handlers, written with our SDK from each requirement's description. Items run
 * one at a time (`maxConcurrency: 1`) unless the requirement says otherwise, so the history is
 * deterministic.
 */
import { type BatchResult, NestingType, type Serdes } from '@durable-lambda/sdk';
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

/** Writes a list of strings as `OPSERDE:` and the items joined by commas; reads it back. */
const joinedSerdes: Serdes<BatchResult<string>> = {
  serialize: (batch) => (batch === undefined ? undefined : `OPSERDE:${batch.getResults().join(',')}`),
  deserialize: (text) => {
    if (text === undefined) return undefined;
    const results = text.replace(/^OPSERDE:/, '').split(',');
    return { getResults: () => results } as unknown as BatchResult<string>;
  },
};

/** Items' results written as `wrapped:<value>` and read back: a real, non-identity round trip. */
const wrappedItems: Serdes<string> = {
  serialize: (value) => (value === undefined ? undefined : `wrapped:${value}`),
  deserialize: (text) => text?.replace(/^wrapped:/, ''),
};

const fail = (message: string): never => {
  throw new Error(message);
};

export const MAP_HANDLERS: Record<string, HandlerEntry> = {
  '9-1': withDurableExecution(async (names: string[], ctx) => {
    const batch = await ctx.map('map', names, async (item, name) => item.step(async () => `Hello, ${name}!`), oneByOne);
    return batch.getResults();
  }),
  '9-2': withDurableExecution(async (numbers: number[], ctx) => {
    const batch = await ctx.map(numbers, async (_item, n) => n * 2, oneByOne);
    return batch.getResults();
  }),
  '9-3': withDurableExecution(async (numbers: number[], ctx) => {
    const batch = await ctx.map(numbers, async (_item, n, index) => n + index, oneByOne);
    return batch.getResults();
  }),
  '9-4': withDurableExecution(async (items: unknown[], ctx) => {
    const batch = await ctx.map(items, async (_item, value) => value);
    return batch.getResults();
  }),
  '9-5': withDurableExecution(async (_e: unknown, ctx) => {
    const batch = await ctx.map(
      ['a', 'b', 'c'],
      async (_item, _v, index) => (index === 1 ? fail('item 1 fails') : 'ok'),
      { ...oneByOne, completionConfig: { toleratedFailureCount: 0 } },
    );
    return summary(batch);
  }),
  '9-6': withDurableExecution(async (_e: unknown, ctx) => {
    const batch = await ctx.map(['a', 'b'], async (_item, _v, index) => (index === 0 ? fail('item 0 fails') : 'ok'), {
      ...oneByOne,
      completionConfig: { toleratedFailureCount: 0 },
    });
    batch.throwIfError();
    return batch.getResults();
  }),
  '9-7': withDurableExecution(async (_e: unknown, ctx) => {
    const batch = await ctx.map(['a', 'b', 'c', 'd'], async () => 'done', {
      ...oneByOne,
      completionConfig: { minSuccessful: 2 },
    });
    const { completionReason, successCount, totalCount } = summary(batch);
    return { completionReason, successCount, totalCount };
  }),
  '9-8': withDurableExecution(async (_e: unknown, ctx) => {
    const batch = await ctx.map(
      ['a', 'b', 'c'],
      async (_item, _v, index) => (index === 1 ? fail('item 1 fails') : 'ok'),
      { ...oneByOne, completionConfig: { toleratedFailureCount: 1 } },
    );
    return summary(batch);
  }),
  '9-9': withDurableExecution(async (_e: unknown, ctx) => {
    const batch = await ctx.map(
      ['a', 'b', 'c'],
      async (_item, _v, index) => (index < 2 ? fail(`item ${index} fails`) : 'ok'),
      { ...oneByOne, completionConfig: { toleratedFailureCount: 1 } },
    );
    const { completionReason, successCount, failureCount, totalCount } = summary(batch);
    return { completionReason, successCount, failureCount, totalCount };
  }),
  '9-10': withDurableExecution(async (_e: unknown, ctx) => {
    const batch = await ctx.map(
      ['a', 'b', 'c', 'd'],
      async (_item, _v, index) => (index < 2 ? fail(`item ${index} fails`) : 'ok'),
      { ...oneByOne, completionConfig: { toleratedFailurePercentage: 25 } },
    );
    const { completionReason, successCount, failureCount, totalCount } = summary(batch);
    return { completionReason, successCount, failureCount, totalCount };
  }),
  '9-11': withDurableExecution(async (_e: unknown, ctx) => {
    const batch = await ctx.map([0, 1, 2], async (_item, n) => `r${n}`, { maxConcurrency: 2 });
    return batch.getResults();
  }),
  '9-12': withDurableExecution(async (_e: unknown, ctx) => {
    const batch = await ctx.map(['fa', 'fb'], async (item, value) => item.step(async () => value), {
      ...oneByOne,
      nesting: NestingType.FLAT,
    });
    return batch.getResults();
  }),
  '9-13': withDurableExecution(async (numbers: number[], ctx) => {
    const batch = await ctx.map('named-items', numbers, async (_item, n) => n * 10, {
      ...oneByOne,
      itemNamer: (n) => `item-${n}`,
    });
    return batch.getResults();
  }),
  '9-14': withDurableExecution(async (_e: unknown, ctx) => {
    const batch = await ctx.map(['x', 'y'], async (_item, s) => s.toUpperCase(), {
      ...oneByOne,
      itemSerdes: wrappedItems,
    });
    return batch.getResults();
  }),
  '9-15': withDurableExecution(async (_e: unknown, ctx) => {
    const batch = await ctx.map(
      [0, 1],
      async (item, n) => {
        if (n === 1) await item.wait({ seconds: 1 });
        return item.step(async () => `r${n}`);
      },
      oneByOne,
    );
    return batch.getResults();
  }),
  '9-16': withDurableExecution(async (_e: unknown, ctx) => {
    const batch = await ctx.map([0, 1, 2, 3], async (_item, n) => String(n).repeat(70_000), oneByOne);
    return { successCount: batch.successCount, totalCount: batch.totalCount };
  }),
  '9-17': withDurableExecution(async (_e: unknown, ctx) => {
    const batch = await ctx.map(['a', 'b'], async (_item, s) => s.toUpperCase(), oneByOne);
    await ctx.wait({ seconds: 1 });
    return batch.getResults();
  }),
  '9-18': withDurableExecution(async (_e: unknown, ctx) => {
    const batch = await ctx.map(['a', 'b'], async (_item, _v, index) => (index === 1 ? fail('item 1 fails') : 'ok'), {
      ...oneByOne,
      completionConfig: { toleratedFailureCount: 1 },
    });
    await ctx.wait({ seconds: 1 });
    return summary(batch);
  }),
  '9-19': withDurableExecution(async (_e: unknown, ctx) => {
    const batch = await ctx.map(['x', 'y'], async (_item, s) => s.toUpperCase(), {
      ...oneByOne,
      serdes: joinedSerdes,
    });
    return batch.getResults();
  }),
  '9-20': withDurableExecution(async (_e: unknown, ctx) => {
    const batch = await ctx.map(['x', 'y'], async (_item, s) => s.toUpperCase(), {
      ...oneByOne,
      serdes: joinedSerdes,
    });
    await ctx.wait({ seconds: 1 });
    return batch.getResults();
  }),
};
