import { applyUpdate, nextDue, settleDue, type UpdateLimits } from '@durable-lambda/engine';
import {
  CheckpointRejectedError,
  type ErrorObject,
  type Operation,
  type OperationUpdate,
} from '@durable-lambda/protocol';
import { describe, expect, it } from 'vitest';

const NOW = 1_700_000_000_123;
const ONE_YEAR_S = 365 * 86_400;
const LIMITS: UpdateLimits = { maxPayloadBytes: 1024 };
const ERR: ErrorObject = { ErrorType: 'Error', ErrorMessage: 'boom' };

const noParents = () => false;

/** Applies one update at NOW with default limits. */
function apply(
  current: Operation | undefined,
  update: OperationUpdate,
  options: { now?: number; parentExists?: (id: string) => boolean; limits?: UpdateLimits } = {},
): Operation {
  return applyUpdate(current, update, options.now ?? NOW, options.parentExists ?? noParents, options.limits ?? LIMITS);
}

/** The CheckpointRejectedError that `fn` throws. */
function rejection(fn: () => unknown): CheckpointRejectedError {
  try {
    fn();
  } catch (error) {
    if (error instanceof CheckpointRejectedError) return error;
    throw error;
  }
  throw new Error('expected a CheckpointRejectedError, nothing was thrown');
}

/** Asserts that `update` is refused, naming its operation. */
function expectRejected(
  current: Operation | undefined,
  update: OperationUpdate,
  options?: Parameters<typeof apply>[2],
) {
  const error = rejection(() => apply(current, update, options));
  expect(error.code).toBe('checkpoint_rejected');
  expect(error.operationId).toBe(String(update.Id));
  expect(error.message).toContain(String(update.Id));
  return error;
}

function step(status: Operation['Status'], details: Partial<NonNullable<Operation['StepDetails']>> = {}): Operation {
  return {
    Id: 's1',
    Name: 'charge',
    Type: 'STEP',
    Status: status,
    StartTimestamp: NOW - 60_000,
    StepDetails: { Attempt: 1, ...details },
  };
}

function wait(status: Operation['Status'], end: number): Operation {
  return {
    Id: 'w1',
    Type: 'WAIT',
    Status: status,
    StartTimestamp: NOW - 60_000,
    WaitDetails: { ScheduledEndTimestamp: end },
  };
}

function context(status: Operation['Status']): Operation {
  return { Id: 'c1', Name: 'child', Type: 'CONTEXT', Status: status, StartTimestamp: NOW - 60_000 };
}

const stepUpdate = (action: OperationUpdate['Action'], extra: Partial<OperationUpdate> = {}): OperationUpdate => ({
  Id: 's1',
  Name: 'charge',
  Type: 'STEP',
  Action: action,
  ...extra,
});

