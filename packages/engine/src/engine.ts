import type { DurableBackend, LambdaContextLike, Operation } from '@durable-lambda/protocol';
import { issueCallbackId } from './callback-ids';
import type { EngineOptions, StartRunRequest } from './engine-options';
import { EngineRunControl } from './engine-run-control';
import { EngineInputError, RunKeyConflictError } from './errors';
import { type ExecutionTimeoutSetting, executionTimeoutFor, expireRun, pastDeadline } from './execution-timeout';
import { cancelForSingleton, endSkipped } from './flow/flow-ends';
import { endTimedWait } from './flow/timed-wait';
import { newLeaseToken } from './lease';
import type { OutboxPublisher } from './outbox/outbox-port';
import { childRunKey, OutsideEvents } from './outside-events';
import type { Clock, Invoker, RunRecord, Store, Waker } from './ports';
import { systemClock } from './ports';
import { duePartitionsOf, type ReconcileOptions, type ReconcileReport, reconcile } from './reconciler';
import { loadReplayOperations } from './replay-scope';
import { runIdFor } from './run-ids';
import { wallClockMeter } from './run-meter';
import { checkStartRequest, executionOf, newRunRecord } from './run-start';
import { EngineSession } from './session';
import { type RunSignals, runSignals, type SendSignalOptions, type SignalReceipt, sendSignal } from './signal-send';
import { noVersionPinning, pinLeased, type RunStartOrigin, type VersionPolicy } from './version-policy';
import { isWakeEvent, wakeEvent } from './wake-event';

export type { EngineOptions, StartRunRequest } from './engine-options';
export { EXECUTION_OPERATION_ID } from './run-start';

/**
 * The server side of the checkpoint protocol. It starts runs (idempotent by key), hands
 * invocations a fenced lease, validates every update, completes waits on its clock, and
 * decides each run's next wake-up. It reaches the world only through its ports.
 */
export class Engine extends EngineRunControl implements DurableBackend {
  readonly store: Store;
  readonly waker: Waker;
  readonly invoker: Invoker | undefined;
  readonly clock: Clock;
  /** Which code runs run on (see `version-policy.ts`). */
  readonly versions: VersionPolicy;
  private readonly maxPayloadBytes: number;
  private readonly retentionMs: number | undefined;
  private readonly leaseGraceMs: number;
  private readonly defaultInvocationMs: number;
  private readonly faultRetryMs: number;
  /** Publishes the events steps emit (`EngineOptions.outbox`). */
  private readonly outboxPublisher: OutboxPublisher | undefined;
  private readonly reconcileGraceMs: number;
  protected readonly outside: OutsideEvents;
  private readonly executionTimeout: ExecutionTimeoutSetting | undefined;
  private readonly queueRecheckMs: number | undefined;

  constructor(options: EngineOptions) {
    super();
    this.store = options.store;
    this.waker = options.waker;
    this.invoker = options.invoker;
    this.clock = options.clock ?? systemClock;
    this.versions = options.versions ?? noVersionPinning;
    this.maxPayloadBytes = options.maxPayloadBytes ?? 6 * 1024 * 1024;
    this.retentionMs = options.retentionMs;
    this.leaseGraceMs = options.leaseGraceMs ?? 10_000;
    this.defaultInvocationMs = options.defaultInvocationMs ?? 15 * 60_000;
    this.faultRetryMs = options.faultRetryMs ?? 5_000;
    this.outboxPublisher = options.outbox;
    this.reconcileGraceMs = options.reconcileGraceMs ?? 120_000;
    this.executionTimeout = options.executionTimeout;
    this.queueRecheckMs = options.queueRecheckMs;
    this.outside = new OutsideEvents({
      retentionMs: this.retentionMs,
      store: this.store,
      waker: this.waker,
      invoker: this.invoker,
      clock: this.clock,
      maxPayloadBytes: this.maxPayloadBytes,
      ...(this.queueRecheckMs === undefined ? {} : { queueRecheckMs: this.queueRecheckMs }),
      startChild: async (request) => (await this.startRun(request)).run,
    });
  }

  /** Completes a callback with a result (serialized JSON, or any string). Accepted once. */
  sendCallbackSuccess(callbackId: string, result?: string): Promise<void> {
    if (result !== undefined && typeof result !== 'string') throw new EngineInputError('result', 'must be a string');
    return this.outside.completeCallback(callbackId, { kind: 'success', ...(result === undefined ? {} : { result }) });
  }

