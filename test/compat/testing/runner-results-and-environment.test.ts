import { performance } from 'node:perf_hooks';
import type { RunRecord } from '@durable-lambda/engine';
import * as main from '@durable-lambda/local';
import * as testing from '@durable-lambda/local/testing';
import {
  DurableTestResult,
  ExecutionStatus,
  InvocationType,
  LocalDurableTestRunner,
  OperationStatus,
  OperationType,
  WaitingOperationStatus,
} from '@durable-lambda/local/testing';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { afterEach, describe, expect, it } from 'vitest';

const stepThenFail = withDurableExecution(async (_e, ctx) =>
  ctx.step(
    'bad',
    async () => {
      throw new RangeError('nope');
    },
    { retry: { maxAttempts: 2, initialMs: 1000, jitter: 'NONE' } },
  ),
);

describe('the testing entry exports AWS testing names', () => {
  it('has the enums with the values of AWS (ExecutionStatus and InvocationType as in @aws-sdk/client-lambda)', () => {
    expect(ExecutionStatus).toEqual({
      FAILED: 'FAILED',
      RUNNING: 'RUNNING',
      STOPPED: 'STOPPED',
      SUCCEEDED: 'SUCCEEDED',
      TIMED_OUT: 'TIMED_OUT',
    });
    expect(InvocationType).toEqual({ DryRun: 'DryRun', Event: 'Event', RequestResponse: 'RequestResponse' });
    expect(OperationType.CALLBACK).toBe('CALLBACK');
    expect(OperationStatus.TIMED_OUT).toBe('TIMED_OUT');
    expect(WaitingOperationStatus.SUBMITTED).toBe('SUBMITTED');
  });

  it('exports the same objects from the main entry', () => {
    expect([main.ExecutionStatus, main.InvocationType, main.OperationType, main.OperationStatus]).toEqual([
      testing.ExecutionStatus,
      testing.InvocationType,
      testing.OperationType,
      testing.OperationStatus,
    ]);
    expect(main.LocalDurableTestRunner).toBe(testing.LocalDurableTestRunner);
    expect(main.ExecutionStatus).toBe(testing.ExecutionStatus);
  });
});

describe('errors and details have exactly AWS fields, ours hidden', () => {
  it('keeps our code on getError without breaking toEqual, and throws for a succeeded run', async () => {
    const result = await new LocalDurableTestRunner({ handlerFunction: stepThenFail }).run();
    const error = result.getError();
    expect(Object.keys(error).sort()).toEqual(['errorData', 'errorMessage', 'errorType', 'stackTrace']);
    expect(error.code).toBe('step_failed');
    expect(error).toMatchObject({ code: 'step_failed' });
    const ok = await new LocalDurableTestRunner({ handlerFunction: withDurableExecution(async () => 1) }).run();
    expect(() => ok.getError()).toThrow('Cannot get error for succeeded execution');
  });

  it('throws from getResult an Error with the run error message, its code along', async () => {
    const result = await new LocalDurableTestRunner({ handlerFunction: stepThenFail }).run();
    let thrown: unknown;
    try {
      result.getResult();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).message).toBe(result.getError().errorMessage);
    expect((thrown as { code?: string }).code).toBe('step_failed');
  });

  it('shows step details with four fields and failed attempts hidden', async () => {
    const runner = new LocalDurableTestRunner({ handlerFunction: stepThenFail });
    await runner.run();
    const details = runner.getOperation('bad').getStepDetails()!;
    expect(Object.keys(details).sort()).toEqual(['attempt', 'error', 'nextAttemptTimestamp', 'result']);
    expect(details.attempt).toBe(2);
    expect(details.failedAttempts.map((f) => [f.attempt, f.error?.errorMessage])).toEqual([
      [1, 'nope'],
      [2, 'nope'],
    ]);
  });

  it('shows invocations with four fields, index, status and start hidden', async () => {
    const result = await new LocalDurableTestRunner({ handlerFunction: stepThenFail, startTime: 1_000_000 }).run();
    const invocations = result.getInvocations();
    expect(invocations.map((i) => Object.keys(i).sort())).toEqual(
      invocations.map(() => ['endTimestamp', 'error', 'requestId', 'startTimestamp']),
    );
    expect(invocations.map((i) => [i.index, i.status])).toEqual([
      [0, 'PENDING'],
      [1, 'FAILED'],
    ]);
    expect(invocations[0]?.startedAt).toEqual(invocations[0]?.startTimestamp);
    expect(invocations[0]?.error).toBeUndefined();
    expect(invocations[1]?.error).toEqual(result.getError());
  });

  it('shows a run cancelled through our API as STOPPED, the status Lambda gives it', () => {
    const run = { runId: 'r1', status: 'CANCELLED' } as RunRecord;
    const result = new DurableTestResult(run, [], [], []);
    expect(result.getStatus()).toBe(ExecutionStatus.STOPPED);
    expect(result.getError().errorMessage).toBe('Execution failed with status "STOPPED"');
  });

  it('returns operation data in AWS shape (Date timestamps), ours through getStoredOperation', async () => {
    const runner = new LocalDurableTestRunner({ handlerFunction: stepThenFail, startTime: 5_000 });
    await runner.run();
    const op = runner.getOperation('bad');
    expect(op.getOperationData()?.StartTimestamp).toEqual(new Date(5_000));
    expect(op.getStoredOperation().StartTimestamp).toBe(5_000);
    expect(op.getStartTimestamp()).toEqual(new Date(5_000));
    expect(op.getSubType()).toBe('Step');
    expect(runner.getOperation('missing').getId()).toBeUndefined();
  });
});

