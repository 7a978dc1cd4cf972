/**
 * The compact text of an operation kept in the run item: every operation comes back exactly as it
 * went in, whatever its fields, and the text is far shorter than the operation's own JSON.
 */
import type { Operation } from '@durable-lambda/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeInline, encodeInline } from '../../../packages/aws/src/dynamodb/inline-codec';

const step: Operation = {
  Id: '3',
  ParentId: '1',
  Name: 'charge-card',
  Type: 'STEP',
  SubType: 'Step',
  Status: 'SUCCEEDED',
  StartTimestamp: 1_767_225_600_000,
  EndTimestamp: 1_767_225_600_150,
  StepDetails: { Attempt: 2, Result: '{"chargeId":"ch-1","amountCents":12990}' },
};

describe('inline operation text', () => {
  it('round-trips the operations the SDK writes, with their SubType, JSON and non-JSON payloads', () => {
    const ops: Operation[] = [
      step,
      { ...step, SubType: undefined },
      { ...step, SubType: 'Custom' },
      { ...step, StepDetails: { Attempt: 1, Result: '{ "spaced": 1 }' } },
      { ...step, StepDetails: { Attempt: 1, Result: 'not json' } },
      { ...step, StepDetails: { Attempt: 1, Result: '1.50' } },
      {
        ...step,
        Status: 'PENDING',
        StepDetails: {
          Attempt: 2,
          NextAttemptTimestamp: 5,
          Error: { ErrorType: 'Error', ErrorMessage: 'boom', StackTrace: ['a', 'b'] },
          FailedAttempts: [{ Attempt: 1, Timestamp: 4, Error: { ErrorCode: 'invocation_lost' } }],
        },
      },
      {
        Id: '0',
        Type: 'EXECUTION',
        Status: 'STARTED',
        StartTimestamp: 1,
        ExecutionDetails: { InputPayload: '{"a":[1,2]}' },
      },
      {
        Id: '4',
        Type: 'WAIT',
        SubType: 'Wait',
        Status: 'STARTED',
        StartTimestamp: 1,
        WaitDetails: { ScheduledEndTimestamp: 9 },
      },
      {
        Id: '5',
        Type: 'CALLBACK',
        Status: 'TIMED_OUT',
        StartTimestamp: 1,
        CallbackDetails: { CallbackId: 'cb', TimeoutTimestamp: 3, HeartbeatTimeoutSeconds: 2, HeartbeatDeadline: 4 },
      },
      {
        Id: '6',
        Type: 'CHAINED_INVOKE',
        Status: 'STARTED',
        StartTimestamp: 1,
        ChainedInvokeDetails: { FunctionName: 'f:7', ChildRunId: 'k1', Input: '{}' },
      },
      {
        Id: '7',
        Type: 'CONTEXT',
        Status: 'SUCCEEDED',
        StartTimestamp: 1,
        ContextDetails: { Result: '"x"', ReplayChildren: true },
      },
      { ...step, Id: 'hash-~x', Name: 'with "quotes" and ünïcode' },
    ];
    for (const op of ops) {
      const text = encodeInline({ op });
      expect(decodeInline(text, op.Id).op, text).toEqual(JSON.parse(JSON.stringify(op)));
    }
  });

  it('round-trips any payload string exactly', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (result) => {
        const op: Operation = { ...step, StepDetails: { Attempt: 1, Result: result } };
        expect(decodeInline(encodeInline({ op }), op.Id).op.StepDetails?.Result).toBe(result);
      }),
      { numRuns: 500 },
    );
  });

  it('leaves the id to the entry key and stores end times as offsets from the start, reading older texts too', () => {
    const wait: Operation = {
      Id: '4',
      Type: 'WAIT',
      SubType: 'Wait',
      Status: 'SUCCEEDED',
      StartTimestamp: 1_767_225_600_000,
      EndTimestamp: 1_767_229_200_000,
      WaitDetails: { ScheduledEndTimestamp: 1_767_229_200_000 },
    };
    const text = encodeInline({ op: wait });
    expect(JSON.parse(text)).toEqual({ t: 'W', s: 'S', b: 1_767_225_600_000, d: 3_600_000, W: { sd: 3_600_000 } });
    expect(decodeInline(text, '4').op).toEqual(wait);
    // Written before: the id in the text, absolute times.
    const older = '{"i":"4","t":"W","s":"S","b":1767225600000,"W":{"se":1767229200000},"e":1767229200000}';
    expect(decodeInline(older, '4').op).toEqual(wait);
    // An end before the start (a clock stepped back) is kept as it is.
    const odd = { ...step, EndTimestamp: step.StartTimestamp - 5 };
    expect(decodeInline(encodeInline({ op: odd }), odd.Id).op).toEqual(odd);
  });

  it('takes at most three fifths of the size of the operation as a DynamoDB map would hold it', () => {
    expect(encodeInline({ op: step }).length * 5).toBeLessThanOrEqual(JSON.stringify(step).length * 3);
  });

  it('keeps the refs and the shared input marker, and reads a layout-1 plain map as it is', () => {
    const refs = { 'StepDetails.Result': { h: 'abc', n: 1, b: 10 } };
    const exec: Operation = {
      Id: '0',
      Type: 'EXECUTION',
      Status: 'STARTED',
      StartTimestamp: 1,
      ExecutionDetails: { InputPayload: 'in' },
    };
    const decoded = decodeInline(encodeInline({ op: exec, refs, runInput: true }), '0');
    expect(decoded).toEqual({ op: { ...exec, ExecutionDetails: {} }, refs, runInput: true });
    expect(decodeInline(step, step.Id)).toEqual({ op: step });
  });
});
