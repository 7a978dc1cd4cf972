import { LocalDurableTestRunner } from '@durable-lambda/local';
import { createRetryStrategy, JitterStrategy, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { Harness } from '../support/harness';

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

describe('step context', () => {
  it('gives each attempt a distinct idempotency key <runId>:<stepId>:<attempt>', async () => {
    const keys: string[] = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      await ctx.step('first', async () => 1);
      return ctx.step(
        'pay',
        async ({ idempotencyKey, attempt }) => {
          keys.push(idempotencyKey);
          if (attempt < 3) throw new Error('again');
          return attempt;
        },
        { retry: { initialMs: 1000 } },
      );
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    const runId = result.getRunId();
    expect(keys).toEqual([`${runId}:2:1`, `${runId}:2:2`, `${runId}:2:3`]);
  });

  it('applies function-level retry defaults to steps that set none, and a step-level policy wins', async () => {
    const attempts: Record<string, number> = { plain: 0, own: 0 };
    const handler = withDurableExecution(
      async (_e, ctx) => {
        const fail = (k: string) => async () => {
          attempts[k] = (attempts[k] ?? 0) + 1;
          throw new Error(k);
        };
        await ctx.step('plain', fail('plain')).catch(() => undefined);
        await ctx.step('own', fail('own'), { retry: { maxAttempts: 4, initialMs: 1000 } }).catch(() => undefined);
        return attempts;
      },
      { retry: { maxAttempts: 2, initialMs: 1000 } },
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toEqual({ plain: 2, own: 4 });
  });

  it('uses retryPresets.default (6 attempts) for a step that configures nothing', async () => {
    let attempts = 0;
    const handler = withDurableExecution(async (_e, ctx) =>
      ctx.step('x', async () => {
        attempts++;
        throw new Error('always');
      }),
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getStatus()).toBe('FAILED');
    expect(attempts).toBe(6);
  });

  it('schedules each retry exactly at the delay the strategy chose, on the virtual clock', async () => {
    const handler = withDurableExecution(async (_e, ctx) =>
      ctx.step(
        'x',
        async ({ attempt }) => {
          if (attempt < 4) throw new Error('again');
          return attempt;
        },
        {
          retryStrategy: createRetryStrategy({
            maxAttempts: 5,
            initialDelay: { seconds: 2 },
            backoffRate: 3,
            jitter: JitterStrategy.NONE,
          }),
        },
      ),
    );
    const h = new Harness(handler);
    await h.start();
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) {
      await h.invoke(); // the attempt fails at the clock's current time
      waits.push(((await h.run())?.nextWakeAt ?? 0) - h.clock.now());
    }
    expect(waits).toEqual([2000, 6000, 18000]);
    await h.invoke();
    expect((await h.run())?.result).toBe('4');
  });

  it('fails a step at once on NonRetriableError, even as the cause of another error', async () => {
    const { NonRetriableError } = await import('@durable-lambda/sdk');
    let attempts = 0;
    const handler = withDurableExecution(async (_e, ctx) =>
      ctx.step('x', async () => {
        attempts++;
        throw new Error('wrapped', { cause: new NonRetriableError('invalid input') });
      }),
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(attempts).toBe(1);
    expect(result.getError()).toMatchObject({ code: 'non_retriable', errorMessage: 'wrapped' });
  });
});
