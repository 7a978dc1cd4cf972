/**
 * `selfHosted` (`@durable-lambda/aws`) as a unit: the same export runs on our local test runner
 * (which hands it AWS's invocation input with its transport, passed through to AWS's handler),
 * its backend is loaded once per container, and bad arguments are refused naming the field.
 */
import { AWS_SDK_HANDLER, isSelfHosted, selfHosted } from '@durable-lambda/aws';
import { LocalDurableTestRunner } from '@durable-lambda/local';
import type { DurableBackend } from '@durable-lambda/protocol';
import { withDurableExecution as ours } from '@durable-lambda/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AwsDurableSdk, importAwsSdk } from '../support/aws-sdk';

let aws: AwsDurableSdk;

beforeAll(async () => {
  aws = await importAwsSdk();
});

describe('selfHosted', () => {
  it('runs unchanged on our LocalDurableTestRunner: AWS input is handed to the AWS-wrapped handler', async () => {
    let attempts = 0;
    const handler = selfHosted(
      aws.withDurableExecution(async (event: { name: string }, ctx) => {
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
        return greeting;
      }),
      // Never used: the runner opens the invocations itself.
      { backend: { open: async () => Promise.reject(new Error('the backend must not be used here')) } },
    );
    const runner = new LocalDurableTestRunner({ handlerFunction: handler as never });
    const result = await runner.run({ payload: { name: 'ada' } });
    expect([result.getStatus(), result.getResult()]).toEqual(['SUCCEEDED', 'hello ada']);
    expect(attempts).toBe(2);
  });

  it('opens, runs and closes through the backend it is given, and loads it once per container', async () => {
    let loads = 0;
    const answers: unknown[] = [];
    const backend: DurableBackend = {
      open: async (event) => {
        answers.push(event);
        return { response: { Status: 'NOT_FOUND', runId: 'r-1' } };
      },
    };
    const handler = selfHosted(
      aws.withDurableExecution(async () => 'never run'),
      {
        backend: () => {
          loads += 1;
          return backend;
        },
      },
    );
    const wake = { durableLambda: { action: 'wake', runId: 'r-1' } };
    // A wake-up with nothing to do answers what the backend says, without running the handler.
    expect(await handler(wake, { functionName: 'f' })).toEqual({ Status: 'NOT_FOUND', runId: 'r-1' });
    expect(await handler(wake, { functionName: 'f' })).toEqual({ Status: 'NOT_FOUND', runId: 'r-1' });
    expect([loads, answers]).toEqual([1, [wake, wake]]);
  });

  it('tries a failed backend load again at the next invocation', async () => {
    let loads = 0;
    const handler = selfHosted(
      aws.withDurableExecution(async () => 1),
      {
        backend: () => {
          loads += 1;
          if (loads === 1) throw new Error('no table yet');
          return { open: async () => ({ response: 'ok' }) };
        },
      },
    );
    await expect(handler({}, {})).rejects.toThrow('no table yet');
    expect(await handler({}, {})).toBe('ok');
    expect(loads).toBe(2);
  });

  it('marks what it hosts, and is idempotent', () => {
    const inner = aws.withDurableExecution(async () => 1);
    const hosted = selfHosted(inner);
    expect(isSelfHosted(hosted)).toBe(true);
    expect(isSelfHosted(inner)).toBe(false);
    expect(hosted[AWS_SDK_HANDLER]).toBe(inner);
    expect(selfHosted(hosted as never)).toBe(hosted);
  });

  it('refuses our own SDK handlers, non-functions and bad options, naming the field', () => {
    expect(() => selfHosted(ours(async () => 1) as never)).toThrow(
      expect.objectContaining({ code: 'invalid_argument', field: 'handler' }),
    );
    expect(() => selfHosted(42 as never)).toThrow(expect.objectContaining({ field: 'handler' }));
    expect(() =>
      selfHosted(
        aws.withDurableExecution(async () => 1),
        { backend: 'dynamodb' as never },
      ),
    ).toThrow(expect.objectContaining({ field: 'options.backend' }));
  });
});
