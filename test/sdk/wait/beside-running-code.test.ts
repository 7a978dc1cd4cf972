/**
 * Issue 23 (AWS's force-checkpointing examples): a branch that blocks (a long step) must not keep
 * the others from finishing in the same invocation. Waits and retry backoffs due while other code
 * still runs end in-process (a callback completed meanwhile is seen by reading the run again): on the runner's virtual clock, skipped once that code has run a
 * while (quick code leaves the wait to end the invocation, as before).
 */
import { LocalDurableTestRunner } from '@durable-lambda/local';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const longStep = (ctx: DurableContext) =>
  ctx.step('long-running', async () => {
    await sleep(1500);
    return 'long-complete';
  });

describe('waits beside a long-running step', () => {
  it('sequential waits in another branch finish in the same invocation', async () => {
    const runner = new LocalDurableTestRunner({
      handlerFunction: withDurableExecution(async (_event: unknown, ctx: DurableContext) => {
        const batch = await ctx.parallel([
          longStep,
          async (branch: DurableContext) => {
            for (const name of ['w1', 'w2', 'w3']) await branch.wait(name, { minutes: 1 });
            return 'waits-complete';
          },
        ]);
        return batch.getResults();
      }),
    });
    const result = await runner.run();
    expect(result.getResult()).toEqual(['long-complete', 'waits-complete']);
    expect(result.getInvocations()).toHaveLength(1);
    for (const name of ['w1', 'w2', 'w3']) expect(runner.getOperation(name).getStatus()).toBe('SUCCEEDED');
  });

  it('a retried step in another branch retries in the same invocation (its in-memory state kept)', async () => {
    const runner = new LocalDurableTestRunner({
      handlerFunction: withDurableExecution(async (_event: unknown, ctx: DurableContext) => {
        const batch = await ctx.parallel([
          longStep,
          async (branch: DurableContext) => {
            let calls = 0;
            return branch.step(
              'flaky',
              async () => {
                calls += 1;
                if (calls < 3) throw new Error(`attempt ${calls} failed`);
                return `succeeded on call ${calls}`;
              },
              { retryStrategy: (_error, attempt) => ({ shouldRetry: attempt < 5, delay: { seconds: 1 } }) },
            );
          },
        ]);
        return batch.getResults();
      }),
    });
    const result = await runner.run();
    expect(result.getResult()).toEqual(['long-complete', 'succeeded on call 3']);
    expect(result.getInvocations()).toHaveLength(1);
    expect(runner.getOperation('flaky').getStepDetails()?.attempt).toBe(3);
  });

  it('a callback completed meanwhile is seen while the other branch runs (read again every second)', async () => {
    const runner = new LocalDurableTestRunner({
      handlerFunction: withDurableExecution(async (_event: unknown, ctx: DurableContext) => {
        const batch = await ctx.parallel([
          (branch: DurableContext) =>
            branch.step('longer-running', async () => {
              await sleep(2500);
              return 'long-complete';
            }),
          async (branch: DurableContext) => {
            const [answer] = await branch.createCallback('answer');
            return `answered ${await answer}`;
          },
        ]);
        return batch.getResults();
      }),
    });
    const running = runner.run();
    const callback = await runner.getOperation('answer').waitForData();
    await callback.sendCallbackSuccess('yes');
    const result = await running;
    expect(result.getResult()).toEqual(['long-complete', 'answered yes']);
    expect(result.getInvocations()).toHaveLength(1);
  });

  it('without other code running, a wait still ends the invocation', async () => {
    const runner = new LocalDurableTestRunner({
      handlerFunction: withDurableExecution(async (_event: unknown, ctx: DurableContext) => {
        await ctx.wait('alone', { minutes: 1 });
        return 'done';
      }),
    });
    const result = await runner.run();
    expect(result.getResult()).toBe('done');
    expect(result.getInvocations()).toHaveLength(2);
  });
});
