import { Engine, MemoryStore } from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import type { Operation } from '@durable-lambda/protocol';
import { describe, expect, it } from 'vitest';
import { copyData } from '../../packages/engine/src/operation-copy';

/**
 * The memory store copies operations on the way in and out with a walk of plain data instead of
 * `structuredClone` (the largest cost of a step on the test runner): the copy must be the same
 * deep copy, so no caller ever aliases stored state.
 */

const failedStep: Operation = {
  Id: 's1',
  ParentId: 'p',
  Name: 'charge',
  Type: 'STEP',
  SubType: 'Step',
  Status: 'FAILED',
  StartTimestamp: 1000,
  EndTimestamp: 2000,
  StepDetails: {
    Attempt: 2,
    Result: undefined,
    Error: { ErrorType: 'Error', ErrorMessage: 'busy', StackTrace: ['at a', 'at b'] },
    FailedAttempts: [{ Attempt: 1, Timestamp: 1500, Error: { ErrorMessage: 'busy' } }],
  },
};

describe('copyData', () => {
  it('is the deep copy structuredClone makes of an operation, undefined-valued keys included', () => {
    const copy = copyData(failedStep);
    expect(copy).toStrictEqual(structuredClone(failedStep));
    expect(Object.keys(copy.StepDetails ?? {})).toEqual(Object.keys(failedStep.StepDetails ?? {}));
    expect(copy.StepDetails).not.toBe(failedStep.StepDetails);
    expect(copy.StepDetails?.Error?.StackTrace).not.toBe(failedStep.StepDetails?.Error?.StackTrace);
    expect(copy.StepDetails?.FailedAttempts?.[0]).not.toBe(failedStep.StepDetails?.FailedAttempts?.[0]);
  });

  it('falls back to structuredClone for what is not plain data', () => {
    const at = new Date(5);
    const copy = copyData({ at, list: [new Map([['k', 1]])] });
    expect(copy.at).toBeInstanceOf(Date);
    expect(copy.at).not.toBe(at);
    expect(copy.list[0]).toEqual(new Map([['k', 1]]));
  });
});

describe('MemoryStore copies', () => {
  it('keep what callers do with the operations they wrote or read away from the stored ones', async () => {
    const clock = new VirtualClock(Date.UTC(2026, 5, 1));
    const store = new MemoryStore(clock);
    const engine = new Engine({ store, clock, waker: { wakeAt: async () => {} } });
    const { run } = await engine.startRun({ functionName: 'fn' });
    const written = structuredClone(failedStep);
    await store.commit(run.runId, run.fence, { operations: [written] });
    // The caller's object and the one it reads back are both its own.
    written.StepDetails?.FailedAttempts?.push({ Attempt: 2, Timestamp: 1, Error: {} });
    const read = (await store.loadOperations(run.runId)).find((op) => op.Id === 's1');
    expect(read).toStrictEqual(failedStep);
    if (read?.StepDetails?.Error?.StackTrace) read.StepDetails.Error.StackTrace[0] = 'changed';
    expect((await store.getOperation(run.runId, 's1'))?.StepDetails?.Error?.StackTrace).toEqual(['at a', 'at b']);
  });
});
