/** map and parallel, completion configs and BatchResult; promise combinators. */

import type { AwsSdk } from '../../../support/aws-sdk';
import { type DualCase, describeError, runHandler } from '../harness/case';

/** Everything a BatchResult tells, as plain data. */
function batchView(batch: AwsSdk.BatchResult<unknown>) {
  return {
    status: batch.status,
    completionReason: batch.completionReason,
    hasFailure: batch.hasFailure,
    counts: [batch.successCount, batch.failureCount, batch.startedCount, batch.totalCount],
    all: batch.all.map((item) => ({
      index: item.index,
      status: item.status,
      result: item.result,
      error: item.error === undefined ? '«none»' : describeError(item.error),
    })),
    results: batch.getResults(),
    errors: batch.getErrors().map((error) => describeError(error)),
    succeeded: batch.succeeded().map((item) => item.index),
    failed: batch.failed().map((item) => item.index),
    started: batch.started().map((item) => item.index),
  };
}

export const batchCases: DualCase[] = [
  {
    name: 'map: every item mapped, results in order',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const batch = await ctx.map('squares', [1, 2, 3], async (child, item) =>
          child.step('square', async () => item * item),
        );
        return batchView(batch);
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'map: an empty list gives an empty, successful batch',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) =>
        batchView(await ctx.map('nothing', [] as number[], async (_child, item) => item)),
      );
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'map: maxConcurrency and itemNamer',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const batch = await ctx.map(
          'named-items',
          ['a', 'b', 'c', 'd'],
          async (child, item, index) => child.step(`upper-${index}`, async () => item.toUpperCase()),
          { maxConcurrency: 2, itemNamer: (item) => `item-${item}` },
        );
        return batch.getResults();
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'map: failures within toleratedFailureCount complete the batch',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const batch = await ctx.map(
          'tolerant',
          [1, 2, 3, 4],
          async (child, item) =>
            child.step(
              'check',
              async () => {
                if (item % 2 === 0) throw new Error(`even ${item}`);
                return item;
              },
              { retryStrategy: m.sdk.retryPresets.noRetry },
            ),
          { completionConfig: { toleratedFailureCount: 2 } },
        );
        return batchView(batch);
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'map: failures beyond toleratedFailurePercentage fail the batch',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const batch = await ctx.map(
          'picky',
          [1, 2, 3, 4],
          async (_child, item) => {
            if (item > 1) throw new Error(`item ${item} rejected`);
            return item;
          },
          { maxConcurrency: 1, completionConfig: { toleratedFailurePercentage: 25 } },
        );
        return batchView(batch);
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'map: minSuccessful stops the batch early',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const batch = await ctx.map('first-two', [1, 2, 3, 4, 5], async (_child, item) => item * 10, {
          maxConcurrency: 1,
          completionConfig: { minSuccessful: 2 },
        });
        return batchView(batch);
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'map: a custom shouldComplete decides the outcome',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const batch = await ctx.map('custom', [1, 2, 3], async (_child, item) => item, {
          maxConcurrency: 1,
          completionConfig: {
            shouldComplete: (status) =>
              status.successCount >= 2 ? m.sdk.completeBatch(m.sdk.CompletionOutcome.FAILED) : m.sdk.continueBatch(),
          },
        });
        return batchView(batch);
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'parallel: named and unnamed branches, one with a wait',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const batch = await ctx.parallel('fan-out', [
          { name: 'left', func: async (child) => child.step('l', async () => 'L') },
          async (child) => {
            await child.wait('pause', { minutes: 1 });
            return 'R';
          },
        ]);
        return batchView(batch);
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'parallel: exceeding the tolerated failures, throwIfError throws',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const batch = await ctx.parallel(
          'strict',
          [
            async () => 'fine',
            async () => {
              throw new Error('branch broke');
            },
          ],
          { completionConfig: { toleratedFailureCount: 0 } },
        );
        try {
          batch.throwIfError();
          return 'not thrown';
        } catch (error) {
          return { view: batchView(batch), thrown: describeError(error) };
        }
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'promise: all and allSettled over steps',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const all = await ctx.promise.all('all', [ctx.step('one', async () => 1), ctx.step('two', async () => 2)]);
        const settled = await ctx.promise.allSettled('settled', [
          ctx.step('fine', async () => 'fine'),
          ctx.step(
            'broken',
            async () => {
              throw new Error('broken');
            },
            { retryStrategy: m.sdk.retryPresets.noRetry },
          ),
        ]);
        return {
          all,
          settled: settled.map((s) =>
            s.status === 'fulfilled' ? s : { status: s.status, reason: describeError(s.reason) },
          ),
        };
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'promise: race and any',
    leavesOperationsRunning: true,
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const raced = await ctx.promise.race<unknown>('race', [
          ctx.step('fast', async () => 'fast'),
          ctx.wait('slow', { hours: 1 }),
        ]);
        const any = await ctx.promise.any('any', [
          ctx.step(
            'fails-first',
            async () => {
              throw new Error('nope');
            },
            { retryStrategy: m.sdk.retryPresets.noRetry },
          ),
          ctx.step('succeeds', async () => 'yes'),
        ]);
        return { raced, any };
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    // Issue 23: FLAT items have no MapIteration context; their steps sit under the Map's.
    name: 'map: nesting FLAT records no item contexts, the steps under the Map',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const batch = await ctx.map(
          'flat-squares',
          [1, 2, 3],
          async (child, item) => child.step(`square-${item}`, async () => item * item),
          { nesting: m.sdk.NestingType.FLAT },
        );
        return batchView(batch);
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    // Issue 23: FLAT branches: a failed branch is a failed item, a wait in another replays under the Parallel.
    name: 'parallel: nesting FLAT with a wait and a failing branch',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const batch = await ctx.parallel(
          'flat-branches',
          [
            async (child) => {
              await child.wait('pause', { seconds: 1 });
              return child.step('after-pause', async () => 'waited');
            },
            async (child) =>
              child.step(
                'refuse',
                async () => {
                  throw new Error('branch refused');
                },
                { retryStrategy: m.sdk.retryPresets.noRetry },
              ),
          ],
          { nesting: m.sdk.NestingType.FLAT, completionConfig: { toleratedFailureCount: 1 } },
        );
        return batchView(batch);
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'promise: any with every promise failing rejects with a PromiseCombinatorError',
    async run(m) {
      const fail = (name: string) =>
        ({
          name,
          fn: async () => {
            throw new Error(`${name} failed`);
          },
        }) as const;
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        try {
          await ctx.promise.any(
            'none',
            [fail('a'), fail('b')].map((f) => ctx.step(f.name, f.fn, { retryStrategy: m.sdk.retryPresets.noRetry })),
          );
          return 'not reached';
        } catch (error) {
          return {
            described: describeError(error),
            isCombinatorError: error instanceof m.sdk.PromiseCombinatorError,
            isAggregateError: error instanceof AggregateError,
          };
        }
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
];