describe('applyUpdate: STEP on a new operation', () => {
  it('START creates a STARTED step at attempt 1 stamped with now', () => {
    const op = apply(undefined, stepUpdate('START', { SubType: 'Step' }));
    expect(op).toEqual({
      Id: 's1',
      Name: 'charge',
      Type: 'STEP',
      SubType: 'Step',
      Status: 'STARTED',
      StartTimestamp: NOW,
      StepDetails: { Attempt: 1 },
    });
  });

  it('SUCCEED without a START records an implicit attempt 1 with the result', () => {
    const op = apply(undefined, stepUpdate('SUCCEED', { Payload: '"ok"' }));
    expect(op.Status).toBe('SUCCEEDED');
    expect(op.StartTimestamp).toBe(NOW);
    expect(op.EndTimestamp).toBe(NOW);
    expect(op.StepDetails).toEqual({ Attempt: 1, Result: '"ok"' });
  });

  it('records each failed attempt in FailedAttempts, oldest first, without stack traces', () => {
    const retried = apply(
      undefined,
      stepUpdate('RETRY', { Error: { ...ERR, StackTrace: ['at x'] }, StepOptions: { NextAttemptDelaySeconds: 0 } }),
    );
    const ready = { ...retried, Status: 'READY' as const };
    const failed = apply(ready, stepUpdate('FAIL', { Error: { ...ERR, ErrorCode: 'late' } }));
    expect(failed.StepDetails?.FailedAttempts).toEqual([
      { Attempt: 1, Timestamp: NOW, Error: { ErrorType: ERR.ErrorType, ErrorMessage: ERR.ErrorMessage } },
      {
        Attempt: 2,
        Timestamp: NOW,
        Error: { ErrorType: ERR.ErrorType, ErrorMessage: ERR.ErrorMessage, ErrorCode: 'late' },
      },
    ]);
  });

  it('FAIL without a START records an implicit attempt 1 with the error', () => {
    const op = apply(undefined, stepUpdate('FAIL', { Error: ERR }));
    expect(op.Status).toBe('FAILED');
    expect(op.EndTimestamp).toBe(NOW);
    expect(op.StepDetails).toMatchObject({ Attempt: 1, Error: ERR });
  });

  it('RETRY without a START makes the step PENDING until now + delay', () => {
    const op = apply(undefined, stepUpdate('RETRY', { Error: ERR, StepOptions: { NextAttemptDelaySeconds: 2 } }));
    expect(op.Status).toBe('PENDING');
    expect(op.EndTimestamp).toBeUndefined();
    expect(op.StepDetails).toMatchObject({ Attempt: 1, NextAttemptTimestamp: NOW + 2000, Error: ERR });
  });

  it('takes an Id of up to 512 characters and 1,000 bytes: a longer one no store could key', () => {
    expect(apply(undefined, stepUpdate('START', { Id: 'é'.repeat(500) })).Id).toBe('é'.repeat(500));
    expect(apply(undefined, stepUpdate('START', { Id: '1'.repeat(512) })).Id).toHaveLength(512);
    expectRejected(undefined, stepUpdate('START', { Id: 'é'.repeat(501) }));
    expectRejected(undefined, stepUpdate('START', { Id: '😀'.repeat(256) }));
    expectRejected(undefined, stepUpdate('START', { Id: '1'.repeat(513) }));
  });

  it('keeps ParentId when the parent exists', () => {
    const op = apply(undefined, stepUpdate('START', { ParentId: 'c1' }), { parentExists: (id) => id === 'c1' });
    expect(op.ParentId).toBe('c1');
  });
});

describe('applyUpdate: STEP on a STARTED operation', () => {
  it('SUCCEED keeps the attempt number and the start time', () => {
    const op = apply(step('STARTED', { Attempt: 3 }), stepUpdate('SUCCEED', { Payload: '42' }));
    expect(op.Status).toBe('SUCCEEDED');
    expect(op.StartTimestamp).toBe(NOW - 60_000);
    expect(op.EndTimestamp).toBe(NOW);
    expect(op.StepDetails).toEqual({ Attempt: 3, Result: '42' });
  });

  it('FAIL keeps the attempt number', () => {
    const op = apply(step('STARTED', { Attempt: 2 }), stepUpdate('FAIL', { Error: ERR }));
    expect(op.Status).toBe('FAILED');
    expect(op.StepDetails).toMatchObject({ Attempt: 2, Error: ERR });
  });

  it('RETRY keeps the attempt number and schedules the next one', () => {
    const op = apply(
      step('STARTED', { Attempt: 2 }),
      stepUpdate('RETRY', { Error: ERR, StepOptions: { NextAttemptDelaySeconds: 1.5 } }),
    );
    expect(op.Status).toBe('PENDING');
    expect(op.StepDetails).toMatchObject({ Attempt: 2, NextAttemptTimestamp: NOW + 1500, Error: ERR });
  });

  it('rejects a second START of the same attempt', () => {
    expectRejected(step('STARTED'), stepUpdate('START'));
  });

  it('does not modify the operation it was given', () => {
    const current = step('STARTED');
    const before = structuredClone(current);
    apply(current, stepUpdate('SUCCEED', { Payload: '1' }));
    expect(current).toEqual(before);
  });
});

