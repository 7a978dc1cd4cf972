/**
 * Ending a run with its tree: the run itself (fenced, so a live invocation cannot write after),
 * its waiting callbacks (so a late completion is told the callback is over), and its child runs
 * (those started by its chained invokes, and theirs). A run so ended keeps `childrenOpen` until
 * every child is ended, which keeps it in the due index: a crash midway is finished by the
 * reconciler. Every step is idempotent (conditional on status), so a repeat only finishes the rest.
 */
import type { ErrorObject, Operation } from '@durable-lambda/protocol';
import { outsideHistoryOrder } from './history-order';
import type { OutsideEvents } from './outside-events';
import type { Clock, RevisionBase, RunPatch, RunRecord, Store } from './ports';
import { mayHoldSlot } from './run-record';

/** How the runs of a tree end. */
export interface TreeEnd {
  status: 'TIMED_OUT' | 'CANCELLED';
  error: ErrorObject;
}

/** What ending a tree needs from the engine. */
export interface TreeEndDeps {
  store: Store;
  clock: Clock;
  outside: Pick<OutsideEvents, 'childFinished' | 'retention' | 'slotFreed'>;
}

/** How deep child runs are followed (a guard against a cycle a corrupted store could hold). */
const MAX_DEPTH = 64;

/**
 * Ends a RUNNING run as `end` says, with its waiting callbacks, in one fenced revision (with
 * `extra` in the same write, e.g. its audit entry). The ended run, or undefined when it was not
 * RUNNING, or (with `basedOn`, when `extra` was computed from `run`) when its fence moved since
 * (nothing written).
 */
export async function endRun(
  deps: TreeEndDeps,
  run: RunRecord,
  end: TreeEnd,
  extra: RunPatch = {},
  basedOn?: RevisionBase,
): Promise<RunRecord | undefined> {
  const now = deps.clock.now();
  const operations = await deps.store.loadOperations(run.runId);
  const written: Operation[] = [];
  let openChildren = false;
  // Written from outside the run's invocations: each event stands after those recorded so far.
  const placed = (op: Operation, next: Operation) => outsideHistoryOrder(run, op, next);
  for (const op of operations) {
    if (op.Type === 'EXECUTION') written.push(placed(op, { ...op, Status: end.status, EndTimestamp: now }));
    else if (op.Type === 'CALLBACK' && op.Status === 'STARTED') written.push(placed(op, callbackEnded(op, end, now)));
    else if (op.Type === 'CHAINED_INVOKE' && op.Status === 'STARTED') openChildren = true;
  }
  const ended = await deps.store.reviseRun(
    run.runId,
    run.status === 'QUEUED' ? 'QUEUED' : 'RUNNING',
    {
      status: end.status,
      endedAt: now,
      error: end.error,
      nextWakeAt: null,
      // A child run stays due until its parent has heard; a parent until its children are ended.
      // ... and one holding a slot until it is released (`slotHeld`).
      dueAt: run.parent || openChildren || mayHoldSlot(run) ? now : null,
      ...(mayHoldSlot(run) ? { slotHeld: true } : {}),
      ...(openChildren ? { childrenOpen: true } : {}),
      ...deps.outside.retention(now),
      ...extra,
    },
    written,
    basedOn,
  );
  // Its slot (or its place in its key's queue) goes to the next run of its key.
  if (ended) await deps.outside.slotFreed(ended).catch(() => undefined);
  return ended;
}

/** The stable code of a child run ended because its parent timed out. */
export const PARENT_TIMED_OUT = 'parent_timed_out';

/** The stable code of a child run cancelled with its parent's tree. */
export const PARENT_CANCELLED = 'parent_cancelled';

/** How a child run ends when its parent ended with its tree: the same way, naming the parent. */
export function childEndOf(parent: RunRecord): TreeEnd {
  if (parent.status === 'TIMED_OUT') {
    return {
      status: 'TIMED_OUT',
      error: {
        ErrorType: 'ExecutionTimedOut',
        ErrorMessage: `Execution timed out: its parent run ${parent.runId} timed out`,
        ErrorCode: PARENT_TIMED_OUT,
      },
    };
  }
  return {
    status: 'CANCELLED',
    error: {
      ErrorType: 'RunCancelled',
      ErrorMessage: `the run was cancelled with its parent run ${parent.runId}`,
      ErrorCode: PARENT_CANCELLED,
    },
  };
}

/**
 * Ends every RUNNING child run of the ended `run` (and theirs) as {@link childEndOf} says, tells
 * each one's parent, then clears `run.childrenOpen`. `extra` gives each child's revision more to
 * write (its audit entry). Safe to repeat: ended children are only told again.
 */
export async function endChildren(
  deps: TreeEndDeps,
  run: RunRecord,
  extra: (child: RunRecord) => RunPatch = () => ({}),
  depth = 0,
): Promise<RunRecord[]> {
  const ended: RunRecord[] = [];
  if (depth > MAX_DEPTH) return ended;
  for (const op of await deps.store.loadOperations(run.runId)) {
    if (op.Type !== 'CHAINED_INVOKE' || op.Status !== 'STARTED') continue;
    const childId = op.ChainedInvokeDetails?.ChildRunId;
    const child = childId === undefined ? undefined : await deps.store.getRun(childId);
    if (!child) continue;
    let current = child;
    if (child.status === 'RUNNING' || child.status === 'QUEUED') {
      const done = await endRun(deps, child, childEndOf(run), extra(child));
      current = done ?? (await deps.store.getRun(child.runId)) ?? child;
      if (done) ended.push(done);
    }
    if (current.status === 'RUNNING' || current.status === 'QUEUED') continue;
    if (current.childrenOpen) ended.push(...(await endChildren(deps, current, extra, depth + 1)));
    // Completes the parent's invoke with the child's end and marks the child told.
    await deps.outside.childFinished((await deps.store.getRun(current.runId)) ?? current);
  }
  const latest = await deps.store.getRun(run.runId);
  if (latest?.childrenOpen) await deps.store.reviseRun(run.runId, latest.status, { childrenOpen: null }, []);
  return ended;
}

/** A waiting callback, ended with its run: a completion after it is told the callback is over. */
function callbackEnded(op: Operation, end: TreeEnd, now: number): Operation {
  return {
    ...op,
    Status: end.status,
    EndTimestamp: now,
    CallbackDetails: {
      ...(op.CallbackDetails ?? { CallbackId: '' }),
      Error: {
        ErrorMessage: `the run ended ${end.status} while the callback waited`,
        ...(end.error.ErrorCode === undefined ? {} : { ErrorCode: end.error.ErrorCode }),
      },
    },
  };
}
