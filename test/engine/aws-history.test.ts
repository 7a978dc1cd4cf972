/**
 * `toAwsHistoryEvents`: our stored operations as Lambda's `GetDurableExecutionHistory` events, in
 * the shapes AWS's checkpoint server writes (AWS's testing package 1.1.4), for every operation
 * type and status, on hand-built operations.
 */
import type { Event as LambdaEvent } from '@aws-sdk/client-lambda';
import { type AwsHistoryEvent, type AwsHistoryInvocation, toAwsHistoryEvents } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import { describe, expect, it } from 'vitest';

const T = Date.UTC(2026, 0, 1);
const at = (ms: number) => new Date(T + ms);
const execution = (status: Operation['Status'] = 'SUCCEEDED', end = 0): Operation => ({
  Id: '0',
  Type: 'EXECUTION',
  Status: status,
  StartTimestamp: T,
  ...(status === 'STARTED' ? {} : { EndTimestamp: T + end }),
  ExecutionDetails: { InputPayload: '{"n":1}' },
});
const step = (fields: Partial<Operation> & Pick<Operation, 'Id' | 'Status'>): Operation => ({
  Type: 'STEP',
  SubType: 'Step',
  StartTimestamp: T,
  ...fields,
});
const invocation = (start: number, end?: number, requestId = `r${start}`): AwsHistoryInvocation => ({
  startTimestamp: at(start),
  ...(end === undefined ? {} : { endTimestamp: at(end) }),
  requestId,
});
/** The events as `type name` lines: order at a glance. */
const order = (events: readonly AwsHistoryEvent[]) =>
  events.map((e) => `${e.EventType}${e.Name === undefined ? '' : ` ${e.Name}`}`);

