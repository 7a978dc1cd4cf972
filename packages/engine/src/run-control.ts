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
export async function cancelRun(store: Store, runId: string, now: number): Promise<RunRecord> {
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
  const reopened = (await store.loadOperations(runId)).flatMap((op) => {
    const next = reopen(op, now);
    return next ? [next] : [];
  });
  const revised = await store.reviseRun(
    runId,
    run.status,
    { status: 'RUNNING', error: null, result: null, endedAt: null, expiresAt: null, nextWakeAt: now },
    reopened,
  );
  if (!revised) throw new RunStateError(runId, (await requireRun(store, runId)).status, 'retried');
  return revised;
}

/** The operation as a retry leaves it: failed work opens again, everything else stays. */
function reopen(op: Operation, now: number): Operation | undefined {
  if (op.Type === 'EXECUTION' && isTerminal(op.Status)) {
    const { EndTimestamp: _end, ...rest } = op;
    return { ...rest, Status: 'STARTED' };
  }
  if (op.Status !== 'FAILED') return undefined;
  if (op.Type === 'STEP') {
    const { EndTimestamp: _end, ...rest } = op;
    return {
      ...rest,
      Status: 'READY',
      StepDetails: { ...(op.StepDetails ?? { Attempt: 0 }), NextAttemptTimestamp: now },
    };
  }
  if (op.Type === 'CONTEXT') {
    const { EndTimestamp: _end, ContextDetails: _details, ...rest } = op;
    return { ...rest, Status: 'STARTED' };
  }
  return undefined;
}

async function requireRun(store: Store, runId: string): Promise<RunRecord> {
  if (typeof runId !== 'string' || runId.length === 0)
    throw new EngineInputError('runId', 'must be a non-empty string');
  const run = await store.getRun(runId);
  if (!run) throw new RunNotFoundError(runId);
  return run;
}
