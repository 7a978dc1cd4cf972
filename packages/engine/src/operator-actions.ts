/**
 * Operator actions that repair a run: retry it (from its failures, or from a chosen operation),
 * skip a failed step with a given result, cancel it alone or with its tree of child runs. Each is
 * one fenced revision (`Store.reviseRun`: the fence grows and the lease is released, so a live
 * invocation's next checkpoint is refused and it stops quietly) that also writes the action's
 * entry in the run's history (`run-audit.ts`), and each is idempotent by its action id: a repeat
 * finds that entry and changes nothing.
 */
import { isTerminal, type Operation } from '@durable-lambda/protocol';
import { EngineError } from './engine-error';
import { EngineInputError, RunNotFoundError } from './errors';
import { outsideHistoryOrder } from './history-order';
import type { RunPatch, RunRecord, RunStatus } from './ports';
import { type ActionOrigin, findAction, parseOrigin, type RunActionKind, withAction } from './run-audit';
import { RunStateError, reopen, reopenForRetry } from './run-control';
import { mayHoldSlot } from './run-record';
import { endChildren, endRun, type TreeEndDeps } from './run-tree-end';

/** An operation the request names that the run does not hold. */
export class OperationNotFoundError extends EngineError<'operation_not_found'> {
  /** Stable code. */
  readonly code = 'operation_not_found';
  constructor(
    readonly runId: string,
    readonly operationId: string,
  ) {
    super(`operationId: run ${runId} has no operation ${JSON.stringify(operationId)}`);
    this.name = 'OperationNotFoundError';
  }
}

/** An operation that cannot take the asked action in its current status or type. */
export class OperationStateError extends EngineError<'operation_state_conflict'> {
  /** Stable code. */
  readonly code = 'operation_state_conflict';
  constructor(message: string) {
    super(message);
    this.name = 'OperationStateError';
  }
}

/**
 * An action whose revision kept finding the run revised in between (other actions, leases taken
 * one after another): nothing was written; ask again.
 */
export class RunContendedError extends EngineError<'run_busy'> {
  /** Stable code (the control API answers 409). */
  readonly code = 'run_busy';
  constructor(readonly runId: string) {
    super(`run ${runId} kept changing while the action was applied; nothing was changed, ask again`);
    this.name = 'RunContendedError';
  }
}

/**
 * Revisions an action builds again after finding the run's fence moved since its read. Each
 * refusal means another revision landed, so a few cover any plausible burst.
 */
const MAX_REVISION_ATTEMPTS = 5;

/**
 * Reads the run and revises it with `attempt` (built from that read, written only at its fence)
 * until a revision lands: one refused because the run moved in between is built again from the
 * run as it now is, so no action's audit entry or effect is overwritten by a patch built without
 * it. A run already holding `actionId`'s entry is a repeat: nothing changes.
 */
async function reviseFromLatest(
  deps: OperatorDeps,
  runId: string,
  actionId: string,
  attempt: (run: RunRecord) => Promise<RunRecord | undefined>,
): Promise<ActionOutcome> {
  for (let n = 0; n < MAX_REVISION_ATTEMPTS; n++) {
    const run = await requireRun(deps, runId);
    if (findAction(run, actionId)) return { run, repeated: true };
    const revised = await attempt(run);
    if (revised) return { run: revised, repeated: false };
  }
  throw new RunContendedError(runId);
}

/** What operator actions need from the engine. */
export interface OperatorDeps extends TreeEndDeps {
  /** A new random action id (for a request that gave none). */
  newId(): string;
}

/** What an operator action did. */
export interface ActionOutcome {
  run: RunRecord;
  /** True when the action id was already applied: nothing changed now. */
  repeated: boolean;
}