describe('toAwsHistoryEvents', () => {
  it('writes a step that succeeded as AWS does, numbered from 1, its run result on the execution', () => {
    const ops = [
      execution(),
      step({ Id: 's1', Name: 'one', Status: 'SUCCEEDED', EndTimestamp: T, StepDetails: { Attempt: 1, Result: '1' } }),
    ];
    const events = toAwsHistoryEvents(ops, { run: { result: '"done"' }, invocations: [invocation(0, 0, 'req-1')] });
    expect(events).toEqual([
      {
        EventType: 'ExecutionStarted',
        EventId: 1,
        Id: '0',
        EventTimestamp: at(0),
        ExecutionStartedDetails: { Input: { Payload: '{"n":1}' } },
      },
      {
        EventType: 'StepStarted',
        SubType: 'Step',
        EventId: 2,
        Id: 's1',
        Name: 'one',
        EventTimestamp: at(0),
        StepStartedDetails: {},
      },
      {
        EventType: 'StepSucceeded',
        SubType: 'Step',
        EventId: 3,
        Id: 's1',
        Name: 'one',
        EventTimestamp: at(0),
        StepSucceededDetails: { Result: { Payload: '1' }, RetryDetails: {} },
      },
      {
        EventType: 'InvocationCompleted',
        EventId: 4,
        EventTimestamp: at(0),
        InvocationCompletedDetails: { StartTimestamp: at(0), EndTimestamp: at(0), RequestId: 'req-1' },
      },
      {
        EventType: 'ExecutionSucceeded',
        EventId: 5,
        Id: '0',
        EventTimestamp: at(0),
        ExecutionSucceededDetails: { Result: { Payload: '"done"' } },
      },
    ]);
    // AWS's own Event type takes ours as it is.
    const typed: LambdaEvent[] = events;
    expect(typed).toHaveLength(5);
  });

  it('writes each attempt of a retried step, with AWS attempt counts and the delays the invocations show', () => {
    const flaky = step({
      Id: 's1',
      Name: 'flaky',
      Status: 'SUCCEEDED',
      EndTimestamp: T + 4000,
      StepDetails: {
        Attempt: 3,
        Result: '3',
        FailedAttempts: [
          { Attempt: 1, Timestamp: T, Error: { ErrorType: 'Error', ErrorMessage: 'boom 1', ErrorCode: 'step_failed' } },
          { Attempt: 2, Timestamp: T + 2000, Error: { ErrorType: 'Error', ErrorMessage: 'boom 2' } },
        ],
      },
    });
    const events = toAwsHistoryEvents([execution('SUCCEEDED', 4000), flaky], {
      invocations: [invocation(0, 0), invocation(2000, 2000), invocation(4000, 4000)],
    });
    expect(order(events)).toEqual([
      'ExecutionStarted',
      'StepStarted flaky',
      'StepFailed flaky',
      'InvocationCompleted',
      'StepStarted flaky',
      'StepFailed flaky',
      'InvocationCompleted',
      'StepStarted flaky',
      'StepSucceeded flaky',
      'InvocationCompleted',
      'ExecutionSucceeded',
    ]);
    const failed = events.filter((e) => e.EventType === 'StepFailed').map((e) => e.StepFailedDetails);
    expect(failed).toEqual([
      // Our stable code stays behind: AWS's ErrorObject has no place for it.
      {
        Error: { Payload: { ErrorType: 'Error', ErrorMessage: 'boom 1' } },
        RetryDetails: { CurrentAttempt: 1, NextAttemptDelaySeconds: 2 },
      },
      {
        Error: { Payload: { ErrorType: 'Error', ErrorMessage: 'boom 2' } },
        RetryDetails: { CurrentAttempt: 1, NextAttemptDelaySeconds: 2 },
      },
    ]);
    expect(events.find((e) => e.EventType === 'StepSucceeded')?.StepSucceededDetails?.RetryDetails).toEqual({
      CurrentAttempt: 2,
    });
    expect(events.filter((e) => e.EventType === 'StepStarted').map((e) => e.EventTimestamp)).toEqual([
      at(0),
      at(2000),
      at(4000),
    ]);
  });

  it('gives a step waiting for its next attempt its exact delay, and a step that failed its full error', () => {
    const waiting = step({
      Id: 'p',
      Status: 'PENDING',
      StepDetails: {
        Attempt: 1,
        NextAttemptTimestamp: T + 1500,
        Error: { ErrorType: 'Error', ErrorMessage: 'later' },
        FailedAttempts: [{ Attempt: 1, Timestamp: T, Error: { ErrorType: 'Error', ErrorMessage: 'later' } }],
      },
    });
    const failedError = {
      ErrorType: 'TypeError',
      ErrorMessage: 'nope',
      ErrorData: '{"x":1}',
      StackTrace: ['at a'],
      ErrorCode: 'step_failed',
    };
    const failed = step({
      Id: 'f',
      Status: 'FAILED',
      EndTimestamp: T,
      StepDetails: {
        Attempt: 1,
        Error: failedError,
        FailedAttempts: [{ Attempt: 1, Timestamp: T, Error: { ErrorType: 'TypeError', ErrorMessage: 'nope' } }],
      },
    });
    const events = toAwsHistoryEvents([execution('STARTED'), waiting, failed]);
    expect(events.map((e) => e.StepFailedDetails).filter(Boolean)).toEqual([
      {
        Error: { Payload: { ErrorType: 'Error', ErrorMessage: 'later' } },
        RetryDetails: { CurrentAttempt: 1, NextAttemptDelaySeconds: 1.5 },
      },
      {
        Error: {
          Payload: { ErrorType: 'TypeError', ErrorMessage: 'nope', ErrorData: '{"x":1}', StackTrace: ['at a'] },
        },
        RetryDetails: { CurrentAttempt: 1 },
      },
    ]);
    // A running execution has no end event, and no invocation means no InvocationCompleted.
    expect(order(events)).toEqual(['ExecutionStarted', 'StepStarted', 'StepFailed', 'StepStarted', 'StepFailed']);
  });

  it('writes the checks of a waitForCondition as StepSucceeded, as AWS records a RETRY without error', () => {
    const poll = step({
      Id: 'w',
      Name: 'poll',
      SubType: 'WaitForCondition',
      Status: 'SUCCEEDED',
      EndTimestamp: T + 1000,
      StepDetails: {
        Attempt: 2,
        Result: '2',
        FailedAttempts: [
          {
            Attempt: 1,
            Timestamp: T,
            Error: { ErrorType: 'WaitForConditionContinue', ErrorCode: 'wait_for_condition_continue' },
          },
        ],
      },
    });
    const events = toAwsHistoryEvents([execution('SUCCEEDED', 1000), poll], {
      invocations: [invocation(0, 0), invocation(1000, 1000)],
    });
    const checks = events.filter((e) => e.Id === 'w').map((e) => [e.EventType, e.StepSucceededDetails]);
    expect(checks).toEqual([
      ['StepStarted', undefined],
      // The state this check returned is not kept (only the latest is): its payload is left out.
      ['StepSucceeded', { Result: {}, RetryDetails: { NextAttemptDelaySeconds: 1 } }],
      ['StepStarted', undefined],
      ['StepSucceeded', { Result: { Payload: '2' }, RetryDetails: { CurrentAttempt: 1 } }],
    ]);
  });

  it('writes waits, the one ended by its timer after the invocation, the cancelled one inside it', () => {
    const nap: Operation = {
      Id: 'w1',
      Name: 'nap',
      Type: 'WAIT',
      SubType: 'Wait',
      Status: 'SUCCEEDED',
      StartTimestamp: T,
      EndTimestamp: T + 5000,
      WaitDetails: { ScheduledEndTimestamp: T + 5000 },
    };
    const dropped: Operation = {
      Id: 'w2',
      Type: 'WAIT',
      SubType: 'Wait',
      Status: 'CANCELLED',
      StartTimestamp: T + 5000,
      EndTimestamp: T + 5000,
      WaitDetails: { ScheduledEndTimestamp: T + 65_000 },
    };
    const events = toAwsHistoryEvents([execution('SUCCEEDED', 5000), nap, dropped], {
      invocations: [invocation(0, 0), invocation(5000, 5000)],
    });
    expect(order(events)).toEqual([
      'ExecutionStarted',
      'WaitStarted nap',
      'InvocationCompleted',
      'WaitSucceeded nap',
      'WaitStarted',
      'WaitCancelled',
      'InvocationCompleted',
      'ExecutionSucceeded',
    ]);
    expect(events[1]?.WaitStartedDetails).toEqual({ Duration: 5, ScheduledEndTimestamp: at(5000) });
    expect(events[3]?.WaitSucceededDetails).toEqual({ Duration: 5 });
    expect(events[5]?.WaitCancelledDetails).toEqual({});
  });

  it('writes callbacks that succeeded, failed and timed out, with their timeouts in seconds', () => {
    const callback = (
      id: string,
      status: Operation['Status'],
      details: Partial<NonNullable<Operation['CallbackDetails']>>,
      end: number,
    ): Operation => ({
      Id: id,
      Name: id,
      Type: 'CALLBACK',
      SubType: 'Callback',
      Status: status,
      StartTimestamp: T,
      EndTimestamp: T + end,
      CallbackDetails: { CallbackId: `cb-${id}`, ...details },
    });
    const ops = [
      execution('SUCCEEDED', 9000),
      callback(
        'ok',
        'SUCCEEDED',
        { Result: '"yes"', TimeoutTimestamp: T + 300_000, HeartbeatTimeoutSeconds: 60 },
        1000,
      ),
      callback('no', 'FAILED', { Error: { ErrorType: 'Refusal', ErrorMessage: 'refused' } }, 2000),
      callback(
        'late',
        'TIMED_OUT',
        {
          TimeoutTimestamp: T + 9000,
          Error: { ErrorType: 'CallbackTimeoutError', ErrorMessage: 'timed out', ErrorCode: 'callback_timeout' },
        },
        9000,
      ),
    ];
    const events = toAwsHistoryEvents(ops);
    const byType = (type: string) => events.find((e) => e.EventType === type);
    expect(byType('CallbackStarted')?.CallbackStartedDetails).toEqual({
      CallbackId: 'cb-ok',
      Timeout: 300,
      HeartbeatTimeout: 60,
    });
    expect(byType('CallbackSucceeded')?.CallbackSucceededDetails).toEqual({ Result: { Payload: '"yes"' } });
    expect(byType('CallbackFailed')?.CallbackFailedDetails).toEqual({
      Error: { Payload: { ErrorType: 'Refusal', ErrorMessage: 'refused' } },
    });
    expect(byType('CallbackTimedOut')?.CallbackTimedOutDetails).toEqual({
      Error: { Payload: { ErrorType: 'CallbackTimeoutError', ErrorMessage: 'timed out' } },
    });
    expect(order(events).slice(4)).toEqual([
      'CallbackSucceeded ok',
      'CallbackFailed no',
      'CallbackTimedOut late',
      'ExecutionSucceeded',
    ]);
  });

  it('writes a failed context with its error', () => {
    const ops: Operation[] = [
      execution('FAILED'),
      {
        Id: 'c',
        Type: 'CONTEXT',
        SubType: 'RunInChildContext',
        Status: 'FAILED',
        StartTimestamp: T,
        EndTimestamp: T,
        ContextDetails: { Error: { ErrorType: 'Error', ErrorMessage: 'inner', ErrorCode: 'x' } },
      },
    ];
    const events = toAwsHistoryEvents(ops, {
      run: { error: { ErrorType: 'Error', ErrorMessage: 'inner', ErrorCode: 'x' } },
    });
    expect(events.map((e) => e.ContextFailedDetails ?? e.ExecutionFailedDetails).filter(Boolean)).toEqual([
      { Error: { Payload: { ErrorType: 'Error', ErrorMessage: 'inner' } } },
      { Error: { Payload: { ErrorType: 'Error', ErrorMessage: 'inner' } } },
    ]);
    expect(order(events)).toEqual(['ExecutionStarted', 'ContextStarted', 'ContextFailed', 'ExecutionFailed']);
  });

  it('writes chained invokes for every outcome, naming the child run by the ARN our transport gives it', () => {
    const invoke = (
      id: string,
      status: Operation['Status'],
      outcome: Partial<NonNullable<Operation['ChainedInvokeDetails']>>,
    ): Operation => ({
      Id: id,
      Type: 'CHAINED_INVOKE',
      SubType: 'ChainedInvoke',
      Status: status,
      StartTimestamp: T,
      EndTimestamp: T + 1000,
      ChainedInvokeDetails: { FunctionName: 'child-fn', ChildRunId: `run-${id}`, Input: '{"n":1}', ...outcome },
    });
    const error = { ErrorType: 'Error', ErrorMessage: 'no' };
    const events = toAwsHistoryEvents([
      execution('SUCCEEDED', 1000),
      invoke('a', 'SUCCEEDED', { Result: '2' }),
      invoke('b', 'FAILED', { Error: error }),
      invoke('c', 'TIMED_OUT', { Error: error }),
      invoke('d', 'STOPPED', { Error: error }),
    ]);
    expect(events[1]?.ChainedInvokeStartedDetails).toEqual({
      FunctionName: 'child-fn',
      Input: { Payload: '{"n":1}' },
      DurableExecutionArn: 'arn:aws:lambda:local:000000000000:function:child-fn/durable-execution/run-a',
    });
    const ends = events.filter((e) => e.EventTimestamp.getTime() === T + 1000 && e.Id !== '0');
    expect(
      ends.map((e) => [
        e.EventType,
        e.ChainedInvokeSucceededDetails ??
          e.ChainedInvokeFailedDetails ??
          e.ChainedInvokeTimedOutDetails ??
          e.ChainedInvokeStoppedDetails,
      ]),
    ).toEqual([
      ['ChainedInvokeSucceeded', { Result: { Payload: '2' } }],
      ['ChainedInvokeFailed', { Error: { Payload: error } }],
      ['ChainedInvokeTimedOut', { Error: { Payload: error } }],
      ['ChainedInvokeStopped', { Error: { Payload: error } }],
    ]);
  });

  it('ends an execution as it ended: failed, timed out or stopped, after its last invocation', () => {
    const error = { ErrorType: 'Error', ErrorMessage: 'down' };
    for (const [status, type] of [
      ['FAILED', 'ExecutionFailed'],
      ['TIMED_OUT', 'ExecutionTimedOut'],
      ['STOPPED', 'ExecutionStopped'],
    ] as const) {
      const events = toAwsHistoryEvents([execution(status, 10)], {
        run: { error },
        invocations: [invocation(0, 20, 'r'), invocation(30)],
      });
      // The invocation still running has no event; the execution ends no earlier than the last one that did.
      expect(events.map((e) => e.EventType)).toEqual(['ExecutionStarted', 'InvocationCompleted', type]);
      expect(events[2]?.EventTimestamp).toEqual(at(20));
      expect(Object.values(events[2] ?? {}).find((v) => typeof v === 'object' && v !== null && 'Error' in v)).toEqual({
        Error: { Payload: error },
      });
    }
  });

  it("carries an invocation's own error, and leaves every payload out without execution data", () => {
    const ops = [
      execution('FAILED'),
      step({
        Id: 's',
        Status: 'FAILED',
        EndTimestamp: T,
        StepDetails: {
          Attempt: 1,
          Error: { ErrorMessage: 'x' },
          FailedAttempts: [{ Attempt: 1, Timestamp: T, Error: { ErrorMessage: 'x' } }],
        },
      }),
      step({ Id: 't', Status: 'SUCCEEDED', EndTimestamp: T, StepDetails: { Attempt: 1, Result: '"secret"' } }),
    ];
    const options = {
      run: { error: { ErrorMessage: 'x' } },
      invocations: [{ ...invocation(0, 0), error: { ErrorMessage: 'x', ErrorCode: 'handler_failed' } }],
    };
    const full = toAwsHistoryEvents(ops, options);
    expect(full.find((e) => e.EventType === 'InvocationCompleted')?.InvocationCompletedDetails?.Error).toEqual({
      Payload: { ErrorMessage: 'x' },
    });
    const bare = toAwsHistoryEvents(ops, { ...options, includeExecutionData: false });
    expect(JSON.stringify(bare)).not.toContain('Payload');
    expect(bare.map((e) => e.EventType)).toEqual(full.map((e) => e.EventType));
  });

  it('refuses an invocation whose time is not a Date, naming the field', () => {
    const bad = [invocation(0, 0), { startTimestamp: at(5), endTimestamp: 'later' as unknown as Date }];
    expect(() => toAwsHistoryEvents([execution()], { invocations: bad })).toThrow(
      expect.objectContaining({ code: 'invalid_argument', field: 'invocations[1].endTimestamp' }),
    );
  });
});
