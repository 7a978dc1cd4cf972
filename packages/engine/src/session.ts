import {
  CheckpointRejectedError,
  type DurableInvocation,
  FencedError,
  type InvocationOutput,
  type OpenedInvocation,
  type Operation,
  type OperationUpdate,
} from '@durable-lambda/protocol';
import { HistoryCounter, withInvocation } from './history-order';
import { type Clock, dueAtOf, type RunPatch, type RunRecord, type Store, type WakeRequest, type Waker } from './ports';
import { loadReplayOperations } from './replay-scope';
import type { InvocationMeter } from './run-meter';
import { applyUpdate, type IdIssuer, nextDue, settleDue, type UpdateLimits } from './transitions';

/** What a session tells the engine about, and asks of it. */
export interface SessionHooks {
  /** Whether a chained invoke may target this function (false: it fails at once). */
  canInvoke(functionName: string): boolean;
  /** A chained invoke started: start its child run. */
  startChild(run: RunRecord, op: Operation): Promise<unknown>;
  /** The run ended: tell a waiting parent. */
  finished(run: RunRecord): Promise<void>;
  /** Wake the run now. */
  wake(run: RunRecord): Promise<void>;
  /** The run passed its execution deadline: end it TIMED_OUT (this session is fenced by it). */
  expire?(run: RunRecord): Promise<unknown>;
}

/** What a session needs from the engine that opened it. */
export interface SessionDeps {
  store: Store;
  waker: Waker;
  clock: Clock;
  limits: UpdateLimits;
  /** Retention after the run ends, ms. */
  retentionMs: number | undefined;
  /** Real ms the invocation may run (Lambda's remaining time). */
  remainingTimeMs: () => number;
  /**
   * When the invocation asked for its lease (its `InvocationCompleted`'s start: an outside event
   * written after it is one this invocation held the run for). Default: when the session opens.
   */
  leasedAt?: number;
  /** Delay before retrying a run whose invocation faulted. */
  faultRetryMs: number;
  ids: IdIssuer;
  hooks: SessionHooks;
  /**
   * Measures the invocation for the run's meter, asked when the last write is built; absent: the
   * invocation records nothing (see {@link EngineSession.meterWith}).
   */
  meter?: InvocationMeter;
}

/**
 * One invocation's hold on a run: the operations as of its start, kept current as it
 * checkpoints, every write fenced by the lease's token. It implements the protocol the SDK
 * speaks and ends with `close` (or `abort`).
 */
export class EngineSession implements DurableInvocation, OpenedInvocation {
  private readonly ops = new Map<string, Operation>();
  /** Chained invokes whose child this session has invoked. */
  private readonly invokedChildren = new Set<string>();
  /** Operations changed by time alone (waits come due), written with the next commit. */
  private readonly settled = new Set<string>();
  /** Ids of operations that time alone can change (started waits, pending retries). */
  private readonly timeBound = new Set<string>();
  /**
   * Ids of the operations `close` looks at: those with a due time (`nextDue`'s: started waits,
   * pending or ready retries, started callbacks) and those waiting outside (started callbacks and
   * chained invokes). Kept as operations are stored, so a close is as cheap after 100,000
   * completed operations as after ten (replay loads only the live ones; this is the invocation that
   * ran them).
   */
  private readonly mayBeDue = new Set<string>();
  private readonly waitingOutside = new Set<string>();
  /** Ids time changed since {@link takeSettledByTime} last looked (one per wait or retry, so small). */
  private settledByTime: string[] = [];
  private ended = false;
  private meter: InvocationMeter | undefined;
  /** Places the events this invocation records in the run's history (`history-order.ts`). */
  private readonly history: HistoryCounter;
  /** When this invocation began, for its `InvocationCompleted`. */
  private readonly startedAt: number;

  constructor(
    private run: RunRecord,
    operations: readonly Operation[],
    readonly previousInvocationLost: boolean,
    private readonly deps: SessionDeps,
  ) {
    this.history = new HistoryCounter(run.historySeq);
    this.startedAt = deps.leasedAt ?? deps.clock.now();
    for (const op of operations) this.put(op);
    this.settleDue();
    this.meter = deps.meter;
  }