  /**
   * Fails a callback with an error. Accepted once. The message may be left out (AWS's service
   * and runner store a failure sent without one as it is).
   */
  sendCallbackFailure(
    callbackId: string,
    error: { ErrorMessage?: string; ErrorType?: string; ErrorCode?: string; ErrorData?: string },
  ): Promise<void> {
    if (typeof error !== 'object' || error === null) throw new EngineInputError('error', 'must be an object');
    if (error.ErrorMessage !== undefined && typeof error.ErrorMessage !== 'string') {
      throw new EngineInputError('error.message', 'must be a string');
    }
    return this.outside.completeCallback(callbackId, { kind: 'failure', error });
  }

  /**
   * Sends signal `name` to a run (`payload`: JSON text, or undefined), kept in its inbox until a
   * `ctx.waitForSignal(name)` takes it, and wakes the run. With `dedupeKey`, a second send with
   * the same key is the first signal (stored once). Refuses a bad name (`invalid_argument`), a
   * payload over the limit (`payload_too_large`), an unknown run (`run_not_found`), an ended one
   * (`run_ended`).
   */
  sendSignal(runId: string, name: string, payload?: string, options: SendSignalOptions = {}): Promise<SignalReceipt> {
    if (payload !== undefined && typeof payload !== 'string') throw new EngineInputError('payload', 'must be a string');
    const deps = {
      store: this.store,
      clock: this.clock,
      maxPayloadBytes: this.maxPayloadBytes,
      wakeSoon: (run: Pick<RunRecord, 'runId' | 'functionName'>) => this.outside.wakeSoon(run),
    };
    return sendSignal(deps, runId, name, payload, options);
  }

  /** A run's signals (sent, delivered or pending) and its waits still open. */
  runSignals(runId: string): Promise<RunSignals> {
    return runSignals(this.store, runId);
  }

  /** Keeps a callback with a heartbeat timeout alive. */
  sendCallbackHeartbeat(callbackId: string): Promise<void> {
    return this.outside.completeCallback(callbackId, { kind: 'heartbeat' });
  }

  /**
   * Starts a run, or finds the run its key already names. A key reused with another function
   * or input is a {@link RunKeyConflictError}; a function that differs only in where the run was
   * pinned since is the same (the version policy's `sameFunction`). The run is recorded under
   * the name the version policy gives it (`nameAtStart`).
   */
  startRun(request: StartRunRequest): Promise<{ run: RunRecord; created: boolean }> {
    return this.start(request, 'request');
  }

  private async start(request: StartRunRequest, origin: RunStartOrigin): Promise<{ run: RunRecord; created: boolean }> {
    checkStartRequest(request);
    const asked = { ...request, functionName: this.versions.nameAtStart(request.functionName, origin) };
    const timeoutMs = executionTimeoutFor(this.executionTimeout, asked.functionName, asked.executionTimeoutSeconds);
    const now = this.clock.now();
    const run = newRunRecord(asked, runIdFor(asked.runKey), now, timeoutMs);
    const execution = executionOf(run);
    const result = await this.store.createRun(run, execution);
    const same = this.versions.sameFunction(result.run.functionName, run.functionName);
    if (!result.created && (!same || result.run.input !== run.input)) {
      throw new RunKeyConflictError(request.runKey ?? '', run.runId);
    }
    return result;
  }

  /**
   * Opens an invocation of a run: takes its lease and loads its operations. Undefined when there
   * is nothing to do: the run is gone or finished, another invocation holds it, or nothing is
   * due yet (a duplicate or early wake-up), so such wake-ups have no side effects.
   *
   * Opening a run is the one way code runs on it, so it is where the version policy is enforced
   * (see `version-policy.ts`): a run recorded on other code is handed there unopened (judged on
   * the read every open makes, so it costs nothing more), and a run just leased is pinned where it
   * runs; one found elsewhere once leased (pinned by another invocation between the read and the
   * lease) or left unpinned (its pin write failed) is released at once unrun, due again in a moment.
   */
  async openRun(runId: string, options: { remainingTimeMs?: () => number } = {}): Promise<EngineSession | undefined> {
    const now = this.clock.now();
    const found = await this.store.getRun(runId);
    const run = found?.status === 'QUEUED' ? await endTimedWait(this.store, found, now) : found;
    if (run?.status !== 'RUNNING') return undefined;
    const recordedElsewhere = this.versions.runsElsewhere(run.functionName);
    if (recordedElsewhere !== undefined) {
      await this.handOver(recordedElsewhere, runId);
      return undefined;
    }
    const session = await this.leaseAndLoad(run, now, options);
    if (!session) return undefined;
    const leasedElsewhere = this.versions.runsElsewhere(session.functionName);
    if (leasedElsewhere === undefined && this.versions.pinAtLease(session.functionName) === undefined) return session;
    // Nothing ran: the lease is released with the run due in a moment (and its wake-up asked for).
    await session.abort(new Error(`durable-lambda: run ${runId} (${session.functionName}) does not run here`));
    if (leasedElsewhere !== undefined) await this.handOver(leasedElsewhere, runId);
    return undefined;
  }

