import { LocalDurableTestRunner } from '@durable-lambda/local';
import {
  createRetryStrategy,
  type DurableContext,
  InvalidArgumentError,
  JitterStrategy,
  NonRetriableError,
  retryPresets,
  StepError,
  withDurableExecution,
  withRetry,
} from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

/** Seconds from the first invocation's start to each invocation's, on the virtual clock. */
function offsets(invocations: readonly { startedAt: Date }[]): number[] {
  const start = invocations[0]?.startedAt.getTime() ?? 0;
  return invocations.map((i) => (i.startedAt.getTime() - start) / 1000);
}

const threeAttempts = createRetryStrategy({
  maxAttempts: 3,
  initialDelay: { seconds: 10 },
  backoffRate: 2,
  jitter: JitterStrategy.NONE,
});

/** A step that fails at once (no retries of its own). */
const failingStep = (ctx: DurableContext, message: string) =>
  ctx.step<string>(
    'check',
    async () => {
      throw new Error(message);
    },
    { retryStrategy: retryPresets.noRetry },
  );

describe('withRetry', () => {
  it('retries a block with a step and a wait, each attempt in its own child context, with durable waits between', async () => {
    const stepRuns: number[] = [];
    const handler = withDurableExecution(async (_e, ctx) =>
      withRetry(
        ctx,
        'charge',
        async (attemptCtx, attempt) => {
          const order = await attemptCtx.step('reserve', async () => {
            stepRuns.push(attempt);
            return `order-${attempt}`;
          });
          await attemptCtx.wait('settle', { seconds: 2 });
          if (attempt < 3) await failingStep(attemptCtx, `declined on attempt ${attempt}`);
          return order;
        },
        { retryStrategy: threeAttempts },
      ),
    );
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run();
    expect(result.getResult()).toBe('order-3');
    // Each step ran once, live, in its attempt: attempt numbers 1, 2, 3 reached fn.
    expect(stepRuns).toEqual([1, 2, 3]);
    // Every wait ends an invocation: attempt 1 (settle 2 s), backoff 10 s, attempt 2 (settle 2 s),
    // backoff 20 s, attempt 3 (settle 2 s).
    expect(result.getInvocationCount()).toBe(6);
    expect(offsets(result.getInvocations())).toEqual([0, 2, 12, 14, 34, 36]);

    const loop = runner.getOperation('charge');
    expect(loop.getOperationData()).toMatchObject({
      Id: '1',
      Type: 'CONTEXT',
      SubType: 'WithRetry',
      Status: 'SUCCEEDED',
    });
    const children = loop.getChildOperations()!.map((op) => op.getOperationData()!);
    expect(children.map((op) => [op.Id, op.Type, op.Name, op.Status])).toEqual([
      ['1-1', 'CONTEXT', 'charge-attempt-1', 'FAILED'],
      ['1-2', 'WAIT', 'charge-backoff-1', 'SUCCEEDED'],
      ['1-3', 'CONTEXT', 'charge-attempt-2', 'FAILED'],
      ['1-4', 'WAIT', 'charge-backoff-2', 'SUCCEEDED'],
      ['1-5', 'CONTEXT', 'charge-attempt-3', 'SUCCEEDED'],
    ]);
    expect(runner.getOperation('charge-backoff-2').getWaitDetails()?.waitSeconds).toBe(20);
    // Fresh ids per attempt: the step of attempt 2 is 1-3-1.
    expect(runner.getOperation('reserve', 1).getId()).toBe('1-3-1');
  });

  it('throws the last attempt’s error when the attempts are used up, the same live and on replay', async () => {
    let calls = 0;
    const caught: unknown[] = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      try {
        await withRetry(
          ctx,
          'flaky',
          async (attemptCtx, attempt) => {
            calls++;
            return failingStep(attemptCtx, `failed attempt ${attempt}`);
          },
          { retryStrategy: threeAttempts },
        );
      } catch (error) {
        caught.push(error);
      }
      await ctx.wait({ seconds: 1 });
      return 'handled';
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run();
    expect(result.getResult()).toBe('handled');
    expect(offsets(result.getInvocations())).toEqual([0, 10, 30, 31]);
    // fn ran once per attempt: a finished attempt is not run again on replay.
    expect(calls).toBe(3);
    expect(caught).toHaveLength(2);
    for (const error of caught) {
      expect(error).toBeInstanceOf(StepError);
      // The last attempt's StepError (AWS's errorType: the class).
      expect(error).toMatchObject({ message: 'failed attempt 3', errorType: 'StepError', code: 'step_failed' });
    }
    expect(runner.getOperation('flaky').getStatus()).toBe('FAILED');
  });

  it('propagates an error the strategy refuses after the first attempt, and honours non_retriable', async () => {
    const attempts: string[] = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      const refused = await withRetry(
        ctx,
        async (_c, attempt) => {
          attempts.push(`refused-${attempt}`);
          throw new Error('validation failed');
        },
        { retryStrategy: createRetryStrategy({ retryableErrors: ['timeout'] }) },
      ).catch((e: Error) => e.message);
      const nonRetriable = await withRetry(ctx, async (c, attempt) => {
        attempts.push(`non-retriable-${attempt}`);
        return c.step(async () => {
          throw new NonRetriableError('bad input');
        });
      }).catch((e: StepError) => e.code);
      return [refused, nonRetriable];
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toEqual(['validation failed', 'non_retriable']);
    expect(attempts).toEqual(['refused-1', 'non-retriable-1']);
    expect(result.getInvocationCount()).toBe(1);
  });

  it('asks the strategy once per failure, live, with the error fn threw; replays follow the recorded decision', async () => {
    class Transient extends Error {
      constructor() {
        super('try again');
        this.name = 'Transient';
      }
    }
    const asked: Array<[string, number]> = [];
    let decisions = 0;
    const handler = withDurableExecution(async (_e, ctx) =>
      withRetry(
        ctx,
        async (_c, attempt) => {
          if (attempt === 1) throw new Transient();
          return `ok on ${attempt}`;
        },
        {
          retryStrategy: (error, attempt) => {
            asked.push([error.constructor.name, attempt]);
            // Retries only the first time it is asked: a replay that asked again would stop.
            decisions++;
            return decisions === 1 && error instanceof Transient
              ? { shouldRetry: true, delay: { seconds: 4 } }
              : { shouldRetry: false };
          },
        },
      ),
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toBe('ok on 2');
    expect(asked).toEqual([['Transient', 1]]);
    expect(offsets(result.getInvocations())).toEqual([0, 4]);
  });

  it('uses the default step strategy when none is given (6 attempts)', async () => {
    let attempts = 0;
    const handler = withDurableExecution(async (_e, ctx) =>
      withRetry(ctx, async (_c, attempt) => {
        attempts = attempt;
        throw new Error(`attempt ${attempt}`);
      }),
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(attempts).toBe(6);
    expect(result.getInvocationCount()).toBe(6);
    expect(result.getError()).toMatchObject({ errorType: 'Error', errorMessage: 'attempt 6' });
  });

  it('runs the loop in the given context with wrapWithRunInChildContext: false', async () => {
    const handler = withDurableExecution(async (_e, ctx) =>
      withRetry(
        ctx,
        'direct',
        async (_c, attempt) => {
          if (attempt === 1) throw new Error('once');
          return attempt;
        },
        { retryStrategy: threeAttempts, wrapWithRunInChildContext: false },
      ),
    );
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    expect((await runner.run()).getResult()).toBe(2);
    expect(runner.getOperation('direct').exists()).toBe(false);
    const first = runner.getOperation('direct-attempt-1');
    expect(first.getOperationData()).toMatchObject({ Id: '1', SubType: 'WithRetryAttempt', Status: 'FAILED' });
    expect(first.getParentId()).toBeUndefined();
    expect(runner.getOperation('direct-backoff-1').getWaitDetails()?.waitSeconds).toBe(10);
    expect(runner.getOperation('direct-attempt-2').getId()).toBe('3');
  });

  it('refuses bad arguments with InvalidArgumentError naming the field', async () => {
    const fields: string[] = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      const call = withRetry as (...args: unknown[]) => Promise<unknown>;
      const fn = async () => 1;
      const attempts: Array<() => Promise<unknown>> = [
        () => call({}, fn),
        () => call(ctx, 'name', 'not a function'),
        () => call(ctx, fn, { retryStrategy: 'often' }),
        () => call(ctx, fn, { retries: 3 }),
        () => call(ctx, fn, { wrapWithRunInChildContext: 'yes' }),
        () => call(ctx, fn, { childContextConfig: { serdes: 1 } }),
        () => call(ctx, 'x'.repeat(250), fn),
      ];
      for (const attempt of attempts) {
        try {
          await attempt();
          fields.push('(nothing thrown)');
        } catch (error) {
          fields.push(error instanceof InvalidArgumentError ? error.field : String(error));
        }
      }
      return 'checked';
    });
    expect((await new LocalDurableTestRunner({ handlerFunction: handler }).run()).getResult()).toBe('checked');
    expect(fields).toEqual([
      'context',
      'fn',
      'config.retryStrategy',
      'config.retries',
      'config.wrapWithRunInChildContext',
      'config.childContextConfig.serdes',
      'name',
    ]);
  });
});