  /**
   * Measures this invocation with `meter` instead of the one it was opened with: a host that
   * counts more than the engine can (the AWS adapter: DynamoDB capacity, Scheduler, SQS, memory)
   * hands its own. Its answer is added to the run's meter by the invocation's last write.
   */
  meterWith(meter: InvocationMeter): void {
    this.meter = meter;
  }

  get invocation(): DurableInvocation {
    return this;
  }

  get lostInvocations(): number {
    return this.run.lostInvocations;
  }

  get runId(): string {
    return this.run.runId;
  }

  get incarnation(): string | undefined {
    return this.run.incarnation;
  }

  get functionName(): string {
    return this.run.functionName;
  }

  get input(): string | undefined {
    return this.run.input;
  }

  /** The operations as of now; the store handed out copies, and the SDK never mutates them. */
  get operations(): readonly Operation[] {
    return [...this.ops.values()];
  }

  now(): number {
    return this.deps.clock.now();
  }

  remainingTimeMs(): number {
    return this.deps.remainingTimeMs();
  }

  async checkpoint(updates: readonly OperationUpdate[]): Promise<readonly Operation[]> {
    this.assertOpen();
    const now = this.now();
    // Awaited only past the deadline: a checkpoint is the test runner's hot path.
    if (this.run.deadlineAt !== undefined && this.run.deadlineAt <= now) await this.enforceDeadline(now);
    this.settleDue();
    const { written, invokes } = this.applyAll(updates, now);
    if (written.length === 0 && this.settled.size === 0) return [];
    // The store's commit awaited here, not through `commit`: one promise less on the hot path.
    await this.deps.store.commit(this.run.runId, this.run.fence, this.writeOf(written));
    this.settled.clear();
    for (const op of written) this.put(op);
    if (invokes === undefined) return written;
    // Best effort: if this fails, the parent's next invocation starts the child (settleOnOpen).
    for (const op of invokes) {
      // Best effort: a child not started now is started when this invocation closes.
      await this.deps.hooks.startChild(this.run, op).then(
        () => this.invokedChildren.add(op.Id),
        () => undefined,
      );
    }
    return written;
  }

  /** The operations `updates` make, in order (validated; nothing stored yet), and the children to invoke. */
  private applyAll(
    updates: readonly OperationUpdate[],
    now: number,
  ): { written: Operation[]; invokes: Operation[] | undefined } {
    const changed = new Map<string, Operation>();
    const lookup = (id: string) => changed.get(id) ?? this.ops.get(id);
    const parentExists = (id: string) => lookup(id) !== undefined;
    let invokes: Operation[] | undefined;
    for (const update of updates) {
      let op = applyUpdate(lookup(update.Id), update, now, parentExists, this.deps.limits, this.deps.ids);
      if (op.Type === 'CHAINED_INVOKE' && op.Status === 'STARTED' && !lookup(op.Id)) {
        op = this.invokable(op, now);
        if (op.Status === 'STARTED') {
          invokes ??= [];
          invokes.push(op);
        }
      }
      changed.set(update.Id, this.history.place(lookup(update.Id), op));
    }
    return { written: [...changed.values()], invokes };
  }

  /**
   * Takes in the updates the SDK had not written when the invocation ended (`output.Updates`),
   * so that the write recording the end carries them: one write instead of two. Returns them as
   * operations, already in the session's view. A chained invoke among them (never deferred by our
   * SDK) is checkpointed first, as before, since its child must be started.
   */
  private async takeUpdates(updates: readonly OperationUpdate[] | undefined, now: number): Promise<Operation[]> {
    if (!updates || updates.length === 0) return [];
    if (updates.some((u) => u.Type === 'CHAINED_INVOKE')) {
      await this.checkpoint(updates);
      return [];
    }
    const { written } = this.applyAll(updates, now);
    for (const op of written) this.put(op);
    return written;
  }

  /**
   * The operations time alone changed (a wait came due, a retry became ready) since the last
   * call, as they stand now. With what {@link checkpoint} returns, that is every operation this
   * session changed without an outside event, so a caller can answer "what changed" without
   * scanning every operation (the compatibility transport does, at each checkpoint).
   */
  takeSettledByTime(): Operation[] {
    if (this.settledByTime.length === 0) return [];
    const ids = new Set(this.settledByTime);
    this.settledByTime = [];
    const ops: Operation[] = [];
    for (const id of ids) {
      const op = this.ops.get(id);
      if (op) ops.push(op);
    }
    return ops;
  }