  /** Hands a run to the code it runs on: an asynchronous invoke of `functionName` with its wake-up event. */
  private async handOver(functionName: string, runId: string): Promise<void> {
    if (this.invoker) {
      await this.invoker.invoke(functionName, wakeEvent(runId));
      return;
    }
    await this.waker.wakeAt({ runId, functionName, at: this.clock.now(), reason: 'event' });
  }

  /** The lease of a RUNNING run read at `now`, pinned by the version policy, and its operations. */
  private async leaseAndLoad(
    run: RunRecord,
    now: number,
    options: { remainingTimeMs?: () => number },
  ): Promise<EngineSession | undefined> {
    const runId = run.runId;
    // Past its deadline nothing runs: the run ends TIMED_OUT, a live invocation is fenced.
    if (pastDeadline(run, now)) {
      await this.expire(runId);
      return undefined;
    }
    const lapsed = run.leaseExpiresAt !== undefined && run.leaseExpiresAt <= now;
    const due = (run.nextWakeAt !== undefined && run.nextWakeAt <= now) || run.eventSeq > run.handledEventSeq;
    if (!lapsed && !due) return undefined;
    const remainingTimeMs = options.remainingTimeMs ?? (() => this.defaultInvocationMs);
    const leaseExpiresAt = now + remainingTimeMs() + this.leaseGraceMs;
    const leaseToken = newLeaseToken();
    const leased = await this.store.acquireLease(runId, now, leaseExpiresAt, leaseToken);
    if (!leased) return undefined;
    const grant = await pinLeased(this.store, this.versions, leased, leaseToken);
    await this.armLease(run, leaseExpiresAt);
    const loaded = grant.replay ? await grant.replay() : await loadReplayOperations(this.store, runId);
    const operations = await this.outside.settleOnOpen(grant.run, loaded);
    const session = this.leasedSession(grant.run, operations, grant.previousLost, remainingTimeMs, now);
    // Signals that came while the run waited end their waits before the handler replays.
    await session.deliverSignals();
    return session;
  }

  /**
   * The safety nets of a lease just taken: if this invocation dies without closing, the run wakes
   * when the lease lapses; a lease outliving the run's deadline gets a wake-up at the deadline.
   * Best effort: the lease put the run in the due index at its end, so a lost request (or a death
   * before it) is left to the reconciler.
   */
  private async armLease(run: RunRecord, leaseExpiresAt: number): Promise<void> {
    const { runId, functionName } = run;
    await this.waker.wakeAt({ runId, functionName, at: leaseExpiresAt, reason: 'lease' }).catch(() => undefined);
    if (run.deadlineAt !== undefined && run.deadlineAt < leaseExpiresAt) {
      await this.waker.wakeAt({ runId, functionName, at: run.deadlineAt, reason: 'due' }).catch(() => undefined);
    }
  }

  /** The session of an invocation holding `run`'s lease, over the operations it replays from. */
  private leasedSession(
    run: RunRecord,
    operations: Operation[],
    previousLost: boolean,
    remainingTimeMs: () => number,
    leasedAt: number,
  ): EngineSession {
    const runId = run.runId;
    return new EngineSession(run, operations, previousLost, {
      store: this.store,
      waker: this.waker,
      clock: this.clock,
      limits: { maxPayloadBytes: this.maxPayloadBytes },
      retentionMs: this.retentionMs,
      remainingTimeMs,
      leasedAt,
      faultRetryMs: this.faultRetryMs,
      ...(this.outboxPublisher ? { outbox: this.outboxPublisher } : {}),
      ...(this.queueRecheckMs === undefined ? {} : { queueRecheckMs: this.queueRecheckMs }),
      // Invocations and real duration; a host that measures more replaces it (`meterWith`).
      meter: wallClockMeter(),
      ids: {
        callbackId: (operationId) => issueCallbackId(runId, operationId),
        childRunId: (operationId) => runIdFor(childRunKey(run, operationId)),
      },
      hooks: {
        canInvoke: (name) => this.invoker !== undefined && this.invoker.knows?.(name) !== false,
        startChild: (parentRun, op) => this.outside.startChildFor(parentRun, op),
        finished: (ended) => this.outside.childFinished(ended),
        wake: (target) => this.outside.wake(target),
        expire: (target) => this.expire(target.runId),
        end: (target, end, extra) => endSkipped(this.operatorDeps(), target, end, extra),
        cancel: (holder, byRunId) => cancelForSingleton(this.operatorDeps(), holder, byRunId),
      },
    });
  }

