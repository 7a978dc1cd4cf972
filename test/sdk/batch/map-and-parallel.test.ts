import { LocalDurableTestRunner } from '@durable-lambda/local';
import {
  BatchCompletionError,
  type BatchResult,
  ChildContextError,
  CompletionOutcome,
  completeBatch,
  continueBatch,
  type DurableContext,
  InvalidArgumentError,
  NestingType,
  type Serdes,
  withDurableExecution,
} from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { Harness } from '../../support/harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Everything observable about a BatchResult, as plain data (errors by class, message, type, code; AWS's errorType is the class). */
function summarize(result: BatchResult<unknown>) {
  const error = (e: ChildContextError | undefined) =>
    e && { class: e.constructor.name, message: e.message, errorType: e.errorType, code: e.code };
  return {
    all: result.all.map((item) => ({
      index: item.index,
      status: item.status,
      result: item.result,
      error: error(item.error),
    })),
    completionReason: result.completionReason,
    status: result.status,
    hasFailure: result.hasFailure,
    successCount: result.successCount,
    failureCount: result.failureCount,
    startedCount: result.startedCount,
    totalCount: result.totalCount,
    results: result.getResults(),
    errors: result.getErrors().map(error),
    succeeded: result.succeeded().map((i) => i.index),
    failed: result.failed().map((i) => i.index),
    started: result.started().map((i) => i.index),
  };
}

async function run<T>(handler: (event: unknown, ctx: DurableContext) => Promise<T>) {
  const runner = new LocalDurableTestRunner({ handlerFunction: withDurableExecution(handler) });
  const result = await runner.run();
  return { runner, result };
}

class Declined extends Error {
  code = 'card_declined';
  constructor(message = 'declined') {
    super(message);
    this.name = 'Declined';
  }
}