describe('applyUpdate: STEP on a READY operation (its next attempt is due)', () => {
  const ready = () => step('READY', { Attempt: 2, NextAttemptTimestamp: NOW - 1, Error: ERR });

  it('START opens the next attempt and clears the previous error, keeping when it was scheduled (as AWS)', () => {
    const op = apply(ready(), stepUpdate('START'));
    expect(op.Status).toBe('STARTED');
    expect(op.StepDetails).toEqual({ Attempt: 3, NextAttemptTimestamp: NOW - 1 });
  });

  it('SUCCEED without a START counts as the next attempt', () => {
    const op = apply(ready(), stepUpdate('SUCCEED', { Payload: '"done"' }));
    expect(op.Status).toBe('SUCCEEDED');
    expect(op.StepDetails).toEqual({ Attempt: 3, Result: '"done"', NextAttemptTimestamp: NOW - 1 });
  });

  it('FAIL without a START counts as the next attempt', () => {
    const op = apply(ready(), stepUpdate('FAIL', { Error: { ErrorMessage: 'final' } }));
    expect(op.Status).toBe('FAILED');
    expect(op.StepDetails).toMatchObject({ Attempt: 3, Error: { ErrorMessage: 'final' } });
  });

  it('RETRY without a START counts as the next attempt', () => {
    const op = apply(ready(), stepUpdate('RETRY', { Error: ERR, StepOptions: { NextAttemptDelaySeconds: 10 } }));
    expect(op.Status).toBe('PENDING');
    expect(op.StepDetails).toMatchObject({ Attempt: 3, NextAttemptTimestamp: NOW + 10_000, Error: ERR });
  });
});

describe('applyUpdate: STEP on a PENDING operation not yet due', () => {
  const pending = () => step('PENDING', { Attempt: 1, NextAttemptTimestamp: NOW + 5000, Error: ERR });

  for (const action of ['START', 'SUCCEED', 'FAIL', 'RETRY'] as const) {
    it(`rejects ${action} before the next attempt is due`, () => {
      expectRejected(
        pending(),
        stepUpdate(action, { Error: ERR, Payload: '1', StepOptions: { NextAttemptDelaySeconds: 1 } }),
      );
    });
  }
});

describe('applyUpdate: STEP option checks', () => {
  it('rejects RETRY without NextAttemptDelaySeconds', () => {
    expectRejected(undefined, stepUpdate('RETRY', { Error: ERR }));
  });

  for (const delay of [-1, ONE_YEAR_S + 1, Number.NaN, Number.POSITIVE_INFINITY]) {
    it(`rejects RETRY with a delay of ${delay} seconds`, () => {
      expectRejected(undefined, stepUpdate('RETRY', { Error: ERR, StepOptions: { NextAttemptDelaySeconds: delay } }));
    });
  }

  it('accepts RETRY delays of 0 and of exactly one year', () => {
    const zero = apply(undefined, stepUpdate('RETRY', { Error: ERR, StepOptions: { NextAttemptDelaySeconds: 0 } }));
    expect(zero.StepDetails?.NextAttemptTimestamp).toBe(NOW);
    const year = apply(
      undefined,
      stepUpdate('RETRY', { Error: ERR, StepOptions: { NextAttemptDelaySeconds: ONE_YEAR_S } }),
    );
    expect(year.StepDetails?.NextAttemptTimestamp).toBe(NOW + ONE_YEAR_S * 1000);
  });

  it('keeps fractional retry delays to the millisecond', () => {
    const op = apply(undefined, stepUpdate('RETRY', { Error: ERR, StepOptions: { NextAttemptDelaySeconds: 0.25 } }));
    expect(op.StepDetails?.NextAttemptTimestamp).toBe(NOW + 250);
  });

  it('rejects RETRY without an Error', () => {
    expectRejected(undefined, stepUpdate('RETRY', { StepOptions: { NextAttemptDelaySeconds: 1 } }));
  });

  it('rejects FAIL without an Error', () => {
    expectRejected(step('STARTED'), stepUpdate('FAIL'));
  });

  it('rejects CANCEL on a STEP', () => {
    expectRejected(step('STARTED'), stepUpdate('CANCEL'));
  });
});

