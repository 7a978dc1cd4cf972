/**
 * What an `EngineSession` does as it lets go of its run: the patch that releases the lease (or
 * ends the run), a chained invoke it cannot make, and the outside calls around that write (start a child run never invoked, look once more for an
 * outside event that landed meanwhile), each of which the due index covers when it fails.
 */
import type { InvocationOutput, Operation } from '@durable-lambda/protocol';
import type { RunPatch, RunRecord } from './ports';
import { dueAtOf } from './ports';
import { mayHoldSlot } from './run-record';
import type { SessionDeps, SessionHooks } from './session-deps';
import type { SessionOperations } from './session-operations';

/** Awaits an outside call whose failure the due index already covers (left to the reconciler). */
export async function bestEffort(call: Promise<unknown>): Promise<void> {
  await call.catch(() => undefined);
}

/**
 * The patch that releases `run`'s lease at `now` with the run due at `due` (or waiting for outside
 * events); `handled` says whether the invocation saw the events the run had when it opened.
 */
export function releasePatch(run: RunRecord, now: number, due: number | undefined, handled = true): RunPatch {
  const handledEventSeq = handled ? run.eventSeq : run.handledEventSeq;
  const after = { ...run, leaseExpiresAt: undefined, nextWakeAt: due, handledEventSeq, updatedAt: now };
  return {
    leaseExpiresAt: null,
    nextWakeAt: due ?? null,
    ...(handled ? { handledEventSeq } : {}),
    dueAt: dueAtOf(after) ?? null,
  };
}

/**
 * A chained invoke whose child run was never invoked (the invoke failed after the START was
 * stored) would leave the run waiting forever: invoke it now (`invoked`: those the session has
 * invoked already). False when one could not be started (the run must then come back soon to try
 * again).
 */
export async function startMissingChildren(
  run: RunRecord,
  ops: SessionOperations,
  invoked: ReadonlySet<string>,
  deps: Pick<SessionDeps, 'store' | 'hooks'>,
): Promise<boolean> {
  let all = true;
  for (const id of [...ops.waitingOutside]) {
    const op = ops.byId.get(id);
    if (op?.Type !== 'CHAINED_INVOKE' || op.Status !== 'STARTED' || invoked.has(op.Id)) continue;
    try {
      const childId = op.ChainedInvokeDetails?.ChildRunId;
      const child = childId === undefined ? undefined : await deps.store.getRun(childId);
      // A child that exists is in the due index itself until it runs: the reconciler wakes it.
      if (!child) await deps.hooks.startChild(run, op);
      else if (child.invocations === 0) await bestEffort(deps.hooks.startChild(run, op));
    } catch {
      all = false;
    }
  }
  return all;
}

/**
 * An outside event (a callback completed) may land while the invocation holds the lease; its own
 * wake-up then finds the run busy. Having released the lease, look once more. (The store already
 * made such a run due, so the reconciler covers this too; this only saves it time.)
 */
export async function wakeForLateEvents(
  run: RunRecord,
  ops: SessionOperations,
  deps: Pick<SessionDeps, 'store' | 'hooks'>,
): Promise<void> {
  if (ops.waitingOutside.size === 0) return;
  const latest = await deps.store.getRun(run.runId);
  if (latest?.status === 'RUNNING' && latest.eventSeq > run.eventSeq) await deps.hooks.wake(latest);
}

/** The patch that ends `run` at `now` as `output` says (SUCCEEDED or FAILED), its lease let go. */
export function endPatch(
  run: RunRecord,
  output: InvocationOutput,
  now: number,
  retentionMs: number | undefined,
): RunPatch {
  return {
    status: output.Status as 'SUCCEEDED' | 'FAILED',
    endedAt: now,
    leaseExpiresAt: null,
    nextWakeAt: null,
    // A child run stays due until its parent has heard that it ended; a run with a slot, until it is released.
    dueAt: run.parent || mayHoldSlot(run) ? now : null,
    ...(mayHoldSlot(run) ? { slotHeld: true } : {}),
    ...(output.Result === undefined ? {} : { result: output.Result }),
    ...(output.Error === undefined ? {} : { error: output.Error }),
    ...(retentionMs === undefined ? {} : { expiresAt: now + retentionMs }),
  };
}

/** A new chained invoke to a function the invoker cannot reach fails at once. */
export function invokableOrFailed(op: Operation, now: number, hooks: Pick<SessionHooks, 'canInvoke'>): Operation {
  const name = op.ChainedInvokeDetails?.FunctionName ?? '';
  if (hooks.canInvoke(name)) return op;
  return {
    ...op,
    Status: 'FAILED',
    EndTimestamp: now,
    ChainedInvokeDetails: {
      ...op.ChainedInvokeDetails,
      Error: {
        ErrorType: 'InvokeError',
        ErrorMessage: `no durable function named ${JSON.stringify(name)}`,
        ErrorCode: 'function_not_found',
      },
    },
  };
}

/**
 * When a run that ends its invocation PENDING must be looked at again: its next work, its
 * deadline at the latest (to end there if nothing else woke it), and soon when a child run could
 * not be started (its next invocation starts it). Undefined: it waits only for outside events.
 */
export function pendingDue(
  run: Pick<RunRecord, 'deadlineAt'>,
  nextWork: number | undefined,
  childrenStarted: boolean,
  now: number,
  faultRetryMs: number,
): number | undefined {
  const deadline = run.deadlineAt;
  const waitDue = deadline === undefined ? nextWork : Math.min(nextWork ?? deadline, deadline);
  return childrenStarted ? waitDue : Math.min(waitDue ?? Number.POSITIVE_INFINITY, now + faultRetryMs);
}

/**
 * Tells the waiting parent of `run` (a child run that just ended) that it ended, from its stored
 * record. Its failure is left to the reconciler: the run stays due until its parent has heard.
 */
export async function tellParent(run: RunRecord, deps: Pick<SessionDeps, 'store' | 'hooks'>): Promise<void> {
  const ended = await deps.store.getRun(run.runId);
  if (ended) await deps.hooks.finished(ended);
}
