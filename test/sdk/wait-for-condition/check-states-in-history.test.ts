/**
 * Issue 23, as AWS's conformance requirements have the history (wait for condition 6-1): each
 * waitForCondition check's StepSucceeded carries the state that check returned.
 */
import { LocalDurableTestRunner } from '@durable-lambda/local';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

function run<T>(body: (ctx: DurableContext) => Promise<T>) {
  const runner = new LocalDurableTestRunner({
    handlerFunction: withDurableExecution(async (_event: unknown, ctx: DurableContext) => body(ctx)),
  });
  return runner.run();
}

describe('waitForCondition checks in the history', () => {
  it('gives every check its state as payload', async () => {
    const result = await run((ctx) =>
      ctx.waitForCondition('count', async (state: number) => state + 1, {
        initialState: 0,
        waitStrategy: (state: number) =>
          state >= 3 ? { shouldContinue: false } : { shouldContinue: true, delay: { seconds: 1 } },
      }),
    );
    expect(result.getResult()).toBe(3);
    const payloads = result
      .getHistoryEvents()
      .filter((e) => e.EventType === 'StepSucceeded')
      .map((e) => e.StepSucceededDetails?.Result?.Payload);
    expect(payloads).toEqual(['1', '2', '3']);
  });
});
