import { isTerminal, type Operation } from '@durable-lambda/protocol';
import { EngineError } from './engine-error';
import { EngineInputError, RunNotFoundError } from './errors';
import { outsideHistoryOrder } from './history-order';
import { type Clock, dueAtOf, type RunRecord, type Store } from './ports';
import { RunStateError } from './run-control';

/** A wake-now found nothing of the run that waits on time (a wait's end, a retry's backoff). */
export class NothingToWakeError extends EngineError<'nothing_to_wake'> {
  /** Stable code. */
  readonly code = 'nothing_to_wake';
  constructor(
    readonly runId: string,
    message: string,
  ) {
    super(message);
    this.name = 'NothingToWakeError';
  }
}

/**
 * A wake-now that could not end a retry's backoff because an invocation holds the run (its step
 * state may change under it): ask again once the invocation has ended.
 */
export class RunBusyError extends EngineError<'run_busy'> {
  /** Stable code. */
  readonly code = 'run_busy';
  constructor(readonly runId: string) {
    super(`run ${runId} is held by an invocation under way; wake it again once the invocation has ended`);
    this.name = 'RunBusyError';
  }
}

/** One operation a wake-now ended early. */
export interface WokenOperation {
  operationId: string;
  name?: string;
  /** `wait`: a durable wait ended now; `retry`: a step's next attempt made due now. */
  kind: 'wait' | 'retry';
  /** When it would have come due by itself (epoch ms). */
  dueAt: number;
}

/** What {@link wakeNow} did. */
export interface WakeNowReport {
  /** The run as read before the write. */
  run: RunRecord;
  woken: WokenOperation[];
}

/** What a wake-now needs from the engine. */
export interface WakeNowDeps {
  store: Store;
  clock: Clock;
  /** Asks for the run to be invoked now; a failure is left to the reconciler (the run is due). */
  wake(run: RunRecord): Promise<void>;
}

/** Reads of the run that lost a race with an invocation before a wake-now gives up. */
const MAX_TRIES = 3;

/**
 * Ends now what a RUNNING run waits for on time: each pending durable wait succeeds at once and
 * each retry backoff ends (the step's next attempt becomes due), then the run is woken. With
 * `operationId`, only that operation. Operations no replay reaches again (under a finished
 * context) are left alone.
 *
 * Both writes are conditional, from outside the run's invocations. While no invocation holds the
 * run, one commit fenced on the fence just read carries every change and makes the run due: an
 * invocation that took the run in between (and may have moved a step through another attempt and
 * back to PENDING) grew the fence, so the write is refused and the run read again. While an
 * invocation holds it, waits are still ended by outside events (a WAIT never returns to STARTED,
 * so a status check is enough) and backoffs wait for it to end ({@link RunBusyError} when nothing
 * else could be done). Refuses with {@link NothingToWakeError} when nothing waits on time.
 */
export async function wakeNow(
  deps: WakeNowDeps,
  runId: string,
  options: { operationId?: string } = {},
): Promise<WakeNowReport> {
  if (typeof runId !== 'string' || runId.length === 0)
    throw new EngineInputError('runId', 'must be a non-empty string');
  const only = options.operationId;
  if (only !== undefined && (typeof only !== 'string' || only.length === 0)) {
    throw new EngineInputError('operationId', 'must be a non-empty string');
  }
  for (let tries = 1; ; tries++) {
    const run = await deps.store.getRun(runId);
    if (!run) throw new RunNotFoundError(runId);
    if (run.status !== 'RUNNING') throw new RunStateError(runId, run.status, 'woken');
    const operations = await deps.store.loadOperations(runId);
    const now = deps.clock.now();
    const targets = waitingOnTime(operations, now).filter((t) => only === undefined || t.op.Id === only);
    if (targets.length === 0) throw new NothingToWakeError(runId, nothingToWake(runId, operations, now, only));
    const woken = targets.map(describe);

    if (run.leaseExpiresAt === undefined) {
      if (await commitFenced(deps.store, run, targets, now)) {
        // Durable and due now: a lost wake-up is left to the reconciler.
        await deps.wake(run).catch(() => undefined);
        return { run, woken };
      }
      if (tries < MAX_TRIES) continue;
      throw new RunBusyError(runId);
    }

    const waits = targets.filter((t) => t.kind === 'wait');
    const ended: WokenOperation[] = [];
    for (const target of waits) {
      // The write grows eventSeq, which makes the run due: a lost wake-up is left to the reconciler.
      // An invocation holds the run: the wait's end comes after that invocation's.
      const next = outsideHistoryOrder(run, target.op, endedWait(target.op, now), true);
      if (await deps.store.writeOutsideEvent(runId, next, { Status: 'STARTED' }, true)) {
        ended.push(describe(target));
      }
    }
    if (ended.length === 0) throw new RunBusyError(runId);
    await deps.wake(run).catch(() => undefined);
    return { run, woken: ended };
  }
}

interface Target {
  op: Operation;
  kind: 'wait' | 'retry';
  dueAt: number;
}

function describe(target: Target): WokenOperation {
  return {
    operationId: target.op.Id,
    ...(target.op.Name === undefined ? {} : { name: target.op.Name }),
    kind: target.kind,
    dueAt: target.dueAt,
  };
}

