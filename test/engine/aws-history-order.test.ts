/**
 * `toAwsHistoryEvents` orders events as AWS's checkpoint server records them, also where our
 * virtual clock gives a whole invocation one instant: a context around its children, branches side
 * by side, siblings one after another, invocation ends between what they did and what came after.
 */
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

describe("toAwsHistoryEvents' order", () => {
  it('puts a callback answered within its invocation before that invocation ends, and what it woke after', () => {
    // All at one virtual instant: waitForCallback's context, its callback and submitter step.
    const ops: Operation[] = [
      execution(),
      {
        Id: 'c',
        Name: 'approval',
        Type: 'CONTEXT',
        SubType: 'WaitForCallback',
        Status: 'SUCCEEDED',
        StartTimestamp: T,
        EndTimestamp: T,
        ContextDetails: { Result: '"ok"' },
      },
      {
        Id: 'cb',
        ParentId: 'c',
        Type: 'CALLBACK',
        SubType: 'Callback',
        Status: 'SUCCEEDED',
        StartTimestamp: T,
        EndTimestamp: T,
        CallbackDetails: { CallbackId: 'x', Result: '"ok"' },
      },
      step({ Id: 'sub', ParentId: 'c', Status: 'SUCCEEDED', EndTimestamp: T, StepDetails: { Attempt: 1 } }),
    ];
    const events = toAwsHistoryEvents(ops, { invocations: [invocation(0, 0), invocation(0, 0)] });
    expect(order(events)).toEqual([
      'ExecutionStarted',
      'ContextStarted approval',
      'CallbackStarted',
      'StepStarted',
      'StepSucceeded',
      'CallbackSucceeded',
      'InvocationCompleted',
      'ContextSucceeded approval',
      'InvocationCompleted',
      'ExecutionSucceeded',
    ]);
    expect(events.filter((e) => e.ParentId === 'c').map((e) => e.EventType)).toEqual([
      'CallbackStarted',
      'StepStarted',
      'StepSucceeded',
      'CallbackSucceeded',
    ]);
  });

  it("orders a child context's events inside it, and a map's and a parallel's branches side by side", () => {
    const context = (id: string, subType: string, parent?: string, name?: string): Operation => ({
      Id: id,
      ...(parent === undefined ? {} : { ParentId: parent }),
      ...(name === undefined ? {} : { Name: name }),
      Type: 'CONTEXT',
      SubType: subType,
      Status: 'SUCCEEDED',
      StartTimestamp: T,
      EndTimestamp: T,
      ContextDetails: { Result: `"${id}"` },
    });
    const ops = [
      execution(),
      context('child', 'RunInChildContext', undefined, 'child'),
      step({
        Id: 'inner',
        Name: 'inner',
        ParentId: 'child',
        Status: 'SUCCEEDED',
        EndTimestamp: T,
        StepDetails: { Attempt: 1 },
      }),
      context('m', 'Map', undefined, 'double'),
      context('m0', 'MapIteration', 'm', 'map-item-0'),
      context('m1', 'MapIteration', 'm', 'map-item-1'),
      context('p', 'Parallel', undefined, 'both'),
      context('p0', 'ParallelBranch', 'p', 'parallel-branch-0'),
      context('p1', 'ParallelBranch', 'p', 'parallel-branch-1'),
      step({ Id: 'b', Name: 'b', ParentId: 'p1', Status: 'SUCCEEDED', EndTimestamp: T, StepDetails: { Attempt: 1 } }),
    ];
    const events = toAwsHistoryEvents(ops);
    // The sequence AWS's runner records for the same handler (see the compat signatures test).
    expect(order(events)).toEqual([
      'ExecutionStarted',
      'ContextStarted child',
      'StepStarted inner',
      'StepSucceeded inner',
      'ContextSucceeded child',
      'ContextStarted double',
      'ContextStarted map-item-0',
      'ContextStarted map-item-1',
      'ContextSucceeded map-item-0',
      'ContextSucceeded map-item-1',
      'ContextSucceeded double',
      'ContextStarted both',
      'ContextStarted parallel-branch-0',
      'ContextStarted parallel-branch-1',
      'StepStarted b',
      'ContextSucceeded parallel-branch-0',
      'StepSucceeded b',
      'ContextSucceeded parallel-branch-1',
      'ContextSucceeded both',
      'ExecutionSucceeded',
    ]);
    expect(events.filter((e) => e.ParentId === 'm').map((e) => e.SubType)).toEqual([
      'MapIteration',
      'MapIteration',
      'MapIteration',
      'MapIteration',
    ]);
    expect(events.find((e) => e.EventType === 'ContextSucceeded')?.ContextSucceededDetails).toEqual({
      Result: { Payload: '"child"' },
    });
  });

  it('is deterministic, numbers 1..n and never goes back in time', () => {
    const ops = [
      execution('SUCCEEDED', 7000),
      step({
        Id: 'a',
        Status: 'SUCCEEDED',
        EndTimestamp: T + 3000,
        StepDetails: { Attempt: 2, FailedAttempts: [{ Attempt: 1, Timestamp: T, Error: { ErrorMessage: 'e' } }] },
      }),
      {
        Id: 'w',
        Type: 'WAIT',
        Status: 'SUCCEEDED',
        StartTimestamp: T + 3000,
        EndTimestamp: T + 7000,
        WaitDetails: { ScheduledEndTimestamp: T + 7000 },
      } as Operation,
    ];
    const options = { invocations: [invocation(0, 0), invocation(3000, 3000), invocation(7000, 7000)] };
    const events = toAwsHistoryEvents(ops, options);
    expect(toAwsHistoryEvents(ops, options)).toEqual(events);
    expect(events.map((e) => e.EventId)).toEqual(events.map((_e, i) => i + 1));
    const times = events.map((e) => e.EventTimestamp.getTime());
    expect(times).toEqual([...times].sort((x, y) => x - y));
  });

  it('puts a later invocation after the callback it waited for, at the same instant', () => {
    const ops: Operation[] = [
      execution(),
      {
        Id: 'cb',
        Name: 'cb',
        Type: 'CALLBACK',
        SubType: 'Callback',
        Status: 'SUCCEEDED',
        StartTimestamp: T,
        EndTimestamp: T,
        CallbackDetails: { CallbackId: 'x', Result: '1' },
      },
      step({ Id: 'b', Name: 'b', Status: 'SUCCEEDED', EndTimestamp: T, StepDetails: { Attempt: 1 } }),
    ];
    const events = toAwsHistoryEvents(ops, { invocations: [invocation(0, 0, 'one'), invocation(0, 0, 'two')] });
    expect(order(events)).toEqual([
      'ExecutionStarted',
      'CallbackStarted cb',
      'CallbackSucceeded cb',
      'InvocationCompleted',
      'StepStarted b',
      'StepSucceeded b',
      'InvocationCompleted',
      'ExecutionSucceeded',
    ]);
    expect(
      events.filter((e) => e.InvocationCompletedDetails).map((e) => e.InvocationCompletedDetails?.RequestId),
    ).toEqual(['one', 'two']);
  });

  it('keeps a retry made within one invocation in it, its delay unknown and left out', () => {
    const flaky = step({
      Id: 's',
      Status: 'SUCCEEDED',
      EndTimestamp: T + 1000,
      StepDetails: { Attempt: 2, FailedAttempts: [{ Attempt: 1, Timestamp: T, Error: { ErrorMessage: 'e' } }] },
    });
    const events = toAwsHistoryEvents([execution('SUCCEEDED', 1000), flaky], { invocations: [invocation(0, 1000)] });
    expect(order(events)).toEqual([
      'ExecutionStarted',
      'StepStarted',
      'StepFailed',
      'StepStarted',
      'StepSucceeded',
      'InvocationCompleted',
      'ExecutionSucceeded',
    ]);
    expect(events[2]?.StepFailedDetails?.RetryDetails).toEqual({ CurrentAttempt: 1 });
  });

  it('lets an operation started beside an unfinished one go on (a wait left running, an attempt running)', () => {
    const ops: Operation[] = [
      execution('STARTED'),
      {
        Id: 'w',
        Name: 'long',
        Type: 'WAIT',
        SubType: 'Wait',
        Status: 'STARTED',
        StartTimestamp: T,
        WaitDetails: { ScheduledEndTimestamp: T + 86_400_000 },
      },
      step({ Id: 'a', Name: 'a', Status: 'SUCCEEDED', EndTimestamp: T, StepDetails: { Attempt: 1 } }),
      step({
        Id: 'r',
        Name: 'r',
        Status: 'STARTED',
        StepDetails: { Attempt: 2, FailedAttempts: [{ Attempt: 1, Timestamp: T, Error: { ErrorMessage: 'e' } }] },
      }),
    ];
    expect(order(toAwsHistoryEvents(ops))).toEqual([
      'ExecutionStarted',
      'WaitStarted long',
      'StepStarted a',
      'StepSucceeded a',
      'StepStarted r',
      'StepFailed r',
      'StepStarted r',
    ]);
  });

  it('keeps an operation whose parent is not among the operations, as a top-level one', () => {
    const orphan = step({
      Id: 'o',
      Name: 'o',
      ParentId: 'gone',
      Status: 'SUCCEEDED',
      EndTimestamp: T,
      StepDetails: { Attempt: 1 },
    });
    const events = toAwsHistoryEvents([execution(), orphan]);
    expect(order(events)).toEqual(['ExecutionStarted', 'StepStarted o', 'StepSucceeded o', 'ExecutionSucceeded']);
    expect(events[1]?.ParentId).toBe('gone');
  });

  it("runs a map's branches in rounds: every item's start, every item's step, every item's end", () => {
    const item = (id: string, name: string): Operation => ({
      Id: id,
      ParentId: 'm',
      Name: name,
      Type: 'CONTEXT',
      SubType: 'MapIteration',
      Status: 'SUCCEEDED',
      StartTimestamp: T,
      EndTimestamp: T,
      ContextDetails: {},
    });
    const ops: Operation[] = [
      execution(),
      {
        Id: 'm',
        Name: 'items',
        Type: 'CONTEXT',
        SubType: 'Map',
        Status: 'SUCCEEDED',
        StartTimestamp: T,
        EndTimestamp: T,
        ContextDetails: {},
      },
      item('i0', 'map-item-0'),
      step({
        Id: 'a',
        Name: 'do-a',
        ParentId: 'i0',
        Status: 'SUCCEEDED',
        EndTimestamp: T,
        StepDetails: { Attempt: 1 },
      }),
      item('i1', 'map-item-1'),
      step({
        Id: 'b',
        Name: 'do-b',
        ParentId: 'i1',
        Status: 'SUCCEEDED',
        EndTimestamp: T,
        StepDetails: { Attempt: 1 },
      }),
    ];
    // As AWS's runner records `map('items', ['a', 'b'], (c, x) => c.step(`do-${x}`, ...))`.
    expect(order(toAwsHistoryEvents(ops))).toEqual([
      'ExecutionStarted',
      'ContextStarted items',
      'ContextStarted map-item-0',
      'ContextStarted map-item-1',
      'StepStarted do-a',
      'StepStarted do-b',
      'StepSucceeded do-a',
      'StepSucceeded do-b',
      'ContextSucceeded map-item-0',
      'ContextSucceeded map-item-1',
      'ContextSucceeded items',
      'ExecutionSucceeded',
    ]);
  });

  it("advances nested branches side by side and ends a parallel's branches in branch order", () => {
    const context = (id: string, subType: string, parent: string | undefined, name: string): Operation => ({
      Id: id,
      ...(parent === undefined ? {} : { ParentId: parent }),
      Name: name,
      Type: 'CONTEXT',
      SubType: subType,
      Status: 'SUCCEEDED',
      StartTimestamp: T,
      EndTimestamp: T,
      ContextDetails: {},
    });
    const ops: Operation[] = [
      execution(),
      context('p', 'Parallel', undefined, 'outer'),
      context('b0', 'ParallelBranch', 'p', 'parallel-branch-0'),
      context('m', 'Map', 'b0', 'm1'),
      context('i0', 'MapIteration', 'm', 'map-item-0'),
      context('i1', 'MapIteration', 'm', 'map-item-1'),
      context('b1', 'ParallelBranch', 'p', 'parallel-branch-1'),
      step({
        Id: 's',
        Name: 'solo',
        ParentId: 'b1',
        Status: 'SUCCEEDED',
        EndTimestamp: T,
        StepDetails: { Attempt: 1 },
      }),
    ];
    // As AWS's runner records a parallel of a two-item map and a step (the compat signatures test).
    expect(order(toAwsHistoryEvents(ops))).toEqual([
      'ExecutionStarted',
      'ContextStarted outer',
      'ContextStarted parallel-branch-0',
      'ContextStarted parallel-branch-1',
      'ContextStarted m1',
      'StepStarted solo',
      'ContextStarted map-item-0',
      'ContextStarted map-item-1',
      'StepSucceeded solo',
      'ContextSucceeded map-item-0',
      'ContextSucceeded map-item-1',
      'ContextSucceeded m1',
      'ContextSucceeded parallel-branch-0',
      'ContextSucceeded parallel-branch-1',
      'ContextSucceeded outer',
      'ExecutionSucceeded',
    ]);
  });
});
