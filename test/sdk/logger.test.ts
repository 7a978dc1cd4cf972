import { LocalDurableTestRunner } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

describe('logger', () => {
  it('is silent while replaying completed work and speaks once the handler reaches new work', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      ctx.logger.info('before first step');
      await ctx.step('one', async ({ logger }) => logger.info('inside one'));
      ctx.logger.info('between');
      await ctx.wait({ seconds: 5 });
      ctx.logger.info('after wait');
      return 'ok';
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getLogs().map((l) => l.message)).toEqual([
      'before first step',
      'inside one',
      'between',
      'after wait',
    ]);
    const inside = result.getLogs().find((l) => l.message === 'inside one');
    expect(inside).toMatchObject({ level: 'info', operationId: '1', attempt: 1, runId: result.getRunId() });
  });
});
