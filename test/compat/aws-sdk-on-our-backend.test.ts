import { TestDriver } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AwsDurableSdk, importAwsSdk } from '../support/aws-sdk';

/**
 * AWS's own SDK (`@aws/durable-execution-sdk-js` 2.4.0), its handlers wrapped by AWS's
 * `withDurableExecution` with no config line, run on our engine through our test driver (the
 * engine under `LocalDurableTestRunner`): every wait, retry and callback really ends the
 * invocation and the next one replays, as on Lambda.
 */

let aws: AwsDurableSdk;

beforeAll(async () => {
  aws = await importAwsSdk();
});

/** Waits (real time, a bounded number of turns) until `read` gives a value. */
async function eventually<T>(read: () => T | undefined): Promise<T> {
  for (let i = 0; i < 2000; i++) {
    const value = read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('value never came');
}

describe("AWS's SDK on our test driver", () => {
  it('completes a run with a retried step, a wait, a callback, map, parallel and a child context', async () => {
    let attempts = 0;
    let callbackId: string | undefined;
    const handler = aws.withDurableExecution(async (event: { n: number }, ctx) => {
      const flaky = await ctx.step(
        'flaky',
        async () => {
          attempts += 1;
          if (attempts < 3) throw new Error(`transient ${attempts}`);
          return event.n * 2;
        },
        { retryStrategy: (_error, attempt) => ({ shouldRetry: attempt < 5, delay: { seconds: 30 } }) },
      );
      await ctx.wait('pause', { hours: 2 });
      const approval = await ctx.waitForCallback<string>(
        'approval',
        async (id) => {
          callbackId = id;
        },
        { timeout: { days: 1 } },
      );
      const doubled = await ctx.map('double', [1, 2, 3], async (child, x) => child.step(`x${x}`, async () => x * 2));
      const both = await ctx.parallel('both', [
        async (child) => child.step('left', async () => 'L'),
        async (child) => child.step('right', async () => 'R'),
      ]);
      const inner = await ctx.runInChildContext('child', async (child) => {
        await child.wait({ seconds: 90 });
        return child.step('inner', async () => `inner-${event.n}`);
      });
      return { flaky, approval, doubled: doubled.getResults(), both: both.getResults(), inner };
    });
    const driver = new TestDriver({ main: handler });
    const run = await driver.start('main', { n: 21 });
    const done = driver.runUntilDone(run.runId);
    const id = await eventually(() => callbackId);
    // AWS's callbacks hand the raw result string to the handler by default.
    await driver.sendCallbackSuccess(id, 'approved');
    const ended = await done;

    expect(ended.status).toBe('SUCCEEDED');
    expect(JSON.parse(ended.result ?? 'null')).toEqual({
      flaky: 42,
      approval: 'approved',
      doubled: [2, 4, 6],
      both: ['L', 'R'],
      inner: 'inner-21',
    });
    expect(attempts).toBe(3);
    const ops = await driver.engine.getOperations(run.runId);
    const flaky = ops.find((op) => op.Name === 'flaky');
    expect(flaky?.StepDetails?.Attempt).toBe(3);
    expect(flaky?.StepDetails?.FailedAttempts?.map((f) => f.Error.ErrorMessage)).toEqual([
      'transient 1',
      'transient 2',
    ]);
    expect(ops.find((op) => op.Name === 'pause')?.Status).toBe('SUCCEEDED');
    // Each retry, the wait, the callback and the child's wait ended an invocation.
    expect((driver.invocations.get(run.runId) ?? []).length).toBeGreaterThanOrEqual(6);
  });

  it("invokes another function (AWS-wrapped and ours) and returns the child runs' results", async () => {
    const child = aws.withDurableExecution(async (event: { x: number }, ctx) => {
      await ctx.wait({ minutes: 5 });
      return ctx.step('square', async () => event.x * event.x);
    });
    const oursChild = withDurableExecution(async (event: { x: number }) => event.x + 1);
    const parent = aws.withDurableExecution(async (_event: unknown, ctx) => {
      const squared = await ctx.invoke<{ x: number }, number>('square-it', 'child', { x: 7 });
      const plusOne = await ctx.invoke<{ x: number }, number>('plus-one', 'ours', { x: squared });
      return { squared, plusOne };
    });
    const driver = new TestDriver({ parent, child, ours: oursChild });
    const run = await driver.start('parent', {});
    const ended = await driver.runUntilDone(run.runId);

    expect(ended.status).toBe('SUCCEEDED');
    expect(JSON.parse(ended.result ?? 'null')).toEqual({ squared: 49, plusOne: 50 });
    const invokes = (await driver.engine.getOperations(run.runId)).filter((op) => op.Type === 'CHAINED_INVOKE');
    expect(invokes.map((op) => [op.Name, op.Status])).toEqual([
      ['square-it', 'SUCCEEDED'],
      ['plus-one', 'SUCCEEDED'],
    ]);
    expect(driver.runIds()).toHaveLength(3);
  });

  it("fails the run with AWS's error fields when a step exhausts its retries", async () => {
    const handler = aws.withDurableExecution(async (_event: unknown, ctx) => {
      await ctx.step(
        'doomed',
        async () => {
          throw new TypeError('no luck');
        },
        { retryStrategy: (_error, attempt) => ({ shouldRetry: attempt < 2, delay: { seconds: 1 } }) },
      );
    });
    const driver = new TestDriver({ main: handler });
    const run = await driver.start('main', undefined);
    const ended = await driver.runUntilDone(run.runId);

    expect(ended.status).toBe('FAILED');
    expect(ended.error).toMatchObject({ ErrorType: 'StepError', ErrorMessage: 'no luck' });
    const doomed = (await driver.engine.getOperations(run.runId)).find((op) => op.Name === 'doomed');
    expect([doomed?.Status, doomed?.StepDetails?.Attempt]).toEqual(['FAILED', 2]);
  });

  it('completes a callback failed from outside, and hands AWS an empty event when the run has no input', async () => {
    let callbackId: string | undefined;
    let seen: unknown;
    const handler = aws.withDurableExecution(async (event: unknown, ctx) => {
      seen = event;
      const [promise, id] = await ctx.createCallback('outside');
      await ctx.step('publish', async () => {
        callbackId = id;
      });
      try {
        return await promise;
      } catch (error) {
        return { refused: (error as Error).message };
      }
    });
    const driver = new TestDriver({ main: handler });
    const run = await driver.start('main', undefined);
    const done = driver.runUntilDone(run.runId);
    await driver.sendCallbackFailure(await eventually(() => callbackId), {
      ErrorType: 'Refused',
      ErrorMessage: 'not today',
    });
    const ended = await done;

    expect(seen).toEqual({});
    expect(ended.status).toBe('SUCCEEDED');
    expect(JSON.parse(ended.result ?? 'null')).toEqual({ refused: 'not today' });
  });

  it('finishes runs of an AWS-wrapped handler under injected faults (lost writes, killed invocations, dropped wake-ups)', async () => {
    for (const seed of [11, 12, 13, 14, 15, 16]) {
      let callbackId: string | undefined;
      const handler = aws.withDurableExecution(async (event: { n: number }, ctx) => {
        const a = await ctx.step('a', async () => event.n + 1);
        await ctx.wait({ minutes: 1 });
        const cb = await ctx.waitForCallback<string>('cb', async (id) => {
          callbackId = id;
        });
        const b = await ctx.map('m', [1, 2], async (c, x) => c.step(`m${x}`, async () => x * a));
        return { a, cb, b: b.getResults() };
      });
      const driver = new TestDriver({ main: handler }, { faults: { seed, defaultProbability: 0.08 } });
      const run = await driver.start('main', { n: seed });
      const done = driver.runUntilDone(run.runId);
      await driver.sendCallbackSuccess(await eventually(() => callbackId), 'go');
      const ended = await done;
      expect([seed, ended.status, JSON.parse(ended.result ?? 'null')]).toEqual([
        seed,
        'SUCCEEDED',
        { a: seed + 1, cb: 'go', b: [seed + 1, 2 * (seed + 1)] },
      ]);
      expect(driver.faults.length).toBeGreaterThan(0);
    }
  });

  it('fails the run with invalid_handler_output when a plain function answers no invocation output', async () => {
    const driver = new TestDriver({ main: async () => 'not an output' });
    const run = await driver.start('main', {});
    const ended = await driver.runUntilDone(run.runId);
    expect(ended.status).toBe('FAILED');
    expect(ended.error).toMatchObject({ ErrorType: 'InvalidHandlerOutput', ErrorCode: 'invalid_handler_output' });
  });

  it('times a callback out where no one completes it, as our engine decides from its timeout', async () => {
    const handler = aws.withDurableExecution(async (_event: unknown, ctx) => {
      try {
        return await ctx.waitForCallback('never', async () => {}, { timeout: { minutes: 30 } });
      } catch (error) {
        return { name: (error as Error).name, message: (error as Error).message };
      }
    });
    const driver = new TestDriver({ main: handler });
    const run = await driver.start('main', {});
    const ended = await driver.runUntilDone(run.runId);

    expect(ended.status).toBe('SUCCEEDED');
    const callback = (await driver.engine.getOperations(run.runId)).find((op) => op.Type === 'CALLBACK');
    expect(callback?.Status).toBe('TIMED_OUT');
    expect((callback?.EndTimestamp ?? 0) - (callback?.StartTimestamp ?? 0)).toBeGreaterThanOrEqual(30 * 60_000);
    // AWS's SDK turns a TIMED_OUT callback into its own CallbackTimeoutError.
    expect(JSON.parse(ended.result ?? 'null')).toMatchObject({ name: 'CallbackTimeoutError' });
  });

  it('polls a waitForCondition across invocations, its state carried by our engine between them', async () => {
    let checks = 0;
    const handler = aws.withDurableExecution(async (_event: unknown, ctx) =>
      ctx.waitForCondition<{ count: number }>(
        'count-up',
        async (state) => {
          checks += 1;
          return { count: state.count + 1 };
        },
        {
          initialState: { count: 0 },
          waitStrategy: (state) =>
            state.count < 4 ? { shouldContinue: true, delay: { seconds: 45 } } : { shouldContinue: false },
        },
      ),
    );
    const driver = new TestDriver({ main: handler });
    const run = await driver.start('main', {});
    const ended = await driver.runUntilDone(run.runId);

    expect([ended.status, JSON.parse(ended.result ?? 'null')]).toEqual(['SUCCEEDED', { count: 4 }]);
    expect(checks).toBe(4);
    expect(driver.invocations.get(run.runId)).toHaveLength(4);
    // Lambda takes a RETRY without an Error; our engine stores a note, which AWS's SDK never sees.
    const poll = (await driver.engine.getOperations(run.runId)).find((op) => op.Name === 'count-up');
    expect(poll?.StepDetails?.FailedAttempts?.map((f) => f.Error.ErrorCode)).toEqual([
      'wait_for_condition_continue',
      'wait_for_condition_continue',
      'wait_for_condition_continue',
    ]);
  });

  it("numbers a step's attempts as AWS's SDK does, under both step semantics", async () => {
    for (const semantics of [aws.StepSemantics.AtLeastOncePerRetry, aws.StepSemantics.AtMostOncePerRetry]) {
      const seen: number[] = [];
      const retries: number[] = [];
      const handler = aws.withDurableExecution(async (_event: unknown, ctx) =>
        ctx.step(
          'counted',
          async (step) => {
            seen.push(step.attempt);
            if (seen.length < 3) throw new Error('again');
            return seen.length;
          },
          {
            semantics,
            retryStrategy: (_error, attempt) => {
              retries.push(attempt);
              return { shouldRetry: true, delay: { seconds: 2 } };
            },
          },
        ),
      );
      const driver = new TestDriver({ main: handler });
      const run = await driver.start('main', {});
      const ended = await driver.runUntilDone(run.runId);
      expect([semantics, ended.status, ended.result, seen, retries]).toEqual([
        semantics,
        'SUCCEEDED',
        '3',
        [1, 2, 3],
        [1, 2],
      ]);
    }
  });
});
