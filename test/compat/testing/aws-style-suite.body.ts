/**
 * A test body written the way AWS's testing package is used (setupTestEnvironment with skipTime,
 * a shared runner reset before each test, getOperation + waitForData, callbacks completed with
 * AWS's shapes, getInvocations, getHistoryEvents, toEqual on getError). Declared once per target
 * by aws-style-suite.*.test.ts: only the imports differ between targets.
 */
import type { DurableContext } from '@durable-lambda/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Target, TestingModule, Wrap } from './aws-style-suite.targets';

type Runner = InstanceType<TestingModule['LocalDurableTestRunner']>;

const workflows = (withDurableExecution: Wrap) => ({
  greet: withDurableExecution(async (event: { name?: string }, ctx: DurableContext) => {
    const greeting = await ctx.step('greet', async () => `hi ${event.name ?? 'nobody'}`);
    await ctx.wait('pause', { seconds: 3600 });
    return { greeting, keys: Object.keys(event) };
  }),
  fails: withDurableExecution(async () => {
    throw new TypeError('boom');
  }),
  approval: withDurableExecution(async (_event: unknown, ctx: DurableContext) => {
    const [answer] = await ctx.createCallback('approval', {
      timeout: { minutes: 10 },
      heartbeatTimeout: { seconds: 30 },
    });
    try {
      return { answer: await answer };
    } catch (error) {
      return { refused: (error as Error).message };
    }
  }),
  submitted: withDurableExecution(async (_event: unknown, ctx: DurableContext) =>
    ctx.waitForCallback('ask', async () => {}, { timeout: { minutes: 5 } }),
  ),
  ticks: withDurableExecution(async (_event: unknown, ctx: DurableContext) => {
    for (let i = 0; i < 3; i++) await ctx.step('tick', async () => i * 10);
    return 'done';
  }),
  caller: withDurableExecution(async (_event: unknown, ctx: DurableContext) =>
    ctx.invoke('add', 'adder', { a: 2, b: 3 }),
  ),
});