  /**
   * Takes in stored operations the session was opened without, read on demand by a caller whose
   * replay load left them out (an operation under a finished context, updated by a branch the
   * context abandoned that is still running). Operations the session already holds are kept.
   */
  adopt(operations: readonly Operation[]): void {
    for (const op of operations) if (!this.ops.has(op.Id)) this.put(op);
  }

  async refresh(): Promise<readonly Operation[]> {
    // Outside writers (callback completions) change operations while we hold the lease.
    for (const op of await loadReplayOperations(this.deps.store, this.run.runId)) {
      if (this.settled.has(op.Id)) continue;
      // An outside event seen now stands where it was seen; the re-placed copy rides with the next write.
      const seen = this.history.seen(op);
      this.put(seen ?? op);
      if (seen) this.settled.add(op.Id);
    }
    this.settleDue();
    return this.operations;
  }

  /**
   * Records how the invocation ended and releases the lease. Every outside call after the
   * releasing write is best effort and left to the reconciler: that write puts the run in the due
   * index at the time it must be looked at again (its next wake-up, at once for an outside event
   * that landed meanwhile, or, for an ended child run, until its parent has been told).
   */
  async close(ended: InvocationOutput): Promise<InvocationOutput> {
    this.assertOpen();
    const now = this.now();
    const { Updates: updates, ...stated } = ended;
    let output: InvocationOutput = stated;
    let pending: Operation[] = [];
    try {
      pending = await this.takeUpdates(updates, now);
    } catch (error) {
      if (!(error instanceof CheckpointRejectedError)) throw error;
      // As the SDK ends a run whose checkpoint was refused (no retry can help): failed, with the
      // refusal as its error, and nothing of the refused updates written.
      output = {
        Status: 'FAILED',
        Error: { ErrorType: 'DurableRuntimeFault', ErrorMessage: error.message, ErrorCode: error.code },
      };
    }
    this.ended = true;
    await this.enforceDeadline(now);
    const settledBefore = this.settled.size;
    this.settleDue();
    // A wait that time ended after the SDK last looked (the invocation outlived it) is progress
    // the SDK never saw: the run must come back at once, or nothing would ever wake it.
    const endedUnseen = this.settled.size > settledBefore;
    if (output.Status === 'PENDING') {
      // Before the lease is released: a child run that cannot be started now makes this run due
      // again soon, so its next invocation starts it (never a run waiting on a child that is not).
      const childrenStarted = await this.ensureChildrenStarted();
      const nextWork = endedUnseen ? now : nextDue(this.dueCandidates());
      // The run comes back at its deadline at the latest, to end there if nothing else woke it.
      const deadline = this.run.deadlineAt;
      const waitDue = deadline === undefined ? nextWork : Math.min(nextWork ?? deadline, deadline);
      const due = childrenStarted
        ? waitDue
        : Math.min(waitDue ?? Number.POSITIVE_INFINITY, now + this.deps.faultRetryMs);
      const released = this.metered(
        { ...this.released(due), ...this.invocationEnded(now) },
        due === undefined ? undefined : { ...this.target(), at: due, reason: 'due' },
      );
      await this.commit(pending, released);
      if (due !== undefined)
        await this.bestEffort(this.deps.waker.wakeAt({ ...this.target(), at: due, reason: 'due' }));
      await this.cancelSafetyWakeUp();
      await this.bestEffort(this.catchLateEvents());
      return { Status: 'PENDING' };
    }
    // Lambda ends the execution once its last invocation completed: that end first, then the execution's.
    const invocationEnd = this.invocationEnded(now);
    const execution = this.ops.get('0');
    const finished: Operation | undefined =
      execution && this.history.place(execution, { ...execution, Status: output.Status, EndTimestamp: now });
    const patch: RunPatch = this.metered({
      ...invocationEnd,
      status: output.Status,
      endedAt: now,
      leaseExpiresAt: null,
      nextWakeAt: null,
      // A child run stays due until its parent has heard that it ended.
      dueAt: this.run.parent ? now : null,
      ...(output.Result === undefined ? {} : { result: output.Result }),
      ...(output.Error === undefined ? {} : { error: output.Error }),
      ...(this.deps.retentionMs === undefined ? {} : { expiresAt: now + this.deps.retentionMs }),
    });
    await this.commit(finished ? [...pending, finished] : pending, patch);
    await this.cancelSafetyWakeUp();
    if (this.run.parent) {
      // Left to the reconciler when it fails: the run stays in the due index until it succeeds.
      await this.bestEffort(
        (async () => {
          const ended = await this.deps.store.getRun(this.run.runId);
          if (ended) await this.deps.hooks.finished(ended);
        })(),
      );
    }
    return output;
  }