/** The wait as a wake-now leaves it: succeeded now, its scheduled end kept (it shows it ended early). */
function endedWait(op: Operation, now: number): Operation {
  return { ...op, Status: 'SUCCEEDED', EndTimestamp: now };
}

/** The step as a wake-now leaves it: its next attempt due now. */
function due(op: Operation, now: number): Operation {
  return {
    ...op,
    Status: 'READY',
    StepDetails: { ...(op.StepDetails ?? { Attempt: 0 }), NextAttemptTimestamp: now },
  };
}

/**
 * One commit fenced on the fence read, with the run due now. False when the fence moved (an
 * invocation took the run, or it was cancelled or retried) and nothing was written.
 */
async function commitFenced(store: Store, run: RunRecord, targets: Target[], now: number): Promise<boolean> {
  const operations = targets.map((t) =>
    outsideHistoryOrder(run, t.op, t.kind === 'wait' ? endedWait(t.op, now) : due(t.op, now)),
  );
  const dueAt = dueAtOf({ ...run, nextWakeAt: now, updatedAt: now });
  try {
    await store.commit(run.runId, run.fence, { operations, run: { nextWakeAt: now, dueAt: dueAt ?? now } });
    return true;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'fenced') return false;
    // A write whose outcome is unknown (a lost response the store gave up retrying): it landed if
    // every target now stands as written (or moved on from there); else the error stands.
    if (await landed(store, run.runId, targets, now)) return true;
    throw error;
  }
}

async function landed(store: Store, runId: string, targets: Target[], now: number): Promise<boolean> {
  for (const target of targets) {
    const current = await store.getOperation(runId, target.op.Id);
    if (!current) return false;
    const stillWaiting =
      current.Status === target.op.Status &&
      (target.kind === 'wait'
        ? current.WaitDetails?.ScheduledEndTimestamp === target.dueAt
        : current.StepDetails?.NextAttemptTimestamp === target.dueAt && target.dueAt > now);
    if (stillWaiting) return false;
  }
  return true;
}

/** Operations that wait on time alone, not under a finished context: started waits, pending retries. */
function waitingOnTime(operations: readonly Operation[], now: number): Target[] {
  const abandoned = abandonedCheck(operations);
  const out: Target[] = [];
  for (const op of operations) {
    if (abandoned(op)) continue;
    if (op.Type === 'WAIT' && op.Status === 'STARTED') {
      const end = op.WaitDetails?.ScheduledEndTimestamp;
      if (end !== undefined && end > now) out.push({ op, kind: 'wait', dueAt: end });
    } else if (op.Type === 'STEP' && op.Status === 'PENDING') {
      const next = op.StepDetails?.NextAttemptTimestamp;
      if (next !== undefined && next > now) out.push({ op, kind: 'retry', dueAt: next });
    }
  }
  return out;
}

/** Why nothing can be woken: what the run waits for instead, so the caller knows what to do. */
function nothingToWake(runId: string, operations: readonly Operation[], now: number, only?: string): string {
  if (only !== undefined) {
    const op = operations.find((o) => o.Id === only);
    if (!op) return `run ${runId} has no operation ${only}`;
    return `operation ${only}${op.Name ? ` (${op.Name})` : ''} of run ${runId} does not wait on time (it is a ${op.Type}, ${op.Status})`;
  }
  const abandoned = abandonedCheck(operations);
  const waits: string[] = [];
  for (const op of operations) {
    if (isTerminal(op.Status) || abandoned(op)) continue;
    const name = op.Name ? ` ${JSON.stringify(op.Name)}` : '';
    if (op.Type === 'CALLBACK') waits.push(`callback${name} (complete it through the control API)`);
    else if (op.Type === 'CHAINED_INVOKE')
      waits.push(`child run${name} of ${op.ChainedInvokeDetails?.FunctionName ?? '?'}`);
    else if (
      op.Type === 'STEP' &&
      (op.Status === 'READY' || (op.Status === 'PENDING' && (op.StepDetails?.NextAttemptTimestamp ?? 0) <= now))
    ) {
      waits.push(`step${name}, due already`);
    }
  }
  return waits.length > 0
    ? `run ${runId} waits on nothing time can end: it waits for ${waits.join(', ')}`
    : `run ${runId} waits on nothing time can end (no pending wait or retry)`;
}

/** Whether an operation has a finished context among its ancestors: no replay reaches it again. */
function abandonedCheck(operations: readonly Operation[]): (op: Operation) => boolean {
  const byId = new Map(operations.map((op) => [op.Id, op]));
  const memo = new Map<string, boolean>();
  const underFinished = (parentId: string | undefined): boolean => {
    if (parentId === undefined) return false;
    const known = memo.get(parentId);
    if (known !== undefined) return known;
    const parent = byId.get(parentId);
    const result =
      parent !== undefined &&
      parent.Type !== 'EXECUTION' &&
      (isTerminal(parent.Status) || underFinished(parent.ParentId));
    memo.set(parentId, result);
    return result;
  };
  return (op) => underFinished(op.ParentId);
}