/** Declares the AWS-style suite for one target. */
export function styleSuite(target: Target): void {
  describe(target.name, () => {
    let T: TestingModule;
    let flows: ReturnType<typeof workflows>;
    const runners: Record<string, Runner> = {};
    const runner = (name: keyof ReturnType<typeof workflows>) => runners[name] as Runner;

    beforeAll(async () => {
      T = await target.testing();
      flows = workflows(await target.wrap());
      await T.LocalDurableTestRunner.setupTestEnvironment({ skipTime: true });
      for (const [name, handlerFunction] of Object.entries(flows)) {
        runners[name] = new T.LocalDurableTestRunner({ handlerFunction });
      }
      runner('caller').registerFunction('adder', async (event: { a: number; b: number }) => event.a + event.b);
    });

    afterAll(async () => {
      await T.LocalDurableTestRunner.teardownTestEnvironment();
    });

    beforeEach(() => {
      for (const r of Object.values(runners)) r.reset();
    });

    it('runs steps and waits, and shows each operation, invocation and event', async () => {
      const execution = await runner('greet').run();
      expect(execution.getStatus()).toBe(T.ExecutionStatus.SUCCEEDED);
      // No payload: the handler is handed `{}`.
      expect(execution.getResult()).toEqual({ greeting: 'hi nobody', keys: [] });
      expect(runner('greet').getOperation('greet').getStepDetails()).toEqual({
        attempt: 1,
        nextAttemptTimestamp: undefined,
        result: 'hi nobody',
        error: undefined,
      });
      const pause = runner('greet').getOperation('pause');
      expect(pause.getWaitDetails()?.waitSeconds).toBe(3600);
      expect(pause.getType()).toBe(T.OperationType.WAIT);
      expect(pause.getStatus()).toBe(T.OperationStatus.SUCCEEDED);
      expect(pause.getOperationData()?.StartTimestamp).toBeInstanceOf(Date);
      expect(execution.getOperations().map((op) => op.getType())).toEqual(['STEP', 'WAIT']);
      const invocations = execution.getInvocations();
      expect(invocations).toHaveLength(2);
      for (const invocation of invocations) {
        expect(invocation).toEqual({
          startTimestamp: expect.any(Date),
          endTimestamp: expect.any(Date),
          requestId: expect.any(String),
          error: undefined,
        });
      }
      const events = execution.getHistoryEvents();
      expect(events[0]?.EventType).toBe('ExecutionStarted');
      expect(events.at(-1)?.EventType).toBe('ExecutionSucceeded');
      expect(
        runner('greet')
          .getOperation('greet')
          .getEvents()
          ?.map((e) => e.EventType),
      ).toEqual(['StepStarted', 'StepSucceeded']);
    });

    it('shows a failed run with exactly its error fields, and getResult throwing its message', async () => {
      const execution = await runner('fails').run({ payload: { any: 'thing' } });
      expect(execution.getStatus()).toBe(T.ExecutionStatus.FAILED);
      expect(execution.getError()).toEqual({
        errorMessage: 'boom',
        errorType: 'TypeError',
        errorData: undefined,
        stackTrace: undefined,
      });
      expect(() => execution.getResult()).toThrow('boom');
      expect(execution.getInvocations().at(-1)?.error).toMatchObject({ errorMessage: 'boom', errorType: 'TypeError' });
      const succeeded = await runner('greet').run({ payload: { name: 'Ada' } });
      expect(() => succeeded.getError()).toThrow('Cannot get error for succeeded execution');
    });

    it('keeps a callback alive with heartbeats until the test completes it', async () => {
      const running = runner('approval').run();
      const approval = runner('approval').getOperation('approval');
      await approval.waitForData(T.WaitingOperationStatus.STARTED);
      expect(approval.isCallback()).toBe(true);
      await approval.sendCallbackHeartbeat();
      await approval.sendCallbackHeartbeat();
      await approval.sendCallbackSuccess(JSON.stringify({ ok: true }));
      const execution = await running;
      expect(execution.getStatus()).toBe(T.ExecutionStatus.SUCCEEDED);
      expect(execution.getResult()).toEqual({ answer: JSON.stringify({ ok: true }) });
      expect(approval.getCallbackDetails()).toEqual({
        callbackId: expect.any(String),
        result: { ok: true },
        error: undefined,
      });
    });

    it("fails a callback with AWS's ErrorObject", async () => {
      const running = runner('approval').run();
      const approval = await runner('approval').getOperation('approval').waitForData();
      await approval.sendCallbackFailure({ ErrorMessage: 'denied', ErrorType: 'Refusal' });
      const execution = await running;
      expect(execution.getResult()).toEqual({ refused: 'denied' });
      expect(approval.getCallbackDetails()?.error).toEqual({
        errorMessage: 'denied',
        errorType: 'Refusal',
        errorData: undefined,
        stackTrace: undefined,
      });
    });

    it('completes a waitForCallback once its submitter has run', async () => {
      const running = runner('submitted').run();
      const ask = await runner('submitted').getOperation('ask').waitForData(T.WaitingOperationStatus.SUBMITTED);
      expect(ask.isWaitForCallback()).toBe(true);
      await ask.sendCallbackSuccess('yes');
      const execution = await running;
      expect(execution.getStatus()).toBe(T.ExecutionStatus.SUCCEEDED);
      expect(execution.getResult()).toBe('yes');
    });

    it('finds operations of the same name by index', async () => {
      await runner('ticks').run();
      expect(runner('ticks').getOperationByNameAndIndex('tick', 2).getStepDetails()?.result).toBe(20);
      expect(runner('ticks').getOperation('tick', 1).getStepDetails()?.result).toBe(10);
      expect(runner('ticks').getOperationByIndex(0).getName()).toBe('tick');
      expect(runner('ticks').getOperation('tick').getStartTimestamp()).toBeInstanceOf(Date);
    });

    it('invokes a registered plain function', async () => {
      const execution = await runner('caller').run();
      expect(execution.getResult()).toBe(5);
      expect(runner('caller').getOperation('add').getChainedInvokeDetails()).toEqual({ result: 5, error: undefined });
    });

    it('prints the operations as a table with the columns asked for', async () => {
      const execution = await runner('ticks').run();
      const table = vi.spyOn(console, 'table').mockImplementation(() => {});
      try {
        execution.print();
        execution.print({ parentId: false, startTime: false, endTime: false, duration: false });
        const [all, some] = table.mock.calls.map((call) => call[0] as Record<string, string>[]);
        expect(Object.keys(all?.[0] ?? {})).toEqual([
          'parentId',
          'name',
          'type',
          'subType',
          'status',
          'startTime',
          'endTime',
          'duration',
        ]);
        expect(some).toEqual(
          [0, 1, 2].map(() => ({ name: 'tick', type: 'STEP', subType: 'Step', status: 'SUCCEEDED' })),
        );
      } finally {
        table.mockRestore();
      }
    });
  });
}
