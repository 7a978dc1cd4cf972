/**
 * The engine numbers exactly the events the history shows (issue 23): for every operation a
 * sequence of updates leaves, `historyEventCount` equals the number of events `toAwsHistoryEvents`
 * builds for it, and `withHistoryOrder` gives each new event the next place, so an operation's
 * places line up with its events one for one.
 */
import {
  applyUpdate,
  Engine,
  historyEventCount,
  MemoryStore,
  settleDue,
  withHistoryOrder,
} from '@durable-lambda/engine';
import type { Operation, OperationUpdate } from '@durable-lambda/protocol';
import { describe, expect, it } from 'vitest';
import { DraftBuilder } from '../../packages/engine/src/aws-protocol/aws-history-drafts';

const ids = { callbackId: (id: string) => `cb-${id}`, childRunId: (id: string) => `child-${id}` };
const limits = { maxPayloadBytes: 1_000_000 };
const error = { ErrorType: 'Error', ErrorMessage: 'boom' };

/** Applies `steps` (updates, or `due` to let time pass) to one operation, checking every state on the way. */
function walk(steps: Array<OperationUpdate | 'due'>): Operation {
  let op: Operation | undefined;
  let now = 1_000;
  let count = 0;
  const place = () => ++count;
  for (const step of steps) {
    now += 1_000;
    const next: Operation | undefined =
      step === 'due'
        ? op && (settleDue(op, now + 10_000_000) ?? op)
        : applyUpdate(op, step, now, () => true, limits, ids);
    if (!next) throw new Error('nothing to settle');
    op = withHistoryOrder(op, next, place);
    const events = new DraftBuilder(true, undefined).drafts(op).length;
    expect({ status: op.Status, count: historyEventCount(op) }).toEqual({ status: op.Status, count: events });
    expect(op.HistoryOrder).toEqual(Array.from({ length: events }, (_, i) => i + 1));
  }
  return op as Operation;
}

const step = (Action: OperationUpdate['Action'], extra: Partial<OperationUpdate> = {}): OperationUpdate => ({
  Id: '1',
  Type: 'STEP',
  Action,
  ...extra,
});

describe('history places line up with the events the history shows', () => {
  it('a step: started and succeeded, or succeeded without its START', () => {
    walk([step('START'), step('SUCCEED', { Payload: '1' })]);
    walk([step('SUCCEED', { Payload: '1' })]);
  });

  it('a step retried, then succeeding or failing for good', () => {
    const retry = step('RETRY', { Error: error, StepOptions: { NextAttemptDelaySeconds: 1 } });
    walk([step('START'), retry, 'due', step('START'), retry, 'due', step('START'), step('SUCCEED')]);
    walk([step('START'), retry, 'due', step('START'), step('FAIL', { Error: error })]);
    // An at-least-once attempt that failed before its START was written.
    walk([step('START'), retry, 'due', retry, 'due', step('SUCCEED')]);
  });

  it('a wait, a callback, a chained invoke and a context', () => {
    walk([{ Id: '1', Type: 'WAIT', Action: 'START', WaitOptions: { WaitSeconds: 5 } }, 'due']);
    walk([
      { Id: '1', Type: 'WAIT', Action: 'START', WaitOptions: { WaitSeconds: 5 } },
      { Id: '1', Type: 'WAIT', Action: 'CANCEL' },
    ]);
    walk([{ Id: '1', Type: 'CALLBACK', Action: 'START' }]);
    walk([{ Id: '1', Type: 'CHAINED_INVOKE', Action: 'START', ChainedInvokeOptions: { FunctionName: 'f' } }]);
    walk([
      { Id: '1', Type: 'CONTEXT', Action: 'START' },
      { Id: '1', Type: 'CONTEXT', Action: 'SUCCEED' },
    ]);
    walk([
      { Id: '1', Type: 'CONTEXT', Action: 'START' },
      { Id: '1', Type: 'CONTEXT', Action: 'FAIL', Error: error },
    ]);
  });

  it('an event from outside takes the place after the count it was written at', () => {
    const started = walk([{ Id: '1', Type: 'CALLBACK', Action: 'START' }]);
    const done = withHistoryOrder(started, { ...started, Status: 'SUCCEEDED', EndTimestamp: 9_000 }, () => 7.5);
    expect(done.HistoryOrder).toEqual([1, 7.5]);
    // A retry of the run reopening an operation keeps the places of the events left.
    const reopened: Operation = { ...done, Status: 'STARTED' };
    expect(withHistoryOrder(done, reopened, () => 99).HistoryOrder).toEqual([1]);
  });
});

describe('an outside event written while an invocation holds the run', () => {
  /** A run with a started callback, held by an open invocation, on a memory store. */
  async function heldCallback() {
    const clock = { now: () => 1_700_000_000_000 };
    const store = new MemoryStore(clock);
    const engine = new Engine({ store, clock, waker: { wakeAt: async () => {} } });
    const { run } = await engine.startRun({ functionName: 'fn', input: '{}' });
    const session = await engine.openRun(run.runId, { remainingTimeMs: () => 60_000 });
    if (!session) throw new Error('not opened');
    const [callback] = await session.checkpoint([{ Id: '1', Type: 'CALLBACK', Action: 'START' }]);
    await engine.sendCallbackSuccess(callback?.CallbackDetails?.CallbackId ?? '', '"yes"');
    return { store, session, runId: run.runId };
  }

  it('stands after that invocation, when it did not see it', async () => {
    const { store, runId } = await heldCallback();
    // ExecutionStarted 1, CallbackStarted 2; completed while held: after the holder's end.
    expect((await store.getOperation(runId, '1'))?.HistoryOrder).toEqual([2, 2.75]);
  });

  it('stands where the invocation saw it, when it read it back mid-run (AWS SDK polling)', async () => {
    const { store, session, runId } = await heldCallback();
    const seen = (await session.refresh()).find((op) => op.Id === '1');
    expect(seen?.HistoryOrder).toEqual([2, 2.5]);
    // Written with the invocation's next write, before what it does with it.
    await session.checkpoint([{ Id: '2', Type: 'STEP', Action: 'START' }]);
    expect((await store.getOperation(runId, '1'))?.HistoryOrder).toEqual([2, 2.5]);
    expect((await store.getOperation(runId, '2'))?.HistoryOrder).toEqual([3]);
  });
});
