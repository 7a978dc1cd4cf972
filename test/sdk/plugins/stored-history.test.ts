import { TestDriver } from '@durable-lambda/local/testing';
import type { Operation } from '@durable-lambda/protocol';
import {
  type DurableInstrumentationPlugin,
  type InvocationEndInfo,
  type InvocationInfo,
  type OperationInfo,
  RetryAfterError,
  withDurableExecution,
} from '@durable-lambda/sdk';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { rememberLeftState, updatedOperationIds } from '../../../packages/sdk/src/plugins/updated-operations';
import type { AwsSdk } from '../../support/aws-sdk';

const START = Date.UTC(2025, 5, 2, 12, 0, 0);

/** Keeps what each invocation's start and end hooks were told, in order. */
function invocationLog() {
  const starts: InvocationInfo[] = [];
  const ends: InvocationEndInfo[] = [];
  const plugin: DurableInstrumentationPlugin = {
    onInvocationStart: async (info) => {
      starts.push(info);
    },
    onInvocationEnd: async (info) => {
      ends.push(info);
    },
  };
  return { starts, ends, plugin };
}

const byName = (ops: Record<string, OperationInfo>, name: string) => Object.values(ops).find((op) => op.name === name);
const namesOf = (ops: Record<string, OperationInfo>) =>
  Object.values(ops)
    .map((op) => op.name ?? op.type)
    .sort();

/**
 * A run of four invocations: a step fails once (its retry is the next invocation), a callback is
 * answered at the millisecond its invocation last wrote, a child run finishes, a wait ends.
 */
function workflow() {
  const log = invocationLog();
  let driver: TestDriver | undefined;
  let pending: string | undefined;
  let answered = false;
  const approver: DurableInstrumentationPlugin = {
    onInvocationEnd: async () => {
      const callbackId = pending;
      if (callbackId === undefined || answered) return;
      answered = true;
      setImmediate(() => void driver?.sendCallbackSuccess(callbackId, '"yes"'));
    },
  };
  const parent = withDurableExecution(
    async (_event: unknown, ctx) => {
      await ctx.step(
        'charge',
        async ({ attempt }) => {
          if (attempt === 1) throw new RetryAfterError('busy', 60_000);
          return attempt;
        },
        { retry: { maxAttempts: 2 } },
      );
      const [answer, callbackId] = await ctx.createCallback<string>('approve');
      pending = callbackId;
      const approval = await answer;
      const shipped = await ctx.invoke<string, string>('ship', 'shipper', 'parcel');
      await ctx.wait('cool-off', { minutes: 10 });
      return { approval, shipped };
    },
    { plugins: [log.plugin, approver] },
  );
  const shipper = withDurableExecution(async (input: string) => `shipped ${input}`);
  driver = new TestDriver({ orders: parent, shipper }, { startTime: START });
  return { ...log, driver };
}

describe('the plugin hooks carry the stored history (ours, added to AWS’s OperationInfo)', () => {
  it('gives failed attempts with their stored time and code, the next attempt, and the details of waits, callbacks, invokes', async () => {
    const { starts, ends, driver } = workflow();
    const run = await driver.runUntilDone((await driver.start('orders', {})).runId);
    expect(run.status).toBe('SUCCEEDED');
    const stored = driver.operations(run.runId);
    const storedNamed = (name: string) => stored.find((op) => op.Name === name) as Operation;

    // The first invocation ends with the step waiting for its retry: its history as stored.
    const charge = byName(ends[0]?.operations ?? {}, 'charge');
    const failure = storedNamed('charge').StepDetails?.FailedAttempts?.[0];
    expect(charge?.status).toBe('PENDING');
    expect(charge?.failedAttempts?.map((f) => [f.attempt, f.timestamp.getTime(), f.error.message])).toEqual([
      [1, failure?.Timestamp, 'busy'],
    ]);
    expect(charge?.failedAttempts?.[0]?.error.code).toBe('retry_after');
    expect(charge?.nextAttemptTimestamp?.getTime()).toBe((failure?.Timestamp ?? 0) + 60_000);

    const last = ends.at(-1)?.operations ?? {};
    expect(byName(last, 'approve')?.callbackId).toBe(storedNamed('approve').CallbackDetails?.CallbackId);
    expect(byName(last, 'ship')?.invokedFunctionName).toBe('shipper');
    const childRunId = storedNamed('ship').ChainedInvokeDetails?.ChildRunId;
    expect(childRunId).toBeDefined();
    expect(byName(last, 'ship')?.childRunId).toBe(childRunId);
    expect(byName(last, 'cool-off')?.scheduledEndTimestamp?.getTime()).toBe(
      storedNamed('cool-off').WaitDetails?.ScheduledEndTimestamp,
    );
    // What has no such history carries none.
    expect(byName(last, 'approve')?.failedAttempts).toBeUndefined();
    expect(byName(last, 'charge')?.callbackId).toBeUndefined();
    expect(starts[0]?.updatedOperations).toEqual({});
  });

  it('names in updatedOperations what changed from outside since the previous invocation, nothing it wrote itself', async () => {
    const { starts, driver } = workflow();
    const run = await driver.runUntilDone((await driver.start('orders', {})).runId);
    expect(run.status).toBe('SUCCEEDED');
    expect(starts.map((s) => s.isFirstInvocation)).toEqual([true, false, false, false, false]);
    expect(starts.map((s) => namesOf(s.updatedOperations))).toEqual([
      [],
      // The retry came due (time alone moved the step to READY).
      ['charge'],
      // Answered at the very millisecond the invocation before last wrote (it created the callback).
      ['approve'],
      ['ship'],
      ['cool-off'],
    ]);
    const stored = driver.operations(run.runId);
    const callback = stored.find((op) => op.Type === 'CALLBACK');
    expect(callback?.EndTimestamp).toBe(callback?.StartTimestamp);
    // Each is the operation as the invocation found it, ended.
    expect(starts[2]?.updatedOperations[callback?.Id ?? '']?.status).toBe('SUCCEEDED');
    expect(starts[4]?.updatedOperations).toEqual(
      Object.fromEntries(Object.entries(starts[4]?.operations ?? {}).filter(([, op]) => op.name === 'cool-off')),
    );
  });

  it('ends the EXECUTION operation in onInvocationEnd when the run ends in that invocation, and only then', async () => {
    const { ends, driver } = workflow();
    const run = await driver.runUntilDone((await driver.start('orders', {})).runId);
    const executions = ends.map((end) => Object.values(end.operations).find((op) => op.type === 'EXECUTION'));
    for (const execution of executions.slice(0, -1)) {
      expect(execution?.status).toBe('STARTED');
      expect(execution?.endTimestamp).toBeUndefined();
    }
    const final = executions.at(-1);
    expect(final?.status).toBe('SUCCEEDED');
    expect(final?.endTimestamp?.getTime()).toBe(run.endedAt);
    expect(final?.result).toBe(run.result);
  });
});