describe('applyUpdate: WAIT', () => {
  const waitStart = (seconds: number | undefined): OperationUpdate => ({
    Id: 'w1',
    Type: 'WAIT',
    Action: 'START',
    ...(seconds === undefined ? {} : { WaitOptions: { WaitSeconds: seconds } }),
  });

  it('START schedules the end from the engine clock', () => {
    const op = apply(undefined, waitStart(30));
    expect(op).toEqual({
      Id: 'w1',
      Type: 'WAIT',
      Status: 'STARTED',
      StartTimestamp: NOW,
      WaitDetails: { ScheduledEndTimestamp: NOW + 30_000 },
    });
    const later = apply(undefined, waitStart(30), { now: NOW + 7 });
    expect(later.WaitDetails?.ScheduledEndTimestamp).toBe(NOW + 7 + 30_000);
  });

  it('START keeps fractional seconds to the millisecond', () => {
    expect(apply(undefined, waitStart(1.234)).WaitDetails?.ScheduledEndTimestamp).toBe(NOW + 1234);
    expect(apply(undefined, waitStart(0.001)).WaitDetails?.ScheduledEndTimestamp).toBe(NOW + 1);
  });

  it('accepts a wait of exactly one year', () => {
    expect(apply(undefined, waitStart(ONE_YEAR_S)).WaitDetails?.ScheduledEndTimestamp).toBe(NOW + ONE_YEAR_S * 1000);
  });

  for (const seconds of [0, -5, ONE_YEAR_S + 1, Number.NaN, Number.POSITIVE_INFINITY, undefined]) {
    it(`rejects START with WaitSeconds ${seconds}`, () => {
      expectRejected(undefined, waitStart(seconds));
    });
  }

  it('rejects a second START of a running wait', () => {
    expectRejected(wait('STARTED', NOW + 1000), waitStart(1));
  });

  it('rejects SUCCEED and FAIL: waits complete on the engine clock only', () => {
    expectRejected(wait('STARTED', NOW + 1000), { Id: 'w1', Type: 'WAIT', Action: 'SUCCEED' });
    expectRejected(wait('STARTED', NOW + 1000), { Id: 'w1', Type: 'WAIT', Action: 'FAIL', Error: ERR });
    expectRejected(undefined, { Id: 'w1', Type: 'WAIT', Action: 'SUCCEED' });
  });

  it('CANCEL ends a running wait as CANCELLED at now, keeping its schedule', () => {
    const op = apply(wait('STARTED', NOW + 1000), { Id: 'w1', Type: 'WAIT', Action: 'CANCEL' });
    expect(op.Status).toBe('CANCELLED');
    expect(op.EndTimestamp).toBe(NOW);
    expect(op.WaitDetails).toEqual({ ScheduledEndTimestamp: NOW + 1000 });
  });

  it('rejects CANCEL of a wait that never started', () => {
    expectRejected(undefined, { Id: 'w1', Type: 'WAIT', Action: 'CANCEL' });
  });
});

describe('applyUpdate: CONTEXT', () => {
  const ctxUpdate = (action: OperationUpdate['Action'], extra: Partial<OperationUpdate> = {}): OperationUpdate => ({
    Id: 'c1',
    Name: 'child',
    Type: 'CONTEXT',
    Action: action,
    ...extra,
  });

  it('START creates a STARTED context', () => {
    const op = apply(undefined, ctxUpdate('START', { SubType: 'RunInChildContext' }));
    expect(op).toEqual({
      Id: 'c1',
      Name: 'child',
      Type: 'CONTEXT',
      SubType: 'RunInChildContext',
      Status: 'STARTED',
      StartTimestamp: NOW,
    });
  });

  it('rejects a second START', () => {
    expectRejected(context('STARTED'), ctxUpdate('START'));
  });

  it('SUCCEED stores the result and the end time', () => {
    const op = apply(context('STARTED'), ctxUpdate('SUCCEED', { Payload: '{"a":1}' }));
    expect(op.Status).toBe('SUCCEEDED');
    expect(op.StartTimestamp).toBe(NOW - 60_000);
    expect(op.EndTimestamp).toBe(NOW);
    expect(op.ContextDetails?.Result).toBe('{"a":1}');
  });

  it('SUCCEED records ContextOptions.ReplayChildren in ContextDetails', () => {
    const op = apply(context('STARTED'), ctxUpdate('SUCCEED', { ContextOptions: { ReplayChildren: true } }));
    expect(op.ContextDetails?.ReplayChildren).toBe(true);
  });

  it('FAIL stores the error', () => {
    const op = apply(context('STARTED'), ctxUpdate('FAIL', { Error: ERR }));
    expect(op.Status).toBe('FAILED');
    expect(op.EndTimestamp).toBe(NOW);
    expect(op.ContextDetails).toEqual({ Error: ERR });
  });

  it('rejects FAIL without an Error', () => {
    expectRejected(context('STARTED'), ctxUpdate('FAIL'));
  });

  it('rejects RETRY and CANCEL', () => {
    expectRejected(context('STARTED'), ctxUpdate('RETRY', { Error: ERR, StepOptions: { NextAttemptDelaySeconds: 1 } }));
    expectRejected(context('STARTED'), ctxUpdate('CANCEL'));
  });
});