describe('map', () => {
  it('returns results in item order, each item in its own MapIteration context under one Map context', async () => {
    const { runner, result } = await run(async (_e, ctx) => {
      const batch = await ctx.map('double', [30, 10, 20], (c, item) =>
        c.step('work', async () => {
          await sleep(item / 5); // later items finish first
          return item * 2;
        }),
      );
      return summarize(batch);
    });
    expect(result.getStatus()).toBe('SUCCEEDED');
    const s = result.getResult() as ReturnType<typeof summarize>;
    expect(s.results).toEqual([60, 20, 40]);
    expect(s.all.map((i) => i.index)).toEqual([0, 1, 2]);
    expect(s).toMatchObject({ completionReason: 'ALL_COMPLETED', status: 'SUCCEEDED', totalCount: 3, successCount: 3 });

    const map = runner.getOperation('double').getOperationData();
    expect(map).toMatchObject({ Id: '1', Type: 'CONTEXT', SubType: 'Map', Status: 'SUCCEEDED' });
    const items = runner
      .getOperation('double')
      .getChildOperations()!
      .map((o) => o.getOperationData()!);
    expect(items.map((o) => [o.Id, o.Name, o.SubType, o.ContextDetails?.Result])).toEqual([
      ['1-1', 'map-item-0', 'MapIteration', '60'],
      ['1-2', 'map-item-1', 'MapIteration', '20'],
      ['1-3', 'map-item-2', 'MapIteration', '40'],
    ]);
  });

  it('accepts (items, fn) without a name, names items with itemNamer and passes (ctx, item, index, items)', async () => {
    const seen: unknown[] = [];
    const { runner, result } = await run(async (_e, ctx) => {
      const items = ['a', 'b'];
      const batch = await ctx.map(
        items,
        async (c, item, index, all) => {
          seen.push([item, index, all]);
          return c.step(async () => `${item}${index}`);
        },
        { itemNamer: (item: string, index: number) => `user-${item}-${index}` },
      );
      return batch.getResults();
    });
    expect(result.getResult()).toEqual(['a0', 'b1']);
    expect(seen).toEqual([
      ['a', 0, ['a', 'b']],
      ['b', 1, ['a', 'b']],
    ]);
    expect(runner.getOperationByIndex(0).getOperationData()).toMatchObject({ Id: '1', SubType: 'Map' });
    expect(runner.getOperationByIndex(0).getName()).toBeUndefined();
    expect(runner.getOperation('user-b-1').getId()).toBe('1-2');
  });

  it('never has more item bodies in flight than maxConcurrency', async () => {
    const peakWith = async (maxConcurrency: number | undefined) => {
      let inFlight = 0;
      let peak = 0;
      const { result } = await run(async (_e, ctx) => {
        const batch = await ctx.map(
          [1, 2, 3, 4, 5, 6, 7, 8],
          async (c, item) => {
            inFlight++;
            peak = Math.max(peak, inFlight);
            try {
              return await c.step('work', async () => {
                await sleep(2 + (item % 3));
                return item;
              });
            } finally {
              inFlight--;
            }
          },
          maxConcurrency === undefined ? {} : { maxConcurrency },
        );
        return batch.getResults();
      });
      expect(result.getResult()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      return peak;
    };
    expect(await peakWith(3)).toBe(3);
    expect(await peakWith(1)).toBe(1);
    expect(await peakWith(undefined)).toBe(8);
  });

  it('lets suspended items hold their slots: the run suspends and resumes them, then starts the next ones', async () => {
    const countInvocations = async (maxConcurrency: number | undefined) => {
      const { result } = await run(async (_e, ctx) => {
        const batch = await ctx.map(
          [0, 1, 2, 3, 4],
          async (c, item) => {
            await c.wait({ seconds: 10 });
            return c.step('after', async () => item * 10);
          },
          maxConcurrency === undefined ? {} : { maxConcurrency },
        );
        return batch.getResults();
      });
      expect(result.getStatus()).toBe('SUCCEEDED');
      expect(result.getResult()).toEqual([0, 10, 20, 30, 40]);
      return result.getInvocationCount();
    };
    // Slots {0,1}, then {2,3}, then {4}: three rounds of waits, then the end.
    expect(await countInvocations(2)).toBe(4);
    expect(await countInvocations(undefined)).toBe(2);
  });

  it('resumes after a suspension in the middle: completed items do not run again, waiting ones continue', async () => {
    const bodyCalls = [0, 0, 0, 0];
    const stepCalls: Record<string, number> = {};
    const step = (c: DurableContext, key: string) =>
      c.step(key, async () => {
        stepCalls[key] = (stepCalls[key] ?? 0) + 1;
        return key;
      });
    const { result } = await run(async (_e, ctx) => {
      const batch = await ctx.map([0, 1, 2, 3], async (c, item) => {
        bodyCalls[item] = (bodyCalls[item] ?? 0) + 1;
        const first = await step(c, `first-${item}`);
        if (item % 2 === 0) return first;
        await c.wait({ seconds: 30 });
        return `${first}+${await step(c, `second-${item}`)}`;
      });
      return batch.getResults();
    });
    expect(result.getResult()).toEqual(['first-0', 'first-1+second-1', 'first-2', 'first-3+second-3']);
    expect(result.getInvocationCount()).toBe(2);
    expect(bodyCalls).toEqual([1, 2, 1, 2]);
    expect(Object.values(stepCalls).every((n) => n === 1)).toBe(true);
    expect(Object.keys(stepCalls)).toHaveLength(6);
  });

  it('gives every item the id of its index, even when items finish out of order across invocations', async () => {
    const { runner, result } = await run(async (_e, ctx) => {
      const batch = await ctx.map(
        'm',
        [3600, 0, 0, 10],
        async (c, seconds, index) => {
          if (seconds > 0) await c.wait({ seconds });
          return c.step('s', async () => index);
        },
        { maxConcurrency: 2 },
      );
      return batch.getResults();
    });
    expect(result.getResult()).toEqual([0, 1, 2, 3]);
    // Item 3 waited in the slot item 2 freed, and finished long before item 0.
    expect(result.getInvocationCount()).toBe(3);
    const items = runner
      .getOperation('m')
      .getChildOperations()!
      .map((o) => o.getStoredOperation());
    expect(items.map((o) => [o.Id, o.Name])).toEqual([
      ['1-1', 'map-item-0'],
      ['1-2', 'map-item-1'],
      ['1-3', 'map-item-2'],
      ['1-4', 'map-item-3'],
    ]);
    expect(items[3]?.EndTimestamp).toBeLessThan(items[0]?.EndTimestamp ?? 0);
  });

  it('replays a finished map to an identical BatchResult (the first run reads it back from its record too)', async () => {
    const seen: Array<ReturnType<typeof summarize>> = [];
    const { result } = await run(async (_e, ctx) => {
      const batch = await ctx.map(
        [0, 1, 2, 3],
        async (c, item) =>
          c.step(
            'work',
            async () => {
              if (item === 2) throw new Declined(`item ${item} declined`);
              return { item, at: new Date(Date.UTC(2026, 0, item + 1)), dropped: undefined };
            },
            { retryStrategy: () => ({ shouldRetry: false }) },
          ),
        { completionConfig: { toleratedFailureCount: 1 } },
      );
      seen.push(summarize(batch));
      await ctx.wait({ seconds: 5 });
      return 'done';
    });
    expect(result.getResult()).toBe('done');
    expect(seen).toHaveLength(2);
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[0]).toMatchObject({
      completionReason: 'ALL_COMPLETED',
      status: 'FAILED',
      hasFailure: true,
      successCount: 3,
      failureCount: 1,
      failed: [2],
    });
    // Round-tripped on the first run already: the Date came back as its JSON string.
    expect(seen[0]?.all[0]?.result).toEqual({ item: 0, at: '2026-01-01T00:00:00.000Z' });
    expect(seen[0]?.all[2]?.error).toEqual({
      class: 'ChildContextError',
      message: 'item 2 declined',
      errorType: 'ChildContextError',
      code: 'card_declined',
    });
  });

  it('keeps item results in the items’ records when the summary would be too large, with the same result', async () => {
    const seen: Array<ReturnType<typeof summarize>> = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      const batch = await ctx.map(
        [0, 1, 2, 3, 4, 5],
        async (c, item) =>
          c.step(
            async () => {
              if (item === 4) throw new Declined();
              return `${item}`.repeat(100);
            },
            { retryStrategy: () => ({ shouldRetry: false }) },
          ),
        { completionConfig: { toleratedFailureCount: 5 }, summaryGenerator: (r) => `${r.successCount} ok` },
      );
      seen.push(summarize(batch));
      await ctx.wait({ seconds: 1 });
      return batch.successCount;
    });
    const h = new Harness(handler, { maxPayloadBytes: 600 });
    await h.start();
    const n = await h.runToEnd();
    expect(n).toBe(2);
    expect((await h.run())?.result).toBe('5');
    const stored = JSON.parse((await h.op('1'))?.ContextDetails?.Result ?? '{}');
    expect(stored).toMatchObject({ type: 'MapResult', resultsInItems: true, summary: '5 ok', successCount: 5 });
    expect(stored.items[0]).toEqual({ index: 0, status: 'SUCCEEDED' });
    expect(seen).toHaveLength(2);
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[0]?.results).toEqual(['0', '1', '2', '3', '5'].map((d) => d.repeat(100)));
    expect(seen[0]?.errors).toEqual([
      { class: 'ChildContextError', message: 'declined', errorType: 'ChildContextError', code: 'card_declined' },
    ]);
  });

  it('stores item results through itemSerdes', async () => {
    const hex: Serdes<number> = {
      serialize: (value) => (value === undefined ? undefined : `0x${value.toString(16)}`),
      deserialize: (data) => (data === undefined ? undefined : Number.parseInt(data.slice(2), 16)),
    };
    const seen: unknown[] = [];
    const { runner, result } = await run(async (_e, ctx) => {
      const batch = await ctx.map('m', [255, 16], async (c, item) => c.step(async () => item), { itemSerdes: hex });
      seen.push(batch.getResults());
      await ctx.wait({ seconds: 1 });
      return 'ok';
    });
    expect(result.getResult()).toBe('ok');
    expect(seen).toEqual([
      [255, 16],
      [255, 16],
    ]);
    expect(runner.getOperation('map-item-0').getOperationData()?.ContextDetails?.Result).toBe('0xff');
  });

  it('accepts AWS’s batch options: a custom BatchResult serdes (methods restored) and nesting', async () => {
    const seen: unknown[] = [];
    const { runner, result } = await run(async (_e, ctx) => {
      const batch = await ctx.map('custom', [1, 2], async (c, item) => c.step(async () => item * 3), {
        nesting: NestingType.FLAT,
        serdes: {
          serialize: (r) => (r === undefined ? undefined : JSON.stringify({ mine: true, ...r })),
          deserialize: (data) => (data === undefined ? undefined : JSON.parse(data)),
        },
      });
      seen.push([batch.getResults(), batch.completionReason, batch.totalCount, batch.status]);
      await ctx.wait({ seconds: 1 });
      return 'ok';
    });
    expect(result.getResult()).toBe('ok');
    expect(seen).toEqual([
      [[3, 6], 'ALL_COMPLETED', 2, 'SUCCEEDED'],
      [[3, 6], 'ALL_COMPLETED', 2, 'SUCCEEDED'],
    ]);
    expect(runner.getOperation('custom').getContextDetails()?.result).toMatchObject({ mine: true });
  });

  it('completes early once minSuccessful items succeeded: later items never start', async () => {
    const started: number[] = [];
    const { result } = await run(async (_e, ctx) => {
      const batch = await ctx.map(
        [0, 1, 2, 3, 4, 5],
        async (c, item) => {
          started.push(item);
          return c.step(async () => item);
        },
        { maxConcurrency: 1, completionConfig: { minSuccessful: 2 } },
      );
      return summarize(batch);
    });
    expect(started).toEqual([0, 1]);
    expect(result.getResult()).toMatchObject({
      completionReason: 'MIN_SUCCESSFUL_REACHED',
      status: 'SUCCEEDED',
      results: [0, 1],
      totalCount: 2,
    });
  });

  it('lists items still in flight at an early completion as STARTED, the same on replay', async () => {
    const seen: Array<ReturnType<typeof summarize>> = [];
    const { result } = await run(async (_e, ctx) => {
      const batch = await ctx.map(
        ['fast', 'slow'],
        async (c, item) => {
          if (item === 'slow') await c.wait({ hours: 1 });
          return c.step(async () => item);
        },
        { completionConfig: { minSuccessful: 1 } },
      );
      seen.push(summarize(batch));
      await ctx.wait({ seconds: 1 });
      return 'done';
    });
    expect(result.getResult()).toBe('done');
    expect(seen).toHaveLength(2);
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[0]).toMatchObject({
      completionReason: 'MIN_SUCCESSFUL_REACHED',
      started: [1],
      startedCount: 1,
      totalCount: 2,
      results: ['fast'],
    });
  });

  const failing = (failures: number[], config: object) =>
    run(async (_e, ctx) => {
      const started: number[] = [];
      const batch = await ctx.map(
        [0, 1, 2, 3, 4],
        async (c, item) => {
          started.push(item);
          return c.step(
            async () => {
              if (failures.includes(item)) throw new Declined(`item ${item}`);
              return item;
            },
            { retryStrategy: () => ({ shouldRetry: false }) },
          );
        },
        { maxConcurrency: 1, ...config },
      );
      return { ...summarize(batch), startedItems: started };
    }).then(({ result }) => result.getResult() as ReturnType<typeof summarize> & { startedItems: number[] });

  it('fails fast by default: the first failure stops the batch (as AWS’s SDK does)', async () => {
    for (const config of [{}, { completionConfig: {} }]) {
      const s = await failing([1, 3], config);
      expect(s.startedItems).toEqual([0, 1]);
      expect(s).toMatchObject({ completionReason: 'FAILURE_TOLERANCE_EXCEEDED', status: 'FAILED', failed: [1] });
    }
  });

  it('stops once failures exceed toleratedFailureCount, not before', async () => {
    const within = await failing([0, 1, 2], { completionConfig: { toleratedFailureCount: 3 } });
    expect(within.startedItems).toEqual([0, 1, 2, 3, 4]);
    expect(within).toMatchObject({ completionReason: 'ALL_COMPLETED', status: 'FAILED', failureCount: 3 });

    const over = await failing([0, 1, 2], { completionConfig: { toleratedFailureCount: 2 } });
    expect(over.startedItems).toEqual([0, 1, 2]);
    expect(over).toMatchObject({ completionReason: 'FAILURE_TOLERANCE_EXCEEDED', failureCount: 3, totalCount: 3 });

    const none = await failing([4], { completionConfig: { toleratedFailureCount: 0 } });
    expect(none).toMatchObject({ completionReason: 'FAILURE_TOLERANCE_EXCEEDED', successCount: 4, failureCount: 1 });
  });

  it('stops once the failed share of all items exceeds toleratedFailurePercentage, not at it', async () => {
    // 1 of 5 items failed = 20 %.
    const at = await failing([0], { completionConfig: { toleratedFailurePercentage: 20 } });
    expect(at).toMatchObject({ completionReason: 'ALL_COMPLETED', totalCount: 5, failureCount: 1 });
    const over = await failing([0], { completionConfig: { toleratedFailurePercentage: 19.9 } });
    expect(over).toMatchObject({ completionReason: 'FAILURE_TOLERANCE_EXCEEDED', totalCount: 1 });
    expect(over.startedItems).toEqual([0]);
  });

  it('tolerates any number of failures when only minSuccessful is set (AWS’s rule)', async () => {
    const s = await failing([0, 1], { completionConfig: { minSuccessful: 2 } });
    expect(s.startedItems).toEqual([0, 1, 2, 3]);
    expect(s).toMatchObject({ completionReason: 'MIN_SUCCESSFUL_REACHED', successCount: 2, failureCount: 2 });
    // Reaching it with the last item is ALL_COMPLETED: AWS checks "all done" first.
    const last = await failing([0, 1, 2], { completionConfig: { minSuccessful: 2 } });
    expect(last).toMatchObject({ completionReason: 'ALL_COMPLETED', successCount: 2, failureCount: 3 });
  });

  it('throwIfError throws the first failed item’s ChildContextError; getErrors lists them all', async () => {
    const { result } = await run(async (_e, ctx) => {
      const batch = await ctx.map(
        [0, 1, 2],
        async (c, item) =>
          c.step(
            async () => {
              if (item > 0) throw new Declined(`no ${item}`);
              return item;
            },
            { retryStrategy: () => ({ shouldRetry: false }) },
          ),
        { completionConfig: { toleratedFailureCount: 5 } },
      );
      const ok = await ctx.map([1], async (c, item) => c.step(async () => item));
      ok.throwIfError();
      try {
        batch.throwIfError();
        return 'no throw';
      } catch (error) {
        const e = error as ChildContextError;
        return {
          isChildContextError: e instanceof ChildContextError,
          message: e.message,
          errorType: e.errorType,
          code: e.code,
          same: e === batch.getErrors()[0],
          errors: batch.getErrors().map((x) => x.message),
        };
      }
    });
    expect(result.getResult()).toEqual({
      isChildContextError: true,
      message: 'no 1',
      errorType: 'ChildContextError',
      code: 'card_declined',
      same: true,
      errors: ['no 1', 'no 2'],
    });
  });

  it('an uncaught throwIfError fails the run with the item’s error', async () => {
    const { result } = await run(async (_e, ctx) => {
      const batch = await ctx.map([0], async () => {
        throw new Declined('bad item');
      });
      batch.throwIfError();
      return 'unreachable';
    });
    expect(result.getStatus()).toBe('FAILED');
    expect(result.getError()).toMatchObject({ errorMessage: 'bad item' });
  });

  it('supports a custom shouldComplete predicate with an outcome', async () => {
    const { result } = await run(async (_e, ctx) => {
      const branchesSeen: unknown[] = [];
      const quorum = await ctx.parallel(
        [{ name: 'primary', func: async (c) => c.step(async () => 'p') }, async (c) => c.step(async () => 's')],
        {
          maxConcurrency: 1,
          completionConfig: {
            shouldComplete: (s) => {
              branchesSeen.push(s.items.map((i) => [i.index, i.name, i.status]));
              return s.items[0]?.status === 'SUCCEEDED' ? completeBatch() : continueBatch();
            },
          },
        },
      );
      const failed = await ctx.map([1, 2], async (c, i) => c.step(async () => i), {
        completionConfig: { shouldComplete: () => completeBatch(CompletionOutcome.FAILED) },
      });
      let thrown: unknown;
      try {
        failed.throwIfError();
      } catch (error) {
        thrown = error;
      }
      return {
        quorum: [quorum.completionReason, quorum.status, quorum.getResults()],
        seenFirst: branchesSeen[0],
        failed: [failed.completionReason, failed.status, failed.totalCount],
        thrown: thrown instanceof BatchCompletionError ? (thrown as BatchCompletionError).code : String(thrown),
      };
    });
    expect(result.getResult()).toEqual({
      quorum: ['CUSTOM_COMPLETION_SUCCEEDED', 'SUCCEEDED', ['p']],
      seenFirst: [
        [0, 'primary', null],
        [1, null, null],
      ],
      failed: ['CUSTOM_COMPLETION_FAILED', 'FAILED', 0],
      thrown: 'batch_failed',
    });
  });

  it('handles an empty items array: ALL_COMPLETED, nothing runs', async () => {
    let calls = 0;
    const { runner, result } = await run(async (_e, ctx) => {
      const m = await ctx.map('none', [], async () => {
        calls++;
        return 1;
      });
      const p = await ctx.parallel('nothing', []);
      return [summarize(m), summarize(p)];
    });
    const [m, p] = result.getResult() as Array<ReturnType<typeof summarize>>;
    expect(calls).toBe(0);
    for (const s of [m, p]) {
      expect(s).toMatchObject({ all: [], completionReason: 'ALL_COMPLETED', status: 'SUCCEEDED', totalCount: 0 });
    }
    expect(runner.getOperation('none').getOperationData()).toMatchObject({ SubType: 'Map', Status: 'SUCCEEDED' });
  });
});

