/**
 * Issue 23, as AWS's conformance requirements have the history (step 1-11 to 1-14): a step event's
 * `RetryDetails.CurrentAttempt` is the attempt it ends.
 */
import { LocalDurableTestRunner } from '@durable-lambda/local';
import { createRetryStrategy, type DurableContext, JitterStrategy, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

function run<T>(body: (ctx: DurableContext) => Promise<T>) {
  const runner = new LocalDurableTestRunner({
    handlerFunction: withDurableExecution(async (_event: unknown, ctx: DurableContext) => body(ctx)),
  });
  return runner.run();
}

describe('step attempts in the history', () => {
  it('counts CurrentAttempt as the attempt each event ends', async () => {
    let calls = 0;
    const result = await run((ctx) =>
      ctx.step(
        'flaky',
        async () => {
          calls += 1;
          if (calls < 3) throw new Error(`boom ${calls}`);
          return 'ok';
        },
        {
          retryStrategy: createRetryStrategy({
            maxAttempts: 4,
            initialDelay: { seconds: 1 },
            jitter: JitterStrategy.NONE,
          }),
        },
      ),
    );
    expect(result.getResult()).toBe('ok');
    const retries = result
      .getHistoryEvents()
      .filter((e) => e.EventType === 'StepFailed' || e.EventType === 'StepSucceeded')
      .map((e) => [e.EventType, (e.StepFailedDetails ?? e.StepSucceededDetails)?.RetryDetails?.CurrentAttempt]);
    expect(retries).toEqual([
      ['StepFailed', 1],
      ['StepFailed', 2],
      ['StepSucceeded', 3],
    ]);
  });
});
