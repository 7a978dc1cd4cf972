import { LocalDurableTestRunner } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

describe('step timeout', () => {
  it('fails an attempt that runs too long with step_timeout, aborts its signal, and retries it like any failure', async () => {
    const aborted: unknown[] = [];
    const handler = withDurableExecution(async (_e, ctx) =>
      ctx.step(
        'fetch',
        async ({ attempt, signal }) => {
          if (attempt === 1) {
            await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
            aborted.push(signal.reason);
            return 'too late';
          }
          return `done on ${attempt}`;
        },
        { timeout: { seconds: 1 }, retry: { maxAttempts: 3, initialMs: 500, jitter: 'NONE' } },
      ),
    );
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const started = Date.now();
    const result = await runner.run();
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(result.getResult()).toBe('done on 2');
    expect(aborted).toHaveLength(1);
    expect((aborted[0] as { code?: string }).code).toBe('step_timeout');
    expect(runner.getOperation('fetch').getStepDetails()?.attempt).toBe(2);
    expect(result.getInvocationCount()).toBe(2);
  });

  it('fails the run with step_timeout once the attempts are used up', async () => {
    const handler = withDurableExecution(async (_e, ctx) =>
      ctx.step('stuck', () => new Promise(() => {}), { timeout: { seconds: 1 }, retry: { maxAttempts: 1 } }),
    );
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run();
    expect(result.getStatus()).toBe('FAILED');
    // As on AWS: the run's error is the uncaught StepError; the step's own record names the timeout.
    expect(result.getError()).toMatchObject({ code: 'step_timeout', errorType: 'StepError' });
    expect(runner.getOperation('stuck').getStepDetails()?.error).toMatchObject({ errorType: 'StepTimeoutError' });
    expect(result.getError()?.errorMessage).toContain('timed out after 1s');
  });

  it('applies the function-level timeout to steps that set none', async () => {
    const handler = withDurableExecution(
      async (_e, ctx) => ctx.step('stuck', () => new Promise(() => {}), { retry: { maxAttempts: 1 } }),
      { timeout: { seconds: 1 } },
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getError()?.code).toBe('step_timeout');
  });
});