describe('parallel', () => {
  it('runs plain and named branches; branch contexts are named after the branch', async () => {
    const { runner, result } = await run(async (_e, ctx) => {
      const batch = await ctx.parallel<string>('fan-out', [
        { name: 'charge', func: async (c) => c.step('pay', async () => 'charged') },
        async (c) => c.step(async () => 'plain'),
        { func: async (c) => c.step(async () => 'anonymous') },
      ]);
      return batch.getResults();
    });
    expect(result.getResult()).toEqual(['charged', 'plain', 'anonymous']);
    expect(runner.getOperation('fan-out').getOperationData()).toMatchObject({ SubType: 'Parallel', Id: '1' });
    const branches = runner
      .getOperation('fan-out')
      .getChildOperations()!
      .map((o) => o.getOperationData()!);
    expect(branches.map((b) => [b.Id, b.Name, b.SubType])).toEqual([
      ['1-1', 'charge', 'ParallelBranch'],
      ['1-2', 'parallel-branch-1', 'ParallelBranch'],
      ['1-3', 'parallel-branch-2', 'ParallelBranch'],
    ]);
    expect(runner.getOperation('pay').getParentId()).toBe('1-1');
  });

  it('runs nested child contexts inside branches, across a suspension', async () => {
    const innerRuns: string[] = [];
    const { runner, result } = await run(async (_e, ctx) => {
      const batch = await ctx.parallel('outer', [
        {
          name: 'a',
          func: async (c) =>
            c.runInChildContext('inner-a', async (inner) => {
              const v = await inner.step('s-a', async () => {
                innerRuns.push('a');
                return 1;
              });
              await inner.wait({ seconds: 5 });
              return v + 1;
            }),
        },
        {
          name: 'b',
          func: async (c) => {
            const nested = await c.parallel('nested', [async (n) => n.step('s-b', async () => 10)]);
            return nested.getResults()[0] as number;
          },
        },
      ]);
      return batch.getResults();
    });
    expect(result.getResult()).toEqual([2, 10]);
    expect(innerRuns).toEqual(['a']);
    expect(result.getInvocationCount()).toBe(2);
    expect(runner.getOperation('s-a').getParentId()).toBe(runner.getOperation('inner-a').getId());
    expect(runner.getOperation('inner-a').getParentId()).toBe(runner.getOperation('a').getId());
    expect(runner.getOperation('nested').getParentId()).toBe(runner.getOperation('b').getId());
    expect(runner.getOperation('s-b').getId()).toBe('1-2-1-1-1');
  });

  it('catches a failing branch into the result and fails fast by default', async () => {
    const { result } = await run(async (_e, ctx) => {
      const batch = await ctx.parallel([
        async () => {
          throw new Declined('branch down');
        },
        async (c) => {
          await c.wait({ minutes: 1 });
          return 'late';
        },
      ]);
      return summarize(batch);
    });
    expect(result.getResult()).toMatchObject({
      completionReason: 'FAILURE_TOLERANCE_EXCEEDED',
      status: 'FAILED',
      failed: [0],
      started: [1],
      errors: [
        { class: 'ChildContextError', message: 'branch down', errorType: 'ChildContextError', code: 'card_declined' },
      ],
    });
    // The in-flight branch was abandoned: the run did not wait for it.
    expect(result.getInvocationCount()).toBe(1);
  });
});