/** Options of a retry. */
export interface RetryOptions extends ActionOrigin {
  /**
   * Run again from this operation (a step or a child context, in any status): it and every step
   * and context created after it get a new attempt; work before it replays. The run may be
   * FAILED, TIMED_OUT, or RUNNING (its live invocation is then fenced). Without it, only the
   * failed operations are retried (the run must be FAILED or TIMED_OUT).
   */
  fromOperationId?: string;
}

/** Options of a skip. */
export interface SkipOptions extends ActionOrigin {
  /** The step's result, serialized (JSON); absent: the step returns undefined. */
  result?: string;
}

/** Options of a cancel. */
export interface CancelOptions extends ActionOrigin {
  /** Also cancel every child run (started by `invoke`), and theirs. */
  tree?: boolean;
}

/** Retries a run (see {@link RetryOptions}); the run is RUNNING and due now after. */
export async function retryRunAction(deps: OperatorDeps, runId: string, options: RetryOptions = {}) {
  const from = options.fromOperationId;
  if (from !== undefined && (typeof from !== 'string' || from.length === 0)) {
    throw new EngineInputError('fromOperationId', 'must be a non-empty string');
  }
  const allowed: RunStatus[] = from === undefined ? ['FAILED', 'TIMED_OUT'] : ['FAILED', 'TIMED_OUT', 'RUNNING'];
  // An ended run whose slot's release is still pending releases it first: the rerun takes a slot
  // again at its admission, and its key would be forgotten (`resumed`) with the old one held.
  const current = await deps.store.getRun(runId);
  if (current && current.status !== 'RUNNING' && current.slotHeld) await deps.outside.slotFreed(current);
  return act(deps, runId, options, 'retry', allowed, 'retried', from, (run, operations, now) => ({
    operations: from === undefined ? reopenForRetry(operations, now) : reopenFrom(run, operations, from, now),
    patch: resumed(run, now),
  }));
}

/**
 * Skips a failed step: it is stored SUCCEEDED with the given result, as if its last attempt had
 * returned it, and the run replays past it. The step must be FAILED (or waiting to retry:
 * PENDING or READY); the run FAILED, TIMED_OUT, or RUNNING (its live invocation is fenced).
 */
export async function skipStepAction(
  deps: OperatorDeps,
  runId: string,
  operationId: string,
  options: SkipOptions = {},
): Promise<ActionOutcome> {
  if (typeof operationId !== 'string' || operationId.length === 0) {
    throw new EngineInputError('operationId', 'must be a non-empty string');
  }
  if (options.result !== undefined && typeof options.result !== 'string') {
    throw new EngineInputError('result', 'must be serialized JSON (a string)');
  }
  return act(
    deps,
    runId,
    options,
    'skip_step',
    ['FAILED', 'TIMED_OUT', 'RUNNING'],
    'repaired',
    operationId,
    (run, operations, now) => {
      const step = operations.find((op) => op.Id === operationId);
      if (!step) throw new OperationNotFoundError(runId, operationId);
      if (step.Type !== 'STEP') throw new OperationStateError(`operation ${operationId} is a ${step.Type}, not a STEP`);
      if (step.Status !== 'FAILED' && step.Status !== 'PENDING' && step.Status !== 'READY') {
        throw new OperationStateError(`step ${operationId} is ${step.Status}: only a failed step can be skipped`);
      }
      const { Error: _error, NextAttemptTimestamp: _next, ...details } = step.StepDetails ?? { Attempt: 1 };
      const skipped: Operation = {
        ...step,
        Status: 'SUCCEEDED',
        EndTimestamp: now,
        StepDetails: {
          ...details,
          Attempt: step.StepDetails?.Attempt ?? 1,
          ...(options.result === undefined ? {} : { Result: options.result }),
        },
      };
      if (options.result === undefined && skipped.StepDetails) delete skipped.StepDetails.Result;
      const byId = new Map(operations.map((op) => [op.Id, op]));
      return {
        operations: [skipped, ...reopenAncestors(byId, step, now, false), ...reopenedExecution(operations)],
        patch: resumed(run, now),
      };
    },
  );
}

