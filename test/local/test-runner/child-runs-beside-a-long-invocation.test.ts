/**
 * Issue 23 (AWS's force-checkpointing-invoke example): while a parent's invocation stays open on
 * a long step, the child runs it invokes run beside it (their own waits skipped), and the parent
 * sees them finish in that same invocation.
 */
import { LocalDurableTestRunner } from '@durable-lambda/local';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const napper = withDurableExecution(async (event: { input: string }, ctx: DurableContext) => {
  await ctx.wait('nap', { seconds: 5 });
  return `${event.input} rested`;
});

describe('child runs beside a long invocation', () => {
  it('sequential invokes finish while the other branch runs, in one invocation of the parent', async () => {
    const runner = new LocalDurableTestRunner({
      handlerFunction: withDurableExecution(async (_event: unknown, ctx: DurableContext) => {
        const batch = await ctx.parallel<unknown>([
          (branch: DurableContext) =>
            branch.step('long-running', async () => {
              await sleep(6000);
              return 'long-complete';
            }),
          async (branch: DurableContext) => [
            await branch.invoke('first', 'napper', { input: 'a' }),
            await branch.invoke('second', 'napper', { input: 'b' }),
          ],
        ]);
        return batch.getResults();
      }),
    });
    runner.registerDurableFunction('napper', napper);
    const result = await runner.run();
    expect(result.getResult()).toEqual(['long-complete', ['a rested', 'b rested']]);
    expect(result.getInvocations()).toHaveLength(1);
  }, 20_000);
});
