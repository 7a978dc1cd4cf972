import type { Operation } from '@durable-lambda/protocol';
import { isTerminal } from '@durable-lambda/protocol';
import { EngineInputError, RunNotFoundError } from './errors';
import type { RunRecord, RunStatus, Store } from './ports';

/** A run that cannot take the asked change in its current status. */
export class RunStateError extends Error {
  /** Stable code. */
  readonly code = 'run_state_conflict';
  constructor(
    readonly runId: string,
    readonly status: RunStatus,
    action: string,
  ) {
    super(`run ${runId} is ${status}: it cannot be ${action}`);
    this.name = 'RunStateError';
  }
}

/**
 * Cancels a RUNNING run: it ends CANCELLED at once, and the invocation running it (if any) is
 * fenced out at its next checkpoint and stops without writing.
 */
export async function cancelRun(
  store: Store,
  runId: string,
  now: number,
  retention: { expiresAt?: number },
): Promise<RunRecord> {
  const run = await requireRun(store, runId);
  if (run.status !== 'RUNNING') throw new RunStateError(runId, run.status, 'cancelled');
  const execution = await store.getOperation(runId, '0');
  const revised = await store.reviseRun(
    runId,
    'RUNNING',
    {
      status: 'CANCELLED',
      endedAt: now,
      nextWakeAt: null,
      error: { ErrorType: 'RunCancelled', ErrorMessage: 'the run was cancelled', ErrorCode: 'run_cancelled' },
      // A child run stays due until its parent has heard that it ended.
      dueAt: run.parent ? now : null,
      ...retention,
    },
    execution ? [{ ...execution, Status: 'CANCELLED', EndTimestamp: now }] : [],
  );
  if (!revised) throw new RunStateError(runId, (await requireRun(store, runId)).status, 'cancelled');
  return revised;
}

/**
 * Retries a FAILED run: its failed steps get a new attempt (numbers continue, so idempotency
 * keys are never issued twice), failed contexts run again, completed work is kept and replays.
 */
export async function retryRun(store: Store, runId: string, now: number): Promise<RunRecord> {
  const run = await requireRun(store, runId);
  if (run.status !== 'FAILED' && run.status !== 'TIMED_OUT') throw new RunStateError(runId, run.status, 'retried');
  const reopened = reopenForRetry(await store.loadOperations(runId), now);
  const revised = await store.reviseRun(
    runId,
    run.status,
    {
      status: 'RUNNING',
      error: null,
      result: null,
      endedAt: null,
      expiresAt: null,
      nextWakeAt: now,
      dueAt: now,
      // The rerun ends again, and its parent (if any) hears of that end too.
      parentNotified: null,
    },
    reopened,
  );
  if (!revised) throw new RunStateError(runId, (await requireRun(store, runId)).status, 'retried');
  return revised;
}

/** Batch contexts: their result records item failures as data, so a retry must run them again. */
const BATCH_SUBTYPES = new Set(['Map', 'Parallel']);

/**
 * The operations a retry opens again: every failed step or context the rerun reaches, with its
 * finished ancestors (a failed context, or a map or parallel whose result recorded the failure),
 * so the replay walks into it instead of returning a stored outcome. A failure under a context
 * that succeeded anyway (it handled the failure) stays as it is: reopening it would leave work
 * no replay ever reaches, due forever.
 */
export function reopenForRetry(operations: readonly Operation[], now: number): Operation[] {
  const byId = new Map(operations.map((op) => [op.Id, op]));
  const open = new Map<string, Operation>();
  for (const op of operations) {
    if (op.Status !== 'FAILED' || (op.Type !== 'STEP' && op.Type !== 'CONTEXT')) continue;
    const chain: Operation[] = [];
    let reachable = true;
    for (let p = op.ParentId && byId.get(op.ParentId); p; p = p.ParentId ? byId.get(p.ParentId) : undefined) {
      if (p.Type !== 'CONTEXT' || !isTerminal(p.Status)) continue;
      if (p.Status === 'SUCCEEDED' && !BATCH_SUBTYPES.has(p.SubType ?? '')) {
        reachable = false;
        break;
      }
      chain.push(p);
    }
    if (!reachable) continue;
    for (const target of [op, ...chain]) if (!open.has(target.Id)) open.set(target.Id, reopen(target, now));
  }
  const execution = operations.find((op) => op.Type === 'EXECUTION' && isTerminal(op.Status));
  if (execution) open.set(execution.Id, reopen(execution, now));
  return [...open.values()];
}

/** The operation as a retry leaves it: open again, its outcome dropped. */
function reopen(op: Operation, now: number): Operation {
  const { EndTimestamp: _end, ...rest } = op;
  if (op.Type === 'STEP') {
    return {
      ...rest,
      Status: 'READY',
      // The last stored state (a waitForCondition's) stays: the next check continues from it.
      StepDetails: { ...(op.StepDetails ?? { Attempt: 0 }), NextAttemptTimestamp: now },
    };
  }
  if (op.Type === 'CONTEXT') {
    const { ContextDetails: _details, ...context } = rest as Operation;
    return { ...context, Status: 'STARTED' };
  }
  return { ...rest, Status: 'STARTED' };
}

async function requireRun(store: Store, runId: string): Promise<RunRecord> {
  if (typeof runId !== 'string' || runId.length === 0)
    throw new EngineInputError('runId', 'must be a non-empty string');
  const run = await store.getRun(runId);
  if (!run) throw new RunNotFoundError(runId);
  return run;
}