/**
 * Cancels a RUNNING run (with `tree`, also its child runs, and theirs: each CANCELLED, each
 * parent told). A tree cancel of a run already ended still cancels its running children.
 */
export async function cancelRunAction(
  deps: OperatorDeps,
  runId: string,
  options: CancelOptions = {},
): Promise<ActionOutcome> {
  const { actor, actionId } = parseOrigin(options, deps.newId);
  const kind: RunActionKind = options.tree ? 'cancel_tree' : 'cancel';
  const entry = (of: RunRecord, viaRunId?: string) => ({
    actions: withAction(of, {
      id: actionId,
      action: kind,
      actor,
      at: deps.clock.now(),
      fromStatus: of.status,
      ...(viaRunId === undefined ? {} : { viaRunId }),
    }),
  });
  const outcome = await reviseFromLatest(deps, runId, actionId, (run) => {
    const basedOn = { fence: run.fence };
    if (run.status === 'RUNNING' || run.status === 'QUEUED') {
      return endRun(
        deps,
        run,
        {
          status: 'CANCELLED',
          error: { ErrorType: 'RunCancelled', ErrorMessage: 'the run was cancelled', ErrorCode: 'run_cancelled' },
        },
        // A plain cancel leaves the children running: only a tree cancel waits to end them.
        {
          ...entry(run),
          ...(options.tree
            ? {}
            : { childrenOpen: null, dueAt: run.parent || mayHoldSlot(run) ? deps.clock.now() : null }),
        },
        basedOn,
      );
    }
    // Recorded on the root too, so a repeat finds it; its running children are cancelled below.
    if (options.tree)
      return deps.store.reviseRun(runId, run.status, { ...entry(run), childrenOpen: true }, [], basedOn);
    throw new RunStateError(runId, run.status, 'cancelled');
  });
  const { repeated } = outcome;
  let current = outcome.run;
  if (repeated && !options.tree) return outcome;
  if (options.tree && current.childrenOpen) {
    await endChildren(deps, current, (child) => entry(child, runId));
    current = (await deps.store.getRun(runId)) ?? current;
  }
  // Left to the reconciler when it fails: a cancelled child stays due until its parent is told.
  if (current.status === 'CANCELLED') await deps.outside.childFinished(current).catch(() => undefined);
  return { run: (await deps.store.getRun(runId)) ?? current, repeated };
}

/** The shared shape of retry and skip: checked on the run as read, applied once by its id, one revision at that run's fence. */
async function act(
  deps: OperatorDeps,
  runId: string,
  origin: ActionOrigin,
  kind: RunActionKind,
  allowed: readonly RunStatus[],
  verb: string,
  operationId: string | undefined,
  build: (run: RunRecord, operations: Operation[], now: number) => { operations: Operation[]; patch: RunPatch },
): Promise<ActionOutcome> {
  const { actor, actionId } = parseOrigin(origin, deps.newId);
  return reviseFromLatest(deps, runId, actionId, async (run) => {
    if (!allowed.includes(run.status)) throw new RunStateError(runId, run.status, verb);
    const now = deps.clock.now();
    const stored = await deps.store.loadOperations(runId);
    const { operations: changed, patch } = build(run, stored, now);
    // A revision is made outside the run's invocations: the events it adds stand after those recorded so far.
    const before = new Map(stored.map((op) => [op.Id, op]));
    const operations = changed.map((op) => outsideHistoryOrder(run, before.get(op.Id), op));
    const actions = withAction(run, {
      id: actionId,
      action: kind,
      actor,
      at: now,
      fromStatus: run.status,
      ...(operationId === undefined ? {} : { operationId }),
    });
    return deps.store.reviseRun(runId, run.status, { ...patch, actions }, operations, { fence: run.fence });
  });
}

