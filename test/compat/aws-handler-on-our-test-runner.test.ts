/**
 * A handler wrapped by AWS's own `withDurableExecution` runs unchanged on our
 * `LocalDurableTestRunner`, with its compat API (run, getResult, getOperation, step details).
 */
import { LocalDurableTestRunner } from '@durable-lambda/local';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AwsDurableSdk, importAwsSdk } from '../support/aws-sdk';

let aws: AwsDurableSdk;

beforeAll(async () => {
  aws = await importAwsSdk();
});

describe("AWS's SDK under our LocalDurableTestRunner", () => {
  it('runs a retried step and a long wait, time skipped, and shows the operations', async () => {
    let attempts = 0;
    const handler = aws.withDurableExecution(async (event: { name: string }, ctx) => {
      const greeting = await ctx.step(
        'greet',
        async () => {
          attempts += 1;
          if (attempts < 2) throw new Error('not yet');
          return `hello ${event.name}`;
        },
        { retryStrategy: () => ({ shouldRetry: true, delay: { seconds: 30 } }) },
      );
      await ctx.wait('nap', { hours: 6 });
      return { greeting, attempts };
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run({ payload: { name: 'ada' } });
    expect(result.getStatus()).toBe('SUCCEEDED');
    expect(result.getResult()).toEqual({ greeting: 'hello ada', attempts: 2 });
    expect(attempts).toBe(2);
    expect(runner.getOperation('greet').getStatus()).toBe('SUCCEEDED');
    expect(runner.getOperation('nap').getType()).toBe('WAIT');
    // Every retry and the wait really ended an invocation.
    expect(result.getInvocationCount()).toBeGreaterThanOrEqual(3);
  });

  it('still refuses something that is not a function, naming the field', () => {
    expect(() => new LocalDurableTestRunner({ handlerFunction: 42 as never })).toThrow(/handlerFunction/);
  });
});