  /**
   * The patch that releases the lease with the run due at `due` (or waiting for outside events);
   * `handled` says whether this invocation saw the events the run had when it opened.
   */
  private released(due: number | undefined, handled = true): RunPatch {
    const handledEventSeq = handled ? this.run.eventSeq : this.run.handledEventSeq;
    const after = { ...this.run, leaseExpiresAt: undefined, nextWakeAt: due, handledEventSeq, updatedAt: this.now() };
    return {
      leaseExpiresAt: null,
      nextWakeAt: due ?? null,
      ...(handled ? { handledEventSeq } : {}),
      dueAt: dueAtOf(after) ?? null,
    };
  }

  /** The patch recording this invocation's end in the run's history (nothing for a run that keeps no order). */
  private invocationEnded(now: number): RunPatch {
    const ended = this.history.ended(this.startedAt, now);
    return ended ? { historyInvocations: withInvocation(this.run.historyInvocations, ended) } : {};
  }

  /**
   * `patch` with the invocation's consumption (its meter's answer) to add to the run: called once,
   * for the invocation's last write; `wake` is the wake-up asked for right after it.
   */
  private metered(patch: RunPatch, wake?: WakeRequest): RunPatch {
    const meter = this.meter;
    this.meter = undefined;
    return meter ? { ...patch, meter: meter.settle(wake, { run: this.run, patch }) } : patch;
  }

  /** Awaits an outside call whose failure the due index already covers (left to the reconciler). */
  private async bestEffort(call: Promise<unknown>): Promise<void> {
    await call.catch(() => undefined);
  }

  /** The lease's safety wake-up is moot once the lease is released cleanly. Best effort. */
  private async cancelSafetyWakeUp(): Promise<void> {
    const at = this.run.leaseExpiresAt;
    if (at === undefined || !this.deps.waker.cancel) return;
    await this.bestEffort(this.deps.waker.cancel({ ...this.target(), at, reason: 'lease' }));
  }

  /**
   * A chained invoke whose child run was never invoked (the invoke failed after the START was
   * stored) would leave this run waiting forever: invoke it now. False when one could not be
   * started (the run must then come back soon to try again).
   */
  private async ensureChildrenStarted(): Promise<boolean> {
    let all = true;
    for (const id of [...this.waitingOutside]) {
      const op = this.ops.get(id);
      if (op?.Type !== 'CHAINED_INVOKE' || op.Status !== 'STARTED' || this.invokedChildren.has(op.Id)) continue;
      try {
        const childId = op.ChainedInvokeDetails?.ChildRunId;
        const child = childId === undefined ? undefined : await this.deps.store.getRun(childId);
        // A child that exists is in the due index itself until it runs: the reconciler wakes it.
        if (!child) await this.deps.hooks.startChild(this.run, op);
        else if (child.invocations === 0) await this.bestEffort(this.deps.hooks.startChild(this.run, op));
      } catch {
        all = false;
      }
    }
    return all;
  }

  /**
   * An outside event (a callback completed) may land while this invocation holds the lease; its
   * own wake-up then finds the run busy. Having released the lease, look once more. (The store
   * already made such a run due, so the reconciler covers this too; this only saves it time.)
   */
  private async catchLateEvents(): Promise<void> {
    if (this.waitingOutside.size === 0) return;
    const latest = await this.deps.store.getRun(this.run.runId);
    if (latest?.status === 'RUNNING' && latest.eventSeq > this.run.eventSeq) await this.deps.hooks.wake(latest);
  }

