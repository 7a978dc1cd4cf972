/**
 * Issue 23 (AWS's wait-unawaited example): a wait nobody awaits does not end the invocation. A
 * handler that starts one and returns after non-durable work finishes in the same invocation,
 * the wait left STARTED (AWS's SDK keeps such a wait "idle, not awaited"); with real time it
 * used to suspend on the wait and hang for its whole duration.
 */
import { LocalDurableTestRunner } from '@durable-lambda/local';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const unawaited = withDurableExecution(async (_event: unknown, ctx: DurableContext) => {
  void ctx.wait('later', { days: 1 });
  await sleep(100);
  return 'result';
});

describe('a wait nobody awaits', () => {
  it('does not end the invocation: the handler returns, the wait stays STARTED', async () => {
    const runner = new LocalDurableTestRunner({ handlerFunction: unawaited });
    const result = await runner.run();
    expect(result.getResult()).toBe('result');
    expect(result.getInvocations()).toHaveLength(1);
    expect(runner.getOperation('later').getStatus()).toBe('STARTED');
  });

  it('with real time too (skipTime: false), instead of sleeping a day', async () => {
    const runner = new LocalDurableTestRunner({ handlerFunction: unawaited, skipTime: false });
    const result = await runner.run();
    expect(result.getResult()).toBe('result');
    expect(runner.getOperation('later').getWaitDetails()?.waitSeconds).toBe(86_400);
  }, 10_000);

  it('counts once awaited later: the invocation then suspends on it', async () => {
    const runner = new LocalDurableTestRunner({
      handlerFunction: withDurableExecution(async (_event: unknown, ctx: DurableContext) => {
        const later = ctx.wait('later', { hours: 1 });
        await sleep(20);
        await later;
        return 'after the wait';
      }),
    });
    const result = await runner.run();
    expect(result.getResult()).toBe('after the wait');
    expect(result.getInvocations()).toHaveLength(2);
    expect(runner.getOperation('later').getStatus()).toBe('SUCCEEDED');
  });
});