describe('applyUpdate: refusals of malformed or out-of-place updates', () => {
  it('rejects a Type that differs from the stored operation', () => {
    const error = expectRejected(step('STARTED'), { Id: 's1', Type: 'CONTEXT', Action: 'SUCCEED' });
    expect(error.message).toContain('STEP');
  });

  it('rejects a Name that differs from the stored operation, and accepts an omitted Name', () => {
    expectRejected(step('STARTED'), stepUpdate('SUCCEED', { Name: 'refund' }));
    expect(apply(step('STARTED'), { Id: 's1', Type: 'STEP', Action: 'SUCCEED' }).Name).toBe('charge');
  });

  for (const status of ['SUCCEEDED', 'FAILED', 'CANCELLED', 'TIMED_OUT', 'STOPPED'] as const) {
    it(`rejects any update to a ${status} operation`, () => {
      expectRejected(step(status), stepUpdate('SUCCEED', { Payload: '1' }));
      expectRejected(step(status), stepUpdate('START'));
      expectRejected(wait(status, NOW - 1), { Id: 'w1', Type: 'WAIT', Action: 'CANCEL' });
    });
  }

  it('rejects an unknown Type', () => {
    expectRejected(undefined, { Id: 'x', Type: 'TIMER' as never, Action: 'START' });
  });

  it('rejects an unknown Action', () => {
    expectRejected(undefined, { Id: 'x', Type: 'STEP', Action: 'PAUSE' as never });
  });

  for (const [label, id] of [
    ['an empty', ''],
    ['a non-string', 7],
    ['a missing', undefined],
    ['a 513-character', 'x'.repeat(513)],
  ] as const) {
    it(`rejects ${label} Id`, () => {
      expectRejected(undefined, { Id: id as never, Type: 'STEP', Action: 'START' });
    });
  }

  it('accepts a 512-character Id', () => {
    expect(apply(undefined, { Id: 'x'.repeat(512), Type: 'STEP', Action: 'START' }).Id).toHaveLength(512);
  });

  it('rejects a new operation whose parent does not exist', () => {
    const error = expectRejected(undefined, stepUpdate('START', { ParentId: 'ghost' }), {
      parentExists: (id) => id === 'c1',
    });
    expect(error.message).toContain('ghost');
  });

  it('rejects a payload over maxPayloadBytes, counted in UTF-8 bytes', () => {
    const limits = { maxPayloadBytes: 4 };
    expect(apply(undefined, stepUpdate('SUCCEED', { Payload: 'abcd' }), { limits }).StepDetails?.Result).toBe('abcd');
    const error = expectRejected(undefined, stepUpdate('SUCCEED', { Payload: 'abcde' }), { limits });
    expect(error.message).toContain('payload_too_large');
    // Three characters, six bytes.
    expectRejected(undefined, stepUpdate('SUCCEED', { Payload: 'ééé' }), { limits });
  });

  it('rejects an Error over maxPayloadBytes', () => {
    const big: ErrorObject = { ErrorType: 'Error', ErrorMessage: 'x'.repeat(100) };
    expectRejected(undefined, stepUpdate('FAIL', { Error: big }), { limits: { maxPayloadBytes: 32 } });
  });

  it('rejects every update to the EXECUTION operation', () => {
    const execution: Operation = { Id: '0', Type: 'EXECUTION', Status: 'STARTED', StartTimestamp: NOW - 1 };
    for (const action of ['START', 'SUCCEED', 'FAIL', 'CANCEL'] as const) {
      expectRejected(execution, { Id: '0', Type: 'EXECUTION', Action: action, Error: ERR });
      expectRejected(undefined, { Id: 'e2', Type: 'EXECUTION', Action: action, Error: ERR });
    }
  });

  it('rejects outcomes a handler may not write for CALLBACK and CHAINED_INVOKE (they complete from outside)', () => {
    expect(expectRejected(undefined, { Id: 'cb1', Type: 'CALLBACK', Action: 'SUCCEED' }).message).toContain(
      'complete from outside',
    );
    expect(expectRejected(undefined, { Id: 'i1', Type: 'CHAINED_INVOKE', Action: 'FAIL' }).message).toContain(
      'child run completes it',
    );
  });
});

