/**
 * Signals in tests (issue 27): the local test runner sends a signal to the run under test, as the
 * control API would; the run waiting for it goes on with its payload, and refusals keep their codes.
 */
import { LocalDurableTestRunner } from '@durable-lambda/local';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
  await ctx.step('reserve', async () => 'r-1');
  const approval = await ctx.waitForSignal<{ by: string }>('approved');
  return `approved by ${approval.by}`;
});

describe('LocalDurableTestRunner.sendSignal', () => {
  it('sends a signal the waiting run takes', async () => {
    const runner = new LocalDurableTestRunner({ handlerFunction: handler, printLogs: false });
    const running = runner.run();
    await runner.getOperation('approved').waitForData();
    const receipt = await runner.sendSignal('approved', { by: 'ana' }, { idempotencyKey: 'k' });
    expect(receipt).toMatchObject({ name: 'approved', seq: 1, created: true });
    expect(await runner.sendSignal('approved', { by: 'ana' }, { idempotencyKey: 'k' })).toMatchObject({
      created: false,
    });
    const result = await running;
    expect(result.getResult()).toBe('approved by ana');
    await expect(runner.sendSignal('approved', {})).rejects.toMatchObject({ code: 'run_ended' });
    await expect(runner.sendSignal('no way', {})).rejects.toMatchObject({ code: 'invalid_argument', field: 'name' });
  });

  it('refuses before any run', async () => {
    const runner = new LocalDurableTestRunner({ handlerFunction: handler, printLogs: false });
    await expect(runner.sendSignal('approved')).rejects.toThrow('no run in progress');
  });
});