describe('bad input fails at the call with InvalidArgumentError naming the field', () => {
  const fn = async () => 1;
  it.each([
    ['items not an array', (c: DurableContext) => c.map('m', 'abc' as never, fn), 'items'],
    ['items missing', (c: DurableContext) => c.map({} as never, fn as never), 'items'],
    ['a bad name', (c: DurableContext) => c.map(42 as never, [1], fn), 'name'],
    ['fn missing', (c: DurableContext) => c.map([1], undefined as never), 'fn'],
    ['maxConcurrency 0', (c: DurableContext) => c.map([1], fn, { maxConcurrency: 0 }), 'config.maxConcurrency'],
    ['maxConcurrency < 0', (c: DurableContext) => c.map([1], fn, { maxConcurrency: -2 }), 'config.maxConcurrency'],
    ['maxConcurrency 1.5', (c: DurableContext) => c.map([1], fn, { maxConcurrency: 1.5 }), 'config.maxConcurrency'],
    [
      'maxConcurrency NaN',
      (c: DurableContext) => c.map([1], fn, { maxConcurrency: Number.NaN }),
      'config.maxConcurrency',
    ],
    [
      'toleratedFailurePercentage 101',
      (c: DurableContext) => c.map([1], fn, { completionConfig: { toleratedFailurePercentage: 101 } }),
      'config.completionConfig.toleratedFailurePercentage',
    ],
    [
      'toleratedFailurePercentage -1',
      (c: DurableContext) => c.map([1], fn, { completionConfig: { toleratedFailurePercentage: -1 } }),
      'config.completionConfig.toleratedFailurePercentage',
    ],
    [
      'toleratedFailureCount -1',
      (c: DurableContext) => c.map([1], fn, { completionConfig: { toleratedFailureCount: -1 } }),
      'config.completionConfig.toleratedFailureCount',
    ],
    [
      'toleratedFailureCount 0.5',
      (c: DurableContext) => c.map([1], fn, { completionConfig: { toleratedFailureCount: 0.5 } }),
      'config.completionConfig.toleratedFailureCount',
    ],
    [
      'minSuccessful -1',
      (c: DurableContext) => c.parallel([fn], { completionConfig: { minSuccessful: -1 } }),
      'config.completionConfig.minSuccessful',
    ],
    [
      'shouldComplete with thresholds',
      (c: DurableContext) =>
        c.map([1], fn, { completionConfig: { shouldComplete: continueBatch, minSuccessful: 1 } as never }),
      'config.completionConfig.shouldComplete',
    ],
    [
      'an unknown completion option',
      (c: DurableContext) => c.map([1], fn, { completionConfig: { minSucessful: 1 } as never }),
      'config.completionConfig.minSucessful',
    ],
    ['an unknown option', (c: DurableContext) => c.map([1], fn, { concurrency: 2 } as never), 'config.concurrency'],
    ['a config that is not an object', (c: DurableContext) => c.parallel([fn], 5 as never), 'config'],
    [
      'itemNamer not a function',
      (c: DurableContext) => c.map([1], fn, { itemNamer: 'x' as never }),
      'config.itemNamer',
    ],
    [
      'itemNamer returning a number',
      (c: DurableContext) => c.map([1], fn, { itemNamer: (() => 7) as never }),
      'config.itemNamer',
    ],
    [
      'itemNamer returning an empty name',
      (c: DurableContext) => c.map([1, 2], fn, { itemNamer: (_i: number, index: number) => (index ? '' : 'ok') }),
      'config.itemNamer(items[1])',
    ],
    [
      'itemSerdes without functions',
      (c: DurableContext) => c.map([1], fn, { itemSerdes: {} as never }),
      'config.itemSerdes',
    ],
    ['branches not an array', (c: DurableContext) => c.parallel('p', fn as never), 'branches'],
    ['a branch that is not a function', (c: DurableContext) => c.parallel([fn, 3 as never]), 'branches[1]'],
    ['a branch without func', (c: DurableContext) => c.parallel([{ name: 'x' } as never]), 'branches[0]'],
    ['a bad branch name', (c: DurableContext) => c.parallel([{ name: '', func: fn }]), 'branches[0].name'],
  ])('%s', async (_label, call, field) => {
    const { result } = await run(async (_e, ctx) => {
      let caught: unknown;
      try {
        await call(ctx);
      } catch (error) {
        caught = error;
      }
      // A rejected call creates no operation: the next one gets the first id.
      await ctx.step('next', async () => 1);
      const e = caught as InvalidArgumentError;
      return { isInvalid: caught instanceof InvalidArgumentError, code: e?.code, field: e?.field, message: e?.message };
    });
    expect(result.getResult()).toMatchObject({ isInvalid: true, code: 'invalid_argument', field });
    expect(result.getOperations().map((o) => o.getId())).toEqual(['1']);
  });
});