describe('settleDue', () => {
  it('completes a wait whose end has passed, ending at the scheduled time rather than now', () => {
    const settled = settleDue(wait('STARTED', NOW - 500), NOW);
    expect(settled?.Status).toBe('SUCCEEDED');
    expect(settled?.EndTimestamp).toBe(NOW - 500);
  });

  it('completes a wait exactly at its scheduled end', () => {
    expect(settleDue(wait('STARTED', NOW), NOW)?.Status).toBe('SUCCEEDED');
  });

  it('leaves a wait that is not due unchanged', () => {
    expect(settleDue(wait('STARTED', NOW + 1), NOW)).toBeUndefined();
  });

  it('makes a retrying step READY once its next attempt is due, keeping its details', () => {
    const pending = step('PENDING', { Attempt: 2, NextAttemptTimestamp: NOW, Error: ERR });
    const settled = settleDue(pending, NOW);
    expect(settled?.Status).toBe('READY');
    expect(settled?.StepDetails).toEqual({ Attempt: 2, NextAttemptTimestamp: NOW, Error: ERR });
  });

  it('leaves a retrying step that is not due unchanged', () => {
    expect(settleDue(step('PENDING', { NextAttemptTimestamp: NOW + 1 }), NOW)).toBeUndefined();
  });

  it('leaves operations that do not wait on time unchanged', () => {
    expect(settleDue(step('STARTED'), NOW + 1e9)).toBeUndefined();
    expect(settleDue(wait('CANCELLED', NOW - 1), NOW)).toBeUndefined();
    expect(settleDue(context('STARTED'), NOW)).toBeUndefined();
  });

  it('does not modify the operation it was given', () => {
    const op = wait('STARTED', NOW - 1);
    settleDue(op, NOW);
    expect(op.Status).toBe('STARTED');
  });
});

describe('nextDue', () => {
  it('picks the earliest wait end or next attempt', () => {
    const ops: Operation[] = [
      wait('STARTED', NOW + 30_000),
      { ...step('PENDING', { NextAttemptTimestamp: NOW + 5000 }), Id: 's2' },
      { ...wait('STARTED', NOW + 10_000), Id: 'w2' },
    ];
    expect(nextDue(ops)).toBe(NOW + 5000);
    expect(nextDue([ops[0]!, ops[2]!])).toBe(NOW + 10_000);
  });

  it('ignores operations that do not wait on time', () => {
    const ops: Operation[] = [
      wait('SUCCEEDED', NOW - 100),
      wait('CANCELLED', NOW + 5),
      step('STARTED'),
      step('FAILED', { NextAttemptTimestamp: NOW + 1 }),
      context('STARTED'),
      { ...wait('STARTED', NOW + 60_000), Id: 'w9' },
    ];
    expect(nextDue(ops)).toBe(NOW + 60_000);
  });

  it('is undefined when nothing waits on time', () => {
    expect(nextDue([])).toBeUndefined();
    expect(nextDue([step('SUCCEEDED'), context('STARTED')])).toBeUndefined();
  });

  it('treats a READY step as due already', () => {
    const ready = step('READY', { Attempt: 1, NextAttemptTimestamp: NOW - 10, Error: ERR });
    const due = nextDue([ready, wait('STARTED', NOW + 1000)]);
    expect(due).toBeDefined();
    expect(due!).toBeLessThanOrEqual(NOW - 10);
  });
});
