import { LocalDurableTestRunner } from '@durable-lambda/local';
import {
  createWaitStrategy,
  InvalidArgumentError,
  JitterStrategy,
  StepError,
  withDurableExecution,
} from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { Harness } from '../../support/harness';

/** Seconds from the first invocation's start to each invocation's, on the virtual clock. */
function offsets(invocations: readonly { startedAt: Date }[]): number[] {
  const start = invocations[0]?.startedAt.getTime() ?? 0;
  return invocations.map((i) => (i.startedAt.getTime() - start) / 1000);
}

/** The field of the InvalidArgumentError that `fn` throws (sync or async). */
async function invalidField(fn: () => unknown): Promise<string> {
  try {
    await fn();
  } catch (error) {
    if (error instanceof InvalidArgumentError) return error.field;
    throw error;
  }
  throw new Error('expected an InvalidArgumentError, nothing was thrown');
}

describe('waitForCondition', () => {
  it('carries the state between checks, one check per invocation, with the exact backoff delays', async () => {
    const checks: Array<{ state: unknown; attempt: number }> = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      return ctx.waitForCondition(
        'job',
        async (state: { polls: number }, { attempt }) => {
          checks.push({ state, attempt });
          return { polls: state.polls + 1 };
        },
        {
          initialState: { polls: 0 },
          waitStrategy: createWaitStrategy({
            shouldContinuePolling: (s: { polls: number }) => s.polls < 4,
            initialDelay: { seconds: 5 },
            backoffRate: 2,
            jitter: JitterStrategy.NONE,
          }),
        },
      );
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run();
    expect(result.getResult()).toEqual({ polls: 4 });
    expect(checks).toEqual([
      { state: { polls: 0 }, attempt: 1 },
      { state: { polls: 1 }, attempt: 2 },
      { state: { polls: 2 }, attempt: 3 },
      { state: { polls: 3 }, attempt: 4 },
    ]);
    // Each check ends its invocation; the next starts 5, 10, then 20 s later.
    expect(result.getInvocationCount()).toBe(4);
    expect(offsets(result.getInvocations())).toEqual([0, 5, 15, 35]);
    const op = runner.getOperation('job');
    expect(op.getType()).toBe('STEP');
    expect(op.getOperationData()?.SubType).toBe('WaitForCondition');
    expect(op.getStepDetails()).toMatchObject({ attempt: 4, result: { polls: 4 } });
  });

  it('stores the state with each RETRY and suspends between checks (looked at between invocations)', async () => {
    const handler = withDurableExecution(async (_e, ctx) =>
      ctx.waitForCondition(async (n: number) => n + 10, {
        initialState: 1,
        waitStrategy: (_n, attempt) => ({ shouldContinue: attempt < 2, delay: { seconds: 7 } }),
      }),
    );
    const h = new Harness(handler);
    await h.start();
    expect(await h.invoke()).toMatchObject({ type: 'completed', output: { Status: 'PENDING' } });
    const pending = await h.op('1');
    expect(pending).toMatchObject({ Type: 'STEP', SubType: 'WaitForCondition', Status: 'PENDING' });
    expect(pending?.StepDetails).toMatchObject({ Attempt: 1, Result: '11' });
    expect(pending?.StepDetails?.NextAttemptTimestamp).toBe(h.clock.now() + 7000);
    expect(await h.runToEnd()).toBe(1);
    expect((await h.run())?.result).toBe('21');
  });

  it('waits 1 s when a custom strategy continues without a delay', async () => {
    const handler = withDurableExecution(async (_e, ctx) =>
      ctx.waitForCondition(async (n: number) => n + 1, {
        initialState: 0,
        waitStrategy: (n) => (n < 3 ? { shouldContinue: true } : { shouldContinue: false }),
      }),
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toBe(3);
    expect(offsets(result.getInvocations())).toEqual([0, 1, 2]);
  });

  it('fails with a StepError (wait_for_condition_exhausted, as AWS) when the checks are used up', async () => {
    let checks = 0;
    const caught: unknown[] = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      try {
        await ctx.waitForCondition(
          'never',
          async (s: string) => {
            checks++;
            return s;
          },
          {
            initialState: 'pending',
            waitStrategy: createWaitStrategy({
              shouldContinuePolling: () => true,
              maxAttempts: 3,
              initialDelay: { seconds: 2 },
              jitter: JitterStrategy.NONE,
            }),
          },
        );
      } catch (error) {
        caught.push(error);
      }
      await ctx.wait({ seconds: 1 });
      return 'done';
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run();
    expect(result.getResult()).toBe('done');
    expect(checks).toBe(3);
    // Checks at 0, 2 and 5 s (2 s, then 3 s: 2 × 1.5), then the handler's own wait.
    expect(offsets(result.getInvocations())).toEqual([0, 2, 5, 6]);
    expect(caught).toHaveLength(2);
    for (const error of caught) {
      // AWS's: the failure is rebuilt from storage as a StepError caused by the strategy's error.
      expect(error).toBeInstanceOf(StepError);
      expect(error).toMatchObject({
        code: 'wait_for_condition_exhausted',
        message: 'waitForCondition exceeded maximum attempts (3)',
      });
    }
    expect(runner.getOperation('never').getStepDetails()).toMatchObject({
      attempt: 3,
      error: { code: 'wait_for_condition_exhausted' },
    });
  });

  it('fails with a StepError carrying the cause when a check throws (AWS’s class)', async () => {
    const caught: unknown[] = [];
    class Unreachable extends Error {
      code = 'upstream_down';
      constructor() {
        super('status endpoint unreachable');
        this.name = 'Unreachable';
      }
    }
    const handler = withDurableExecution(async (_e, ctx) => {
      try {
        await ctx.waitForCondition(
          async (n: number, { attempt }) => {
            if (attempt === 2) throw new Unreachable();
            return n + 1;
          },
          { initialState: 0, waitStrategy: () => ({ shouldContinue: true, delay: { seconds: 3 } }) },
        );
      } catch (error) {
        caught.push(error);
      }
      await ctx.wait({ seconds: 1 });
      return 'done';
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toBe('done');
    expect(offsets(result.getInvocations())).toEqual([0, 3, 4]);
    // Live after check 2, then on the replay of the last invocation.
    expect(caught).toHaveLength(2);
    for (const error of caught) {
      // AWS's: the check's error rebuilt from storage, a StepError caused by the original type.
      expect(error).toBeInstanceOf(StepError);
      expect(error).toMatchObject({
        message: 'status endpoint unreachable',
        code: 'upstream_down',
        errorType: 'StepError',
      });
      expect(((error as Error).cause as Error).name).toBe('Unreachable');
    }
  });

  it('replays the stored final state without checking again', async () => {
    let checks = 0;
    const seen: unknown[] = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      const state = await ctx.waitForCondition(
        'ready',
        async (_s: { at: string | Date }) => {
          checks++;
          return { at: new Date(Date.UTC(2026, 0, checks)) };
        },
        { initialState: { at: 'never' }, waitStrategy: (_s, attempt) => ({ shouldContinue: attempt < 2 }) },
      );
      seen.push(state);
      await ctx.wait({ minutes: 10 });
      await ctx.wait({ minutes: 10 });
      return state;
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(checks).toBe(2);
    // The live value went through serdes too, so it equals the replayed ones.
    expect(seen).toEqual([
      { at: '2026-01-02T00:00:00.000Z' },
      { at: '2026-01-02T00:00:00.000Z' },
      { at: '2026-01-02T00:00:00.000Z' },
    ]);
    expect(result.getInvocationCount()).toBe(4);
  });

  it('fails with wait_for_condition_exhausted when the next check would pass timeoutSeconds', async () => {
    let checks = 0;
    const handler = withDurableExecution(async (_e, ctx) =>
      ctx.waitForCondition(
        async () => {
          checks++;
          return 'pending';
        },
        {
          initialState: 'pending',
          waitStrategy: createWaitStrategy({
            shouldContinuePolling: () => true,
            initialDelay: { seconds: 10 },
            backoffRate: 1,
            jitter: JitterStrategy.NONE,
            timeoutSeconds: 25,
          }),
        },
      ),
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    // Checks at 0, 10 and 20 s; one at 30 s would be past 25 s.
    expect(checks).toBe(3);
    expect(result.getStatus()).toBe('FAILED');
    // As on AWS: the run's error is the uncaught StepError (the check's record names the cause).
    expect(result.getError()).toMatchObject({
      errorType: 'StepError',
      code: 'wait_for_condition_exhausted',
    });
  });

  it('fails the run as non_deterministic when a plain step was recorded at its place', async () => {
    let invocation = 0;
    const handler = withDurableExecution(async (_e, ctx) => {
      invocation++;
      // The same name and type (STEP) at id 1, but a plain step the first time.
      const value =
        invocation === 1
          ? await ctx.step('poll', async () => 1)
          : await ctx.waitForCondition('poll', async (n: number) => n, {
              initialState: 1,
              waitStrategy: () => ({ shouldContinue: false }),
            });
      await ctx.wait({ seconds: 1 });
      return value;
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getStatus()).toBe('FAILED');
    expect(result.getError()?.code).toBe('non_deterministic');
    expect(result.getError()?.errorMessage).toBe(
      '[Unrecoverable Execution] Non-deterministic execution detected: Operation subtype mismatch for step "1". ' +
        'Expected subtype "Step", but got "WaitForCondition". This indicates non-deterministic control flow in your workflow code.',
    );
  });

  it('refuses bad arguments with InvalidArgumentError naming the field', async () => {
    const fields: string[] = [];
    const strategy = createWaitStrategy({ shouldContinuePolling: () => false });
    const handler = withDurableExecution(async (_e, ctx) => {
      const wfc = ctx.waitForCondition.bind(ctx) as (...args: unknown[]) => Promise<unknown>;
      const check = async (s: unknown) => s;
      fields.push(await invalidField(() => wfc('name', 'not a function', { initialState: 1, waitStrategy: strategy })));
      fields.push(await invalidField(() => wfc(check)));
      fields.push(await invalidField(() => wfc(check, { initialState: 1 })));
      fields.push(await invalidField(() => wfc(check, { waitStrategy: strategy })));
      fields.push(await invalidField(() => wfc(check, { initialState: 1, waitStrategy: strategy, extra: 1 })));
      fields.push(await invalidField(() => wfc(check, { initialState: 1, waitStrategy: strategy, serdes: {} })));
      // A bad decision is a bug of the strategy: refused at the call that got it.
      fields.push(
        await invalidField(() =>
          wfc(check, { initialState: 1, waitStrategy: () => ({ shouldContinue: true, delay: { seconds: 0 } }) }),
        ),
      );
      return 'checked';
    });
    expect((await new LocalDurableTestRunner({ handlerFunction: handler }).run()).getResult()).toBe('checked');
    expect(fields).toEqual([
      'check',
      'config',
      'config.waitStrategy',
      'config.initialState',
      'config.extra',
      'config.serdes',
      'config.waitStrategy',
    ]);
  });
});

describe('createWaitStrategy', () => {
  const always = { shouldContinuePolling: () => true };

  it("has AWS's defaults: 60 checks, 5 s ×1.5 up to 300 s, FULL jitter", () => {
    const strategy = createWaitStrategy({ ...always, jitter: JitterStrategy.NONE });
    const delays = Array.from({ length: 15 }, (_, i) => {
      const decision = strategy('x', i + 1);
      return decision.shouldContinue ? decision.delay.seconds : 'stop';
    });
    // The same sequence as AWS's createWaitStrategy with jitter NONE.
    expect(delays).toEqual([5, 8, 11, 17, 25, 38, 57, 85, 128, 192, 288, 300, 300, 300, 300]);
    expect(strategy('x', 59)).toEqual({ shouldContinue: true, delay: { seconds: 300 } });
    expect(() => strategy('x', 60)).toThrow('waitForCondition exceeded maximum attempts (60)');
    // FULL by default: between 1 s (the floor) and the computed delay.
    const full = createWaitStrategy({ ...always, random: () => 0.5 });
    expect(full('x', 2)).toEqual({ shouldContinue: true, delay: { seconds: 4 } });
    expect(createWaitStrategy({ ...always, random: () => 0 })('x', 1)).toEqual({
      shouldContinue: true,
      delay: { seconds: 1 },
    });
  });

  it('stops as soon as shouldContinuePolling is false, even on the last attempt', () => {
    const strategy = createWaitStrategy({ shouldContinuePolling: (n: number) => n < 10, maxAttempts: 2 });
    expect(strategy(10, 2)).toEqual({ shouldContinue: false });
    expect(() => strategy(3, 2)).toThrow(/maximum attempts \(2\)/);
  });

  it('validates its config, naming the field', async () => {
    const bad: unknown[] = [
      {},
      { ...always, maxAttempts: 0 },
      { ...always, maxAttempts: 1.5 },
      { ...always, initialDelay: { seconds: -1 } },
      { ...always, maxDelay: { seconds: 0 } },
      { ...always, backoffRate: 0.5 },
      { ...always, jitter: 'SOME' },
      { ...always, timeoutSeconds: 0 },
      { ...always, shouldContinue: () => true },
      null,
    ];
    const fields = [];
    for (const config of bad) fields.push(await invalidField(() => createWaitStrategy(config as never)));
    expect(fields).toEqual([
      'shouldContinuePolling',
      'maxAttempts',
      'maxAttempts',
      'initialDelay.seconds',
      'maxDelay',
      'backoffRate',
      'jitter',
      'timeoutSeconds',
      'shouldContinue',
      'config',
    ]);
  });
});