  /** Ends a run past its deadline TIMED_OUT, with its tree (see `execution-timeout.ts`). */
  private async expire(runId: string): Promise<RunRecord | undefined> {
    return expireRun({ store: this.store, clock: this.clock, outside: this.outside }, runId);
  }

  /**
   * One pass of the reconciler: wakes every run that is due and not held by a live lease, and
   * tells waiting parents of child runs that ended, whatever wake-up or notification was lost.
   * Run it every minute (the CDK deploys it so; the dev server runs it on a timer). Safe to run
   * concurrently and repeatedly. See {@link ReconcileReport} for what it returns.
   */
  reconcile(options: ReconcileOptions = {}): Promise<ReconcileReport> {
    return reconcile(
      {
        store: this.store,
        waker: this.waker,
        clock: this.clock,
        outside: this.outside,
        graceMs: this.reconcileGraceMs,
        expire: (runId) => this.expire(runId),
        ...(this.outboxPublisher ? { outbox: this.outboxPublisher } : {}),
      },
      options,
    );
  }

  /**
   * How many partitions the store's due index has (`Store.duePartitions`, 1 when it does not say):
   * `reconcile({ partition })` reads one of them, so `reconcileAll` can work them side by side.
   */
  duePartitions(): number {
    return duePartitionsOf(this.store);
  }

  /**
   * The Lambda entry: a wake-up event resumes its run; any other event starts a run keyed by the
   * Lambda request id (so a duplicate delivery finds it) and runs its first invocation.
   */
  async open(event: unknown, context: LambdaContextLike) {
    const remainingTimeMs = context.getRemainingTimeInMillis?.bind(context);
    const options = remainingTimeMs ? { remainingTimeMs } : {};
    let runId: string;
    if (isWakeEvent(event)) {
      runId = event.durableLambda.runId;
    } else {
      const functionName = context.functionName;
      if (!functionName) throw new EngineInputError('context.functionName', 'is needed to start a run');
      const input = event === undefined ? undefined : JSON.stringify(event);
      const now = this.clock.now();
      const remaining = options.remainingTimeMs ?? (() => this.defaultInvocationMs);
      const lease = { leaseExpiresAt: now + remaining() + this.leaseGraceMs, leaseToken: newLeaseToken() };
      const started = await this.start(
        {
          functionName,
          ...(input === undefined ? {} : { input }),
          ...(context.awsRequestId ? { runKey: context.awsRequestId } : {}),
          lease,
        },
        'event',
      );
      runId = started.run.runId;
      // Created with our lease: the invocation owns it already and its only operation is the
      // EXECUTION just written (a duplicate delivery finds the run and opens it as a wake-up).
      if (started.created && started.run.leaseToken === lease.leaseToken) {
        await this.armLease(started.run, lease.leaseExpiresAt);
        const opened = this.leasedSession(
          started.run,
          [executionOf(started.run)],
          false,
          remaining,
          started.run.createdAt,
        );
        return { opened };
      }
    }
    const session = await this.openRun(runId, options);
    if (session) return { opened: session };
    const run = await this.getRun(runId);
    return { response: run ? runResponse(run) : { Status: 'NOT_FOUND', runId } };
  }
}

/** What a Lambda invocation returns for a run it did not work on. */
function runResponse(run: RunRecord): unknown {
  if (run.status === 'QUEUED') return { Status: 'QUEUED', runId: run.runId };
  if (run.status === 'RUNNING') return { Status: 'PENDING', runId: run.runId };
  return {
    Status: run.status,
    runId: run.runId,
    ...(run.result === undefined ? {} : { Result: run.result }),
    ...(run.error ? { Error: run.error } : {}),
  };
}
