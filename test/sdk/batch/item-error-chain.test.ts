import { LocalDurableTestRunner } from '@durable-lambda/local';
import { ChildContextError, retryPresets, StepError, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

/** Each level of an error's cause chain as class name, `name` and message. */
function chainOf(error: unknown): string[] {
  const out: string[] = [];
  for (let e = error; e instanceof Error; e = e.cause) out.push(`${e.constructor.name}(${e.name}: ${e.message})`);
  return out;
}

describe("a failed map item's error as the handler sees it", () => {
  it("has AWS's cause chain (ChildContextError, StepError, StepError, Error), live and on replay", async () => {
    const seen: string[][][] = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      const batch = await ctx.map(
        'items',
        [1, 2],
        async (child, item) =>
          child.step(
            'check',
            async () => {
              if (item === 2) throw new Error('even 2');
              return item;
            },
            { retryStrategy: retryPresets.noRetry },
          ),
        { completionConfig: { toleratedFailureCount: 1 } },
      );
      const errors = batch.getErrors();
      seen.push([chainOf(batch.all[1]?.error), ...errors.map(chainOf)]);
      expect(errors[0]).toBeInstanceOf(ChildContextError);
      expect(errors[0]?.cause).toBeInstanceOf(StepError);
      expect(errors[0]?.cause?.cause).toBeInstanceOf(StepError);
      // The handler replays after this wait: the batch is read back from its record.
      await ctx.wait({ seconds: 1 });
      return batch.successCount;
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getStatus()).toBe('SUCCEEDED');
    const expected = [
      'ChildContextError(ChildContextError: even 2)',
      'StepError(StepError: even 2)',
      'StepError(StepError: even 2)',
      'Error(StepError: even 2)',
    ];
    expect(seen).toEqual([
      [expected, expected],
      [expected, expected],
    ]);
  });

  it('keeps a plain Error thrown by an item body as the last level (AWS reads an unknown type as a plain Error)', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      const batch = await ctx.parallel([
        async () => {
          throw new TypeError('bad branch');
        },
      ]);
      return chainOf(batch.getErrors()[0]);
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toEqual([
      'ChildContextError(ChildContextError: bad branch)',
      'StepError(StepError: bad branch)',
      'Error(TypeError: bad branch)',
    ]);
  });
});
