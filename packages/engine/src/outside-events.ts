import { type ErrorObject, incarnationId, type Operation } from '@durable-lambda/protocol';
import { parseCallbackId, sameCallbackId } from './callback-ids';
import { unqueue } from './concurrency-queue';
import { DEFAULT_QUEUE_RECHECK_MS } from './concurrency-slots';
import { CallbackAlreadyCompletedError, CallbackNotFoundError, PayloadTooLargeError } from './errors';
import { flowAfterEnd } from './flow/run-ended';
import { heldAt, outsideHistoryOrder } from './history-order';
import type { Clock, Invoker, RunRecord, Store, Waker } from './ports';
import { isSignalWait } from './signals';
import { recheckBuffered } from './starts/schedule-buffer';
import { callbackTimeout } from './transitions';
import { wakeEvent } from './wake-event';

/** How a callback is completed from outside. */
export type CallbackOutcome =
  | { kind: 'success'; result?: string }
  | { kind: 'failure'; error: ErrorObject }
  | { kind: 'heartbeat' };

/** What outside events need from the engine. */
export interface OutsideEventDeps {
  store: Store;
  waker: Waker;
  invoker: Invoker | undefined;
  clock: Clock;
  maxPayloadBytes: number;
  /** How long an ended run is kept, ms; undefined keeps it forever. */
  retentionMs: number | undefined;
  /** How long a QUEUED run waits before its re-check, ms (the engine's `queueRecheckMs`). */
  queueRecheckMs?: number;
  /** Starts (or finds) a child run for a chained invoke. */
  startChild(request: {
    functionName: string;
    input?: string;
    runKey: string;
    parent: { runId: string; operationId: string };
  }): Promise<RunRecord>;
}

/**
 * The run key of the child run started by the chained invoke `operationId` of `run`. It names the
 * parent's incarnation: a parent created again under its id (a run key reused after retention)
 * starts children of its own, never finding the old parent's child (still running, or ended with
 * a result that is not this run's). A parent without one keeps the key it always had.
 */
export function childRunKey(run: Pick<RunRecord, 'runId' | 'incarnation'>, operationId: string): string {
  return `invoke:${incarnationId(run.runId, run.incarnation)}:${operationId}`;
}

/**
 * Everything that changes a run from outside its own invocations: callbacks completed or kept
 * alive, child runs finishing. Each change is a conditional write on the one operation plus a
 * bump of the run's `eventSeq`, then a wake-up; it never needs the run's lease.
 */
export class OutsideEvents {
  constructor(private readonly deps: OutsideEventDeps) {}

  /** Completes (or heartbeats) a callback exactly once; a second completion is an error. */
  async completeCallback(callbackId: string, outcome: CallbackOutcome): Promise<void> {
    const { runId, operationId } = parseCallbackId(callbackId);
    const { store, clock } = this.deps;
    if (outcome.kind === 'success' && outcome.result !== undefined) this.checkSize('result', outcome.result);
    if (outcome.kind === 'failure') this.checkSize('error', JSON.stringify(outcome.error));
    const run = await store.getRun(runId);
    const op = run && (await store.getOperation(runId, operationId));
    // A signal wait is ended by signals only (`signals.ts`), never through its callback id.
    if (
      !run ||
      !op ||
      op.Type !== 'CALLBACK' ||
      isSignalWait(op) ||
      !sameCallbackId(op.CallbackDetails?.CallbackId, callbackId)
    ) {
      throw new CallbackNotFoundError();
    }
    const now = clock.now();
    const timedOut = callbackTimeout(op, now);
    if (timedOut) {
      await this.writeCallback(run, op, timedOut, false, heldAt(run, now));
      throw new CallbackAlreadyCompletedError('TIMED_OUT');
    }
    if (op.Status !== 'STARTED' || run.status !== 'RUNNING') throw new CallbackAlreadyCompletedError(op.Status);
    const details = op.CallbackDetails as NonNullable<Operation['CallbackDetails']>;
    if (outcome.kind === 'heartbeat') {
      if (details.HeartbeatTimeoutSeconds === undefined) return;
      const next = {
        ...op,
        CallbackDetails: { ...details, HeartbeatDeadline: now + details.HeartbeatTimeoutSeconds * 1000 },
      };
      if (!(await this.writeCallback(run, op, next, false, false))) await this.explainRefusal(runId, operationId);
      return;
    }
    const next: Operation = {
      ...op,
      Status: outcome.kind === 'success' ? 'SUCCEEDED' : 'FAILED',
      EndTimestamp: now,
      CallbackDetails: {
        ...details,
        ...(outcome.kind === 'success'
          ? outcome.result === undefined
            ? {}
            : { Result: outcome.result }
          : { Error: { ErrorType: 'CallbackExternalError', ErrorCode: 'callback_failed', ...outcome.error } }),
      },
    };
    if (!(await this.writeCallback(run, op, next, true, heldAt(run, now)))) {
      await this.explainRefusal(runId, operationId);
    }
    // The completion is durable and made the run due: a lost wake-up is left to the reconciler,
    // so the caller hears of success (a retry would only be told the callback is completed).
    await this.wakeSoon(run);
  }

