import type { Operation } from '@durable-lambda/protocol';
import { isTerminal } from '@durable-lambda/protocol';
import { EngineError } from './engine-error';
import type { RunStatus } from './ports';

/** A run that cannot take the asked change in its current status. */
export class RunStateError extends EngineError<'run_state_conflict'> {
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

// Cancel and retry themselves are operator actions: see `operator-actions.ts`.

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

/** The operation as a retry leaves it: open again, its outcome dropped (a step gets a new attempt). */
export function reopen(op: Operation, now: number): Operation {
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