describe('run, reset and registered functions', () => {
  it('hands the handler {} when run without a payload', async () => {
    const seen: unknown[] = [];
    const handler = withDurableExecution(async (event) => {
      seen.push(event);
      return null;
    });
    await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(seen).toEqual([{}]);
  });

  it('forgets the last run on reset', async () => {
    const runner = new LocalDurableTestRunner({ handlerFunction: stepThenFail });
    await runner.run();
    expect(runner.getOperation('bad').exists()).toBe(true);
    runner.reset();
    expect(runner.getOperation('bad').exists()).toBe(false);
  });

  it('invokes plain functions in promise and callback style, and fails the invoke with a throw', async () => {
    const handler = withDurableExecution(async (_e, ctx: DurableContext) => {
      const sum = await ctx.invoke<{ n: number }, number>('a', 'double', { n: 4 });
      const text = await ctx.invoke<unknown, string>('b', 'legacy', {});
      try {
        await ctx.invoke('c', 'broken', {});
      } catch (error) {
        return { sum, text, error: (error as Error).message };
      }
      return 'unreachable';
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler })
      .registerFunction('double', async (event: { n: number }) => event.n * 2)
      .registerFunction('legacy', (_event: unknown, _ctx: unknown, cb: (e: unknown, r: unknown) => void) =>
        cb(null, 'called back'),
      )
      .registerFunction('broken', async () => {
        throw new Error('out of order');
      });
    const result = await runner.run();
    expect(result.getResult()).toEqual({ sum: 8, text: 'called back', error: 'out of order' });
    const data = runner.getOperation('a').getOperationData()?.ChainedInvokeDetails;
    // AWS's fields only, enumerable; ours beside them.
    expect(data).toEqual({ Result: '8' });
    expect(data?.FunctionName).toBe('double');
    expect(runner.getOperation('c').getChainedInvokeDetails()?.error).toMatchObject({
      errorMessage: 'out of order',
      errorType: 'Error',
    });
  });
});