describe('updatedOperations without a memory of the previous invocation (another process ran it)', () => {
  const op = (fields: Partial<Operation> & Pick<Operation, 'Id' | 'Type' | 'Status'>): Operation => ({
    StartTimestamp: 1_000,
    ...fields,
  });
  const execution = op({ Id: '0', Type: 'EXECUTION', Status: 'STARTED', StartTimestamp: 500 });

  it('names what ended from outside at or after the last write, by the stored times', () => {
    const operations = [
      execution,
      op({ Id: 'a', Type: 'STEP', Status: 'SUCCEEDED', EndTimestamp: 2_000, StepDetails: { Attempt: 1 } }),
      // Ended before the step's end was written: the invocation that wrote it had seen it.
      op({ Id: 'w', Type: 'WAIT', Status: 'SUCCEEDED', EndTimestamp: 1_500 }),
      // At the very millisecond of the last write, and after it.
      op({ Id: 'c', Type: 'CALLBACK', Status: 'SUCCEEDED', StartTimestamp: 2_000, EndTimestamp: 2_000 }),
      op({ Id: 'i', Type: 'CHAINED_INVOKE', Status: 'FAILED', EndTimestamp: 2_400 }),
      op({ Id: 'open', Type: 'CALLBACK', Status: 'STARTED' }),
    ];
    const ids = updatedOperationIds({ runId: 'run-never-seen', operations, previousInvocationLost: false });
    expect(ids.sort()).toEqual(['c', 'i']);
  });

  it('does not trust a remembered state another invocation has written past, nor one lost since', () => {
    const started = op({ Id: 's', Type: 'STEP', Status: 'STARTED', StepDetails: { Attempt: 1 } });
    const done = op({ Id: 's', Type: 'STEP', Status: 'SUCCEEDED', EndTimestamp: 3_000, StepDetails: { Attempt: 1 } });
    const waiting = op({ Id: 'w', Type: 'WAIT', Status: 'STARTED' });
    // Ended before the step's end was written: by the stored times alone, not an update.
    const after = [execution, done, { ...waiting, Status: 'SUCCEEDED' as const, EndTimestamp: 2_900 }];
    rememberLeftState('run-stale', [execution, started, waiting]);
    // The step's end is an invocation's write: the memory is not the previous invocation's state.
    expect(updatedOperationIds({ runId: 'run-stale', operations: after, previousInvocationLost: false })).toEqual([]);
    rememberLeftState('run-lost', [execution, done, waiting]);
    expect(updatedOperationIds({ runId: 'run-lost', operations: after, previousInvocationLost: true })).toEqual([]);
    expect(updatedOperationIds({ runId: 'run-lost', operations: after, previousInvocationLost: false })).toEqual(['w']);
  });

  it('believes a backend that names the updated operations itself (AWS’s UpdatedOperationIds)', () => {
    const operations = [execution, op({ Id: 'c', Type: 'CALLBACK', Status: 'SUCCEEDED', EndTimestamp: 100 })];
    const view = { runId: 'run-named', operations, previousInvocationLost: false, updatedOperationIds: ['c'] };
    expect(updatedOperationIds(view)).toEqual(['c']);
  });
});

describe('AWS’s plugin types', () => {
  it('still accept our infos: AWS’s OperationInfo is a subset of ours', () => {
    expectTypeOf<OperationInfo>().toExtend<AwsSdk.OperationInfo>();
    expectTypeOf<InvocationInfo>().toExtend<AwsSdk.InvocationInfo>();
    expectTypeOf<InvocationEndInfo>().toExtend<AwsSdk.InvocationEndInfo>();
    expectTypeOf<keyof AwsSdk.OperationInfo>().toExtend<keyof OperationInfo>();
  });
});
