import { LocalDurableTestRunner } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

const workflow = withDurableExecution(async (event: { name: string }, ctx) => {
  const greeting = await ctx.step('greet', async () => `hello ${event.name}`);
  await ctx.wait('pause', { hours: 1 });
  const shout = await ctx.step(
    'shout',
    async ({ attempt }) => {
      if (attempt === 1) throw new Error('hoarse');
      return greeting.toUpperCase();
    },
    { retry: { initialMs: 600_000, maxMs: 600_000, jitter: 'NONE' } },
  );
  return { greeting, shout };
});

describe('LocalDurableTestRunner', () => {
  it('skips an hour-long wait and a ten-minute backoff instantly while recording their virtual times', async () => {
    const start = Date.UTC(2030, 0, 1);
    const runner = new LocalDurableTestRunner({ handlerFunction: workflow, startTime: start });
    const realStart = Date.now();
    const result = await runner.run({ payload: { name: 'ada' } });
    expect(Date.now() - realStart).toBeLessThan(1000);
    expect(result.getResult()).toEqual({ greeting: 'hello ada', shout: 'HELLO ADA' });
    const pause = runner.getOperation('pause').getWaitDetails();
    expect(pause).toEqual({ waitSeconds: 3600, scheduledEndTimestamp: new Date(start + 3_600_000) });
    const invocations = result.getInvocations();
    expect(invocations.map((i) => i.startedAt.getTime() - start)).toEqual([0, 3_600_000, 4_200_000]);
    expect(invocations.map((i) => i.status)).toEqual(['PENDING', 'PENDING', 'SUCCEEDED']);
    expect(result.getInvocationCount()).toBe(3);
  });

  it('exposes operations by name, index and id, with step details after a retry', async () => {
    const runner = new LocalDurableTestRunner({ handlerFunction: workflow });
    const shout = runner.getOperation('shout'); // taken before the run, resolved after
    expect(shout.exists()).toBe(false);
    const result = await runner.run({ payload: { name: 'bo' } });
    expect(shout.getStepDetails()).toMatchObject({ attempt: 2, result: 'HELLO BO', error: undefined });
    expect(runner.getOperationByIndex(0).getName()).toBe('greet');
    expect(runner.getOperationByIndex(1).getType()).toBe('WAIT');
    expect(runner.getOperationById('3').getName()).toBe('shout');
    expect(result.getOperations().map((o) => o.getName())).toEqual(['greet', 'pause', 'shout']);
    expect(result.getOperations({ status: 'SUCCEEDED' })).toHaveLength(3);
    expect(() => runner.getOperation('greet').getWaitDetails()).toThrow('Operation type STEP is not WAIT');
    // As AWS's: the simple getters answer undefined for an operation the run does not have.
    expect(runner.getOperation('nope').getStatus()).toBeUndefined();
    expect(runner.getOperation('nope').getStepDetails()).toBeUndefined();
    expect(() => runner.getOperation('nope').getStoredOperation()).toThrow(/no operation named "nope"/);
  });

  it('shows a failed step error with its code and a failed run with getResult throwing', async () => {
    const handler = withDurableExecution(async (_e, ctx) =>
      ctx.step(
        'bad',
        async () => {
          throw new SyntaxError('nope');
        },
        { retry: { maxAttempts: 1 } },
      ),
    );
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run();
    expect(result.getStatus()).toBe('FAILED');
    expect(runner.getOperation('bad').getStepDetails()?.error).toMatchObject({
      errorType: 'SyntaxError',
      errorMessage: 'nope',
      code: 'step_failed',
    });
    // As AWS's: getResult throws an Error carrying the run's error message.
    expect(() => result.getResult()).toThrow(new Error('nope'));
  });

  it('stops a runaway run that never finishes after maxInvocations', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      for (;;) await ctx.wait({ seconds: 1 });
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler, maxInvocations: 50 });
    await expect(runner.run()).rejects.toThrow(/more than 50 invocations/);
  });

  it('keeps each run separate: a second run starts from scratch', async () => {
    let calls = 0;
    const handler = withDurableExecution(async (_e, ctx) => ctx.step('count', async () => ++calls));
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    expect((await runner.run()).getResult()).toBe(1);
    expect((await runner.run()).getResult()).toBe(2);
  });

  it('offers the compat setup and teardown hooks as harmless no-ops', async () => {
    await expect(LocalDurableTestRunner.setupTestEnvironment({ skipTime: true })).resolves.toBeUndefined();
    await expect(LocalDurableTestRunner.teardownTestEnvironment()).resolves.toBeUndefined();
  });
});

describe('step attempt history', () => {
  it('keeps every failed attempt of a step with its error, also after the step succeeds', async () => {
    const handler = withDurableExecution(async (_e, ctx) =>
      ctx.step(
        'flaky',
        async ({ attempt }) => {
          if (attempt === 1) throw new TypeError('first');
          if (attempt === 2) throw Object.assign(new Error('second'), { code: 'busy' });
          return 'third time';
        },
        { retry: { initialMs: 1000, jitter: 'NONE' } },
      ),
    );
    const start = Date.UTC(2030, 5, 1);
    const runner = new LocalDurableTestRunner({ handlerFunction: handler, startTime: start });
    await runner.run();
    const details = runner.getOperation('flaky').getStepDetails()!;
    expect(details).toMatchObject({ attempt: 3, result: 'third time', error: undefined });
    expect(details.failedAttempts).toEqual([
      {
        attempt: 1,
        timestamp: new Date(start),
        error: expect.objectContaining({ errorType: 'TypeError', errorMessage: 'first', code: 'step_failed' }),
      },
      {
        attempt: 2,
        timestamp: new Date(start + 1000),
        error: expect.objectContaining({ errorMessage: 'second', code: 'busy' }),
      },
    ]);
  });
});

describe('fault injection in the test runner', () => {
  const start = Date.UTC(2030, 0, 1);
  const faultsOf = async (seed: number) => {
    const runner = new LocalDurableTestRunner({
      handlerFunction: workflow,
      startTime: start,
      faults: { seed, defaultProbability: 0.2 },
    });
    const result = await runner.run({ payload: { name: 'cy' } });
    return { result, faults: result.getFaults() };
  };

  it('gives the same result under faults, and lists the faults it injected', async () => {
    const { result, faults } = await faultsOf(11);
    expect(result.getResult()).toEqual({ greeting: 'hello cy', shout: 'HELLO CY' });
    expect(faults.length).toBeGreaterThan(0);
    expect(faults.filter((f) => f.run !== 'main' || f.runId !== result.getRunId())).toEqual([]);
  });

  it('replays the same faults for the same seed, and others for another seed', async () => {
    const first = await faultsOf(12);
    const again = await faultsOf(12);
    const other = await faultsOf(13);
    expect(again.faults).toEqual(first.faults);
    expect(again.result.getInvocations()).toEqual(first.result.getInvocations());
    expect(other.faults).not.toEqual(first.faults);
  });

  it('injects nothing and keeps the default path without the faults option', async () => {
    const result = await new LocalDurableTestRunner({ handlerFunction: workflow, startTime: start }).run({
      payload: { name: 'di' },
    });
    expect(result.getFaults()).toEqual([]);
    expect(result.getInvocationCount()).toBe(3);
  });

  it('refuses bad fault options naming the field', async () => {
    const runner = new LocalDurableTestRunner({ handlerFunction: workflow, faults: { seed: 1, race: 7 } });
    await expect(runner.run()).rejects.toMatchObject({ field: 'faults.race', code: 'invalid_argument' });
  });
});