  /**
   * Brings a run's outside-driven operations up to date as an invocation opens: callbacks past
   * their deadline time out (stored conditionally, so a completion that won the race stands),
   * chained invokes whose child run ended complete, and a child run lost before it started is
   * started. Returns the operations as the invocation must see them.
   */
  async settleOnOpen(run: RunRecord, operations: Operation[]): Promise<Operation[]> {
    const now = this.deps.clock.now();
    const out: Operation[] = [];
    for (const op of operations) {
      let current = op;
      const timedOut = callbackTimeout(op, now);
      if (timedOut) {
        // Written by the invocation opening (it holds the run): before what it does.
        current = (await this.writeCallback(run, op, timedOut, false, false))
          ? timedOut
          : ((await this.deps.store.getOperation(run.runId, op.Id)) ?? op);
      } else if (op.Type === 'CHAINED_INVOKE' && op.Status === 'STARTED') {
        current = await this.reconcileChild(run, op);
      }
      out.push(current);
    }
    return out;
  }

  /** Starts the child run of a chained invoke (idempotent) and invokes it. */
  async startChildFor(run: RunRecord, op: Operation): Promise<RunRecord> {
    const d = op.ChainedInvokeDetails;
    const child = await this.deps.startChild({
      functionName: d?.FunctionName ?? '',
      ...(d?.Input === undefined ? {} : { input: d.Input }),
      runKey: childRunKey(run, op.Id),
      parent: { runId: run.runId, operationId: op.Id },
    });
    if (child.status === 'RUNNING' && child.invocations === 0) {
      if (!this.deps.invoker) throw new Error('an Invoker is needed to start child runs');
      try {
        await this.deps.invoker.invoke(child.functionName, wakeEvent(child.runId));
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'function_not_found') throw error;
        // No such function: the child can never run. End it, and fail the invoke at once.
        return this.childUnreachable(child, error as Error);
      }
    }
    return child;
  }

  private async childUnreachable(child: RunRecord, error: Error): Promise<RunRecord> {
    const now = this.deps.clock.now();
    const stored = { ErrorType: 'InvokeError', ErrorMessage: error.message, ErrorCode: 'function_not_found' };
    const ended = await this.deps.store.reviseRun(
      child.runId,
      'RUNNING',
      {
        status: 'FAILED',
        endedAt: now,
        error: stored,
        nextWakeAt: null,
        // Due until the parent has heard of it: a crash before the write below is repaired.
        dueAt: now,
        ...this.retention(now),
      },
      [],
    );
    if (ended) await this.childFinished(ended);
    return ended ?? child;
  }

  /**
   * A run of a concurrency key ended from outside its invocations (cancelled, timed out, ended
   * with its tree): its slot is released and the head of its key's queue woken (`concurrency-queue.ts`).
   */
  async slotFreed(run: RunRecord): Promise<void> {
    await flowAfterEnd(this.queueDeps(), run);
  }

  /** A QUEUED run is taken out of its wait (RUNNING, due now) and woken to try its admission again. */
  async unqueue(run: RunRecord): Promise<void> {
    await unqueue(this.queueDeps(), run);
  }

  /** A schedule's buffered run at its re-check: started if what it waits behind ended (`schedule-buffer.ts`). */
  recheckBuffered(run: RunRecord): Promise<boolean> {
    return recheckBuffered(this.queueDeps(), run, this.deps.queueRecheckMs ?? DEFAULT_QUEUE_RECHECK_MS);
  }

  private queueDeps() {
    return { store: this.deps.store, clock: this.deps.clock, wake: (run: RunRecord) => this.wake(run) };
  }

  /** `expiresAt` for a run ending at `now`, by the engine's retention. */
  retention(now: number): { expiresAt?: number } {
    return this.deps.retentionMs === undefined ? {} : { expiresAt: now + this.deps.retentionMs };
  }

  /**
   * A child run ended: complete its parent's chained invoke, wake the parent, and record that the
   * parent was told. Until that record, the child stays in the due index, so a notification lost
   * to a fault or a crash is sent again by the reconciler; each step is idempotent.
   */
  async childFinished(child: RunRecord): Promise<void> {
    if (!child.parent || child.parentNotified) return;
    const parent = await this.deps.store.getRun(child.parent.runId);
    const op = parent && (await this.deps.store.getOperation(parent.runId, child.parent.operationId));
    // Only the invoke that started this child: a parent created again under its id (after its
    // retention) may hold another operation there, or an invoke of another child.
    if (parent && op?.Status === 'STARTED' && startedChild(op, child.runId)) {
      const now = this.deps.clock.now();
      const done = outsideHistoryOrder(parent, op, completedInvoke(op, child, now), heldAt(parent, now));
      // The write makes the parent due: its wake-up, if lost, is left to the reconciler.
      if (await this.deps.store.writeOutsideEvent(parent.runId, done, { Status: 'STARTED' }, true)) {
        await this.wakeSoon(parent);
      }
    }
    await this.deps.store.reviseRun(child.runId, child.status, { parentNotified: true, dueAt: null }, []);
  }

  /**
   * Wakes a run whose due-index entry already says it is due; a failed wake-up is left to the
   * reconciler, which finds the run by that entry.
   */
  async wakeSoon(run: Pick<RunRecord, 'runId' | 'functionName'>): Promise<void> {
    await this.wake(run).catch(() => undefined);
  }

  /** Wakes a run now (harmless when it is busy or has nothing to do). */
  async wake(run: Pick<RunRecord, 'runId' | 'functionName'>): Promise<void> {
    await this.deps.waker.wakeAt({
      runId: run.runId,
      functionName: run.functionName,
      at: this.deps.clock.now(),
      reason: 'event',
    });
  }

  private async reconcileChild(run: RunRecord, op: Operation): Promise<Operation> {
    const childId = op.ChainedInvokeDetails?.ChildRunId;
    // A child that cannot be read or started now is seen to again when the invocation closes
    // (the invoke is still STARTED: the child's end, when it comes, is written and announced).
    const child = childId === undefined ? undefined : await this.deps.store.getRun(childId).catch(() => null);
    if (child === null) return op;
    if (!child) {
      await this.startChildFor(run, op).catch(() => undefined);
      return op;
    }
    if (child.status === 'RUNNING' || child.status === 'QUEUED') return op;
    // A failure of this write ends the invocation (its lease keeps the run due). Not swallowed: a
    // write that landed with its answer lost would leave the invocation waiting on a child whose
    // reconciler then finds the invoke ended and wakes no one (the run stranded, chaos seed 2000003).
    const done = outsideHistoryOrder(run, op, completedInvoke(op, child, this.deps.clock.now()));
    return (await this.deps.store.writeOutsideEvent(run.runId, done, { Status: 'STARTED' }, false))
      ? done
      : ((await this.deps.store.getOperation(run.runId, op.Id)) ?? op);
  }

  private writeCallback(
    run: RunRecord,
    op: Operation,
    next: Operation,
    event: boolean,
    held: boolean,
  ): Promise<boolean> {
    const d = op.CallbackDetails;
    const deadlines = {
      ...(d?.TimeoutTimestamp === undefined ? {} : { TimeoutTimestamp: d.TimeoutTimestamp }),
      ...(d?.HeartbeatDeadline === undefined ? {} : { HeartbeatDeadline: d.HeartbeatDeadline }),
    };
    const placed = outsideHistoryOrder(run, op, next, held);
    return this.deps.store.writeOutsideEvent(run.runId, placed, { Status: 'STARTED', deadlines }, event);
  }

  private async explainRefusal(runId: string, operationId: string): Promise<never> {
    const now = await this.deps.store.getOperation(runId, operationId);
    throw new CallbackAlreadyCompletedError(now?.Status ?? 'UNKNOWN');
  }

  private checkSize(field: string, data: string): void {
    const bytes = Buffer.byteLength(data, 'utf8');
    if (bytes > this.deps.maxPayloadBytes) throw new PayloadTooLargeError(field, bytes, this.deps.maxPayloadBytes);
  }
}

/** The parent's chained-invoke operation completed with the child run's outcome. */
function completedInvoke(op: Operation, child: RunRecord, now: number): Operation {
  const ok = child.status === 'SUCCEEDED';
  return {
    ...op,
    Status: ok
      ? 'SUCCEEDED'
      : child.status === 'TIMED_OUT'
        ? 'TIMED_OUT'
        : child.status === 'STOPPED'
          ? 'STOPPED'
          : 'FAILED',
    EndTimestamp: child.endedAt ?? now,
    ChainedInvokeDetails: {
      ...op.ChainedInvokeDetails,
      ...(ok
        ? child.result === undefined
          ? {}
          : { Result: child.result }
        : {
            Error: child.error ?? {
              ErrorType: 'InvokeError',
              ErrorMessage: `child run ${child.status}`,
              ErrorCode: 'invoke_failed',
            },
          }),
    },
  };
}

/** Whether `op` is the chained invoke that started the child run `childRunId`. */
function startedChild(op: Operation, childRunId: string): boolean {
  return op.Type === 'CHAINED_INVOKE' && op.ChainedInvokeDetails?.ChildRunId === childRunId;
}
