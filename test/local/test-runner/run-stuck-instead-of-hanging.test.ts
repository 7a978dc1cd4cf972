/**
 * Issue 23: a run that would wait on real time longer than `maxRealWaitMs` fails `run()` with a
 * clear `TestRunStoppedError` (`run_stuck`) instead of hanging until the test framework's timeout.
 */
import { LocalDurableTestRunner, TestRunStoppedError } from '@durable-lambda/local';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

describe('a run that would hang stops with run_stuck', () => {
  it('a day-long wait with skipTime: false fails at once, naming the way out', async () => {
    const runner = new LocalDurableTestRunner({
      handlerFunction: withDurableExecution(async (_event: unknown, ctx: DurableContext) => {
        await ctx.wait('a-day', { days: 1 });
        return 'done';
      }),
      skipTime: false,
    });
    const error = await runner.run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TestRunStoppedError);
    expect(error).toMatchObject({ code: 'run_stuck' });
    expect((error as Error).message).toMatch(/would wait 86400 s of real time.*skip time, or raise maxRealWaitMs/);
  });

  it('a callback nobody completes fails once maxRealWaitMs passed without the test acting', async () => {
    const runner = new LocalDurableTestRunner({
      handlerFunction: withDurableExecution(async (_event: unknown, ctx: DurableContext) => {
        const [promise] = await ctx.createCallback('never-answered');
        return promise;
      }),
      maxRealWaitMs: 300,
    });
    const error = await runner.run().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'run_stuck' });
    expect((error as Error).message).toMatch(/waits for an outside event/);
  });
});
