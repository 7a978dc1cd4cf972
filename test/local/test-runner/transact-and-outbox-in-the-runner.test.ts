/**
 * The local test runner (issue 27) runs transactional steps on tables it emulates (`tables`) and
 * shows the events steps emitted (`getEmittedEvents`), with time skipped as for any run.
 */
import { LocalDurableTestRunner } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

describe('LocalDurableTestRunner: transactional steps and the outbox', () => {
  it('keeps the writes in its tables and the events it delivered', async () => {
    const handler = withDurableExecution(
      async (event: { id: string }, ctx) => {
        await ctx.step(
          'reserve',
          (step) => {
            step.tx.update({
              TableName: 'Stock',
              Key: { sku: event.id },
              UpdateExpression: 'ADD #n :one',
              ExpressionAttributeNames: { '#n': 'reserved' },
              ExpressionAttributeValues: { ':one': 1 },
            });
            step.emit({ source: 'shop', detailType: 'Reserved', detail: { sku: event.id } });
          },
          { transact: true },
        );
        await ctx.wait('hold', { hours: 1 });
        return 'ok';
      },
      { logSink: () => {} },
    );
    const runner = new LocalDurableTestRunner({
      handlerFunction: handler,
      skipTime: true,
      tables: { Stock: { partitionKey: 'sku' } },
    });
    const result = await runner.run({ payload: { id: 'sku-1' } });
    expect(result.getResult()).toBe('ok');
    expect(runner.getTableItem('Stock', { sku: 'sku-1' })).toEqual({ sku: 'sku-1', reserved: 1 });
    expect(runner.getEmittedEvents().map((d) => [d.event.kind, d.id.endsWith(':1:0')])).toEqual([
      ['eventbridge', true],
    ]);
  });
});
