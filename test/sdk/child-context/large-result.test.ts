import { LocalDurableTestRunner } from '@durable-lambda/local';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

/**
 * A child context whose result is too large to checkpoint (over 256 KB serialized): by default as
 * AWS's SDK (ReplayChildren: not stored, rebuilt on replay by running the function again over its
 * children's records); `storeLargeResult: true` stores it whole instead.
 */

const PART = 100_000;

/** A handler whose child context builds a ~300 KB result from three steps, then waits. */
function largeChild(config: { storeLargeResult?: boolean; summaryGenerator?: (parts: string[]) => string }) {
  const counts = { bodies: 0, steps: 0 };
  const handler = withDurableExecution(async (_event: unknown, ctx: DurableContext) => {
    const parts = await ctx.runInChildContext(
      'big',
      async (child) => {
        counts.bodies++;
        const out: string[] = [];
        for (let i = 0; i < 3; i++) {
          out.push(
            await child.step(`part${i}`, async () => {
              counts.steps++;
              return `${i}`.repeat(PART);
            }),
          );
        }
        return out;
      },
      config,
    );
    await ctx.wait('pause', { hours: 1 });
    return parts.map((part) => part.length);
  });
  return { handler, counts };
}

async function run(config: Parameters<typeof largeChild>[0]) {
  const { handler, counts } = largeChild(config);
  const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
  const big = result
    .getOperations()
    .find((op) => op.getName() === 'big')
    ?.getStoredOperation();
  return { result, counts, big };
}

describe('a child context result over 256 KB', () => {
  it('is not stored by default: the function runs again on replay, its steps replay from their records', async () => {
    const { result, counts, big } = await run({});
    expect(result.getResult()).toEqual([PART, PART, PART]);
    expect(counts).toEqual({ bodies: 2, steps: 3 });
    expect(big?.ContextDetails?.ReplayChildren).toBe(true);
    expect(big?.ContextDetails?.Result ?? '').toBe('');
  });

  it('stores the summaryGenerator’s summary in its place', async () => {
    const { result, counts, big } = await run({ summaryGenerator: (parts) => JSON.stringify({ parts: parts.length }) });
    expect(result.getResult()).toEqual([PART, PART, PART]);
    expect(counts.bodies).toBe(2);
    expect(big?.ContextDetails?.Result).toBe('{"parts":3}');
  });

  it('is stored whole with storeLargeResult: the function runs once', async () => {
    const { result, counts, big } = await run({ storeLargeResult: true });
    expect(result.getResult()).toEqual([PART, PART, PART]);
    expect(counts).toEqual({ bodies: 1, steps: 3 });
    expect(big?.ContextDetails?.ReplayChildren).toBeUndefined();
    expect(JSON.parse(big?.ContextDetails?.Result ?? '[]')).toHaveLength(3);
  });

  it('keeps a mode-aware logger silent while the function runs again (all of it is replay)', async () => {
    const lines = async (modeAware: boolean) => {
      const handler = withDurableExecution(async (_event: unknown, ctx: DurableContext) => {
        // The wait is recorded first: on replay the context is the last operation walked again,
        // so the invocation is past its replay when the context's function runs again.
        const pause = ctx.wait('pause', { hours: 1 });
        const big = await ctx.runInChildContext('big', async (child) => {
          child.configureLogger({ modeAware });
          child.logger.info('building');
          const seed = await child.step('seed', async () => 'x');
          return seed.repeat(300_000);
        });
        await pause;
        return big.length;
      });
      const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
      expect(result.getResult()).toBe(300_000);
      return result.getLogs().filter((entry) => entry.message === 'building').length;
    };
    expect(await lines(true)).toBe(1);
    expect(await lines(false)).toBe(2);
  });

  it('refuses a storeLargeResult that is not a boolean', async () => {
    const handler = withDurableExecution(async (_event: unknown, ctx: DurableContext) =>
      ctx.runInChildContext('big', async () => 1, { storeLargeResult: 'yes' as unknown as boolean }),
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getError()?.errorMessage).toMatch(/storeLargeResult/);
  });
});