describe('callbacks', () => {
  const approval = withDurableExecution(async (_e, ctx: DurableContext) => {
    const [answer] = await ctx.createCallback('approval', { timeout: { hours: 1 }, heartbeatTimeout: { seconds: 1 } });
    try {
      return await answer;
    } catch (error) {
      return `failed: ${(error as Error).message}`;
    }
  });

  it('accepts our older failure forms besides AWS ErrorObject', async () => {
    for (const failure of [{ errorMessage: 'old form' }, new Error('an error')]) {
      const runner = new LocalDurableTestRunner({ handlerFunction: approval });
      const running = runner.run();
      await (await runner.getOperation('approval').waitForData()).sendCallbackFailure(failure);
      expect((await running).getResult()).toBe(`failed: ${failure instanceof Error ? failure.message : 'old form'}`);
    }
  });

  it('jumps the virtual clock to the deadline of a callback the test does not handle', async () => {
    const runner = new LocalDurableTestRunner({ handlerFunction: approval, startTime: 0 });
    const result = await runner.run();
    expect(result.getResult()).toMatch(/^failed: /);
    expect(runner.getOperation('approval').getStatus()).toBe('TIMED_OUT');
  });

  it('lets the heartbeat deadline of a callback the test holds pass in real time only', async () => {
    const runner = new LocalDurableTestRunner({ handlerFunction: approval });
    const running = runner.run();
    const started = performance.now();
    await runner.getOperation('approval').waitForData();
    const result = await running;
    expect(result.getResult()).toMatch(/^failed: /);
    // The one-second heartbeat timeout elapsed on the real clock, not in a jump.
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('resolves a waitForData taken before run(), and rejects one the run never satisfies', async () => {
    const runner = new LocalDurableTestRunner({ handlerFunction: approval });
    const early = runner.getOperation('approval').waitForData();
    const never = runner.getOperation('nothing').waitForData();
    const running = runner.run();
    await (await early).sendCallbackSuccess('yes');
    expect((await running).getResult()).toBe('yes');
    await expect(never).rejects.toThrow(/Operation was not found after execution completion/);
  });
});

describe('setupTestEnvironment', () => {
  afterEach(() => LocalDurableTestRunner.teardownTestEnvironment());
  const napper = withDurableExecution(async (_e, ctx: DurableContext) => {
    await ctx.wait({ seconds: 1 });
    return 'rested';
  });

  it('follows real time with skipTime false, as AWS', async () => {
    await LocalDurableTestRunner.setupTestEnvironment({ skipTime: false });
    const started = performance.now();
    const result = await new LocalDurableTestRunner({ handlerFunction: napper }).run();
    expect(result.getResult()).toBe('rested');
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('skips time with skipTime true, and a runner option overrides the environment', async () => {
    await LocalDurableTestRunner.setupTestEnvironment({ skipTime: true });
    const long = withDurableExecution(async (_e, ctx: DurableContext) => {
      await ctx.wait({ hours: 5 });
      return 'later';
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: long, startTime: 0 }).run();
    expect(result.getInvocations().map((i) => i.startTimestamp?.getTime())).toEqual([0, 5 * 3_600_000]);
    await LocalDurableTestRunner.setupTestEnvironment();
    const overridden = await new LocalDurableTestRunner({ handlerFunction: long, skipTime: true, startTime: 0 }).run();
    expect(overridden.getResult()).toBe('later');
  });

  it('refuses a bad skipTime, naming it', async () => {
    await expect(
      LocalDurableTestRunner.setupTestEnvironment({ skipTime: 'yes' as unknown as boolean }),
    ).rejects.toThrow(/params\.skipTime must be a boolean/);
  });
});

describe('getResult() is typed from the handler', () => {
  it('infers the result type of our handler without a type argument', async () => {
    const handler = withDurableExecution(async (event: { n: number }) => ({ doubled: event.n * 2 }));
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run({ payload: { n: 21 } });
    // Type-checked by `npm run typecheck`: this line does not compile if getResult() is unknown.
    const doubled: number | undefined = result.getResult()?.doubled;
    expect(doubled).toBe(42);
  });
});