  /** A new chained invoke to a function the invoker cannot reach fails at once. */
  private invokable(op: Operation, now: number): Operation {
    const name = op.ChainedInvokeDetails?.FunctionName ?? '';
    if (this.deps.hooks.canInvoke(name)) return op;
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

  async abort(_error: unknown): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    // Best effort: if the store is what failed, the run stays due at its lease's end (the safety
    // wake-up, else the reconciler); if only the wake-up fails, it is due at `at` (reconciler).
    const at = this.now() + this.deps.faultRetryMs;
    try {
      const released = { ...this.released(at, false), ...this.invocationEnded(this.now()) };
      await this.commit([], this.metered(released, { ...this.target(), at, reason: 'due' }));
    } catch {
      return;
    }
    await this.bestEffort(this.deps.waker.wakeAt({ ...this.target(), at, reason: 'due' }));
    await this.cancelSafetyWakeUp();
  }

  /**
   * Past the run's execution deadline nothing of it may be written: the run is ended TIMED_OUT
   * (which moves its fence) and this invocation is fenced, so it stops quietly.
   */
  private async enforceDeadline(now: number): Promise<void> {
    const deadline = this.run.deadlineAt;
    if (deadline === undefined || deadline > now || !this.deps.hooks.expire) return;
    this.ended = true;
    await this.deps.hooks.expire(this.run);
    throw new FencedError(`run ${this.run.runId} passed its execution deadline`);
  }

  private target(): { runId: string; functionName: string } {
    return { runId: this.run.runId, functionName: this.run.functionName };
  }

  private assertOpen(): void {
    if (this.ended) throw new Error(`invocation of run ${this.run.runId} already ended`);
  }

  private put(op: Operation): void {
    this.ops.set(op.Id, op);
    const waitsOnTime =
      (op.Type === 'WAIT' && op.Status === 'STARTED') || (op.Type === 'STEP' && op.Status === 'PENDING');
    if (waitsOnTime) this.timeBound.add(op.Id);
    else this.timeBound.delete(op.Id);
    const outside = (op.Type === 'CALLBACK' || op.Type === 'CHAINED_INVOKE') && op.Status === 'STARTED';
    if (outside) this.waitingOutside.add(op.Id);
    else this.waitingOutside.delete(op.Id);
    if (waitsOnTime || outside || (op.Type === 'STEP' && op.Status === 'READY')) this.mayBeDue.add(op.Id);
    else this.mayBeDue.delete(op.Id);
  }

  /**
   * What `nextDue` needs to answer as over every operation: the operations that may have a due
   * time, with their ancestors (it leaves out those under a finished context).
   */
  private dueCandidates(): Map<string, Operation> {
    const scope = new Map<string, Operation>();
    for (const id of this.mayBeDue) {
      for (
        let op = this.ops.get(id);
        op && !scope.has(op.Id);
        op = op.ParentId ? this.ops.get(op.ParentId) : undefined
      ) {
        scope.set(op.Id, op);
      }
    }
    return scope;
  }

  /** Applies what time alone changes; only time-bound operations are looked at (hot path). */
  private settleDue(): void {
    if (this.timeBound.size === 0) return;
    const now = this.now();
    for (const id of [...this.timeBound]) {
      const op = this.ops.get(id);
      const settled = op && settleDue(op, now);
      const next = settled && this.history.place(op, settled);
      if (next) {
        this.put(next);
        this.settled.add(id);
        this.settledByTime.push(id);
      }
    }
  }

  private async commit(operations: Operation[], run?: RunPatch): Promise<void> {
    await this.deps.store.commit(this.run.runId, this.run.fence, this.writeOf(operations, run));
    this.settled.clear();
  }

  /** The write of `operations` (and the run's patch) with the operations time changed since the last one. */
  private writeOf(operations: Operation[], patch?: RunPatch): { operations: Operation[]; run?: RunPatch } {
    let all = operations;
    // The count of the run's history events rides with the write that records them.
    const counted = this.history.patch();
    const run = counted.historySeq === undefined ? patch : { ...patch, ...counted };
    // Operations time changed ride along (rare: only a checkpoint after a wait came due has any).
    if (this.settled.size > 0) {
      const ids = new Set(operations.map((op) => op.Id));
      const carried: Operation[] = [];
      for (const id of this.settled) {
        const op = this.ops.get(id);
        if (op && !ids.has(id)) carried.push(op);
      }
      all = [...carried, ...operations];
    }
    return run ? { operations: all, run } : { operations: all };
  }
}
