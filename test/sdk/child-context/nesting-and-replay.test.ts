import { LocalDurableTestRunner } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

describe('child contexts', () => {
  it('gives child context operations nested ids and replays a finished context without running it', async () => {
    let bodyRuns = 0;
    const handler = withDurableExecution(async (_e, ctx) => {
      const total = await ctx.runInChildContext('outer', async (outer) => {
        bodyRuns++;
        const x = await outer.step('x', async () => 2);
        const y = await outer.runInChildContext('inner', async (inner) => inner.step('y', async () => 3));
        return x * y;
      });
      await ctx.wait({ seconds: 1 });
      return total;
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run();
    expect(result.getResult()).toBe(6);
    expect(bodyRuns).toBe(1);
    expect(result.getOperations().map((o) => [o.getId(), o.getType(), o.getParentId()])).toEqual([
      ['1', 'CONTEXT', undefined],
      ['1-1', 'STEP', '1'],
      ['1-2', 'CONTEXT', '1'],
      ['1-2-1', 'STEP', '1-2'],
      ['2', 'WAIT', undefined],
    ]);
    expect(
      runner
        .getOperation('outer')
        .getChildOperations()!
        .map((o) => o.getName()),
    ).toEqual(['x', 'inner']);
    expect(runner.getOperation('outer').getContextDetails()?.result).toBe(6);
  });

  it('surfaces a failing child context as ChildContextError, also on replay', async () => {
    const seen: string[] = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      try {
        await ctx.runInChildContext('fails', async () => {
          throw new RangeError('out of range');
        });
      } catch (error) {
        const cause = (error as Error).cause as Error;
        seen.push(`${(error as Error).name}:${(cause.cause as Error).name}:${(error as Error).message}`);
      }
      await ctx.wait({ seconds: 1 });
    });
    await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(seen).toEqual(['ChildContextError:RangeError:out of range', 'ChildContextError:RangeError:out of range']);
  });
});