/** The run patch that makes a run RUNNING and due now (an ended run gets a fresh deadline). */
function resumed(run: RunRecord, now: number): RunPatch {
  if (run.status === 'RUNNING') return { nextWakeAt: now, dueAt: now };
  return {
    status: 'RUNNING',
    error: null,
    result: null,
    endedAt: null,
    expiresAt: null,
    nextWakeAt: now,
    dueAt: now,
    // The rerun ends again, and its parent (if any) hears of that end too.
    parentNotified: null,
    childrenOpen: null,
    // It takes a slot of its key again at its next admission (its old one was freed at its end).
    concurrencyKey: null,
    queuedAt: null,
    queuePriority: null,
    // Its start was counted and debounced already; the singleton slot it held was freed at its end.
    ...(run.flow ? { flow: { passed: run.flow.passed.filter((gate) => gate !== 'singleton') } } : {}),
    ...(run.executionTimeoutMs === undefined ? {} : { deadlineAt: now + run.executionTimeoutMs }),
  };
}

/**
 * The operations a retry from `fromId` opens again: that operation and every step or context
 * created after it (the store's order is creation order), each with its finished context
 * ancestors (so the replay walks into them), and the EXECUTION.
 */
export function reopenFrom(run: RunRecord, operations: readonly Operation[], fromId: string, now: number): Operation[] {
  const index = operations.findIndex((op) => op.Id === fromId);
  const from = operations[index];
  if (!from) throw new OperationNotFoundError(run.runId, fromId);
  if (from.Type !== 'STEP' && from.Type !== 'CONTEXT') {
    throw new OperationStateError(`operation ${fromId} is a ${from.Type}: a retry starts from a STEP or a CONTEXT`);
  }
  const byId = new Map(operations.map((op) => [op.Id, op]));
  const open = new Map<string, Operation>();
  for (const op of operations.slice(index)) {
    if (op.Type !== 'STEP' && op.Type !== 'CONTEXT') continue;
    // A step still waiting for its attempt needs nothing: the rerun reaches it as it is.
    if (op.Type === 'STEP' && !isTerminal(op.Status) && op.Status !== 'STARTED') continue;
    if (!open.has(op.Id)) open.set(op.Id, reopen(op, now));
    for (const parent of reopenAncestors(byId, op, now, true)) if (!open.has(parent.Id)) open.set(parent.Id, parent);
  }
  for (const op of reopenedExecution(operations)) open.set(op.Id, op);
  return [...open.values()];
}

/**
 * The finished context ancestors of `op`, reopened so the replay walks into them. With `all`
 * false, a context that succeeded anyway (not a map or parallel) stops the walk: it handled the
 * failure, and its stored result stands.
 */
function reopenAncestors(byId: ReadonlyMap<string, Operation>, op: Operation, now: number, all: boolean): Operation[] {
  const chain: Operation[] = [];
  for (let p = op.ParentId ? byId.get(op.ParentId) : undefined; p; p = p.ParentId ? byId.get(p.ParentId) : undefined) {
    if (p.Type !== 'CONTEXT' || !isTerminal(p.Status)) continue;
    if (!all && p.Status === 'SUCCEEDED' && p.SubType !== 'Map' && p.SubType !== 'Parallel') break;
    chain.push(reopen(p, now));
  }
  return chain;
}

/** The run's EXECUTION, open again when it had ended. */
function reopenedExecution(operations: readonly Operation[]): Operation[] {
  const execution = operations.find((op) => op.Type === 'EXECUTION' && isTerminal(op.Status));
  if (!execution) return [];
  const { EndTimestamp: _end, ...rest } = execution;
  return [{ ...rest, Status: 'STARTED' }];
}

async function requireRun(deps: OperatorDeps, runId: string): Promise<RunRecord> {
  if (typeof runId !== 'string' || runId.length === 0)
    throw new EngineInputError('runId', 'must be a non-empty string');
  const run = await deps.store.getRun(runId);
  if (!run) throw new RunNotFoundError(runId);
  return run;
}
