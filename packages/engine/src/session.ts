import {
  type AdmissionRequest,
  CheckpointRejectedError,
  type DurableInvocation,
  FencedError,
  type InvocationOutput,
  type OpenedInvocation,
  type Operation,
  type OperationUpdate,
} from '@durable-lambda/protocol';
import { DEFAULT_QUEUE_RECHECK_MS } from './concurrency-slots';
import { afterFlow, decideFlow } from './flow/admission';
import { admittedRecord, fencedAdmission } from './flow/admitted-record';
import { flowAfterEnd } from './flow/run-ended';
import { flowDepsOf, queueDepsOf } from './flow/session-flow-deps';
import { HistoryCounter, withInvocation } from './history-order';
import type { CommitWrite, RunPatch, RunRecord, WakeRequest } from './ports';
import { loadReplayOperations } from './replay-scope';
import type { InvocationMeter } from './run-meter';
import { type Carried, CarriedFields } from './session-carried';
import type { SessionDeps } from './session-deps';
import { SessionOperations } from './session-operations';
import {
  bestEffort,
  endPatch,
  invokableOrFailed,
  pendingDue,
  releasePatch,
  startMissingChildren,
  tellParent,
  wakeForLateEvents,
} from './session-release';
import { TimeSettlement } from './session-settled';
import { SessionSignals } from './session-signals';
import { applyUpdate, nextDue } from './transitions';

export type { SessionDeps, SessionHooks } from './session-deps';

/**
 * One invocation's hold on a run: the operations as of its start, kept current as it
 * checkpoints, every write fenced by the lease's token. It implements the protocol the SDK
 * speaks and ends with `close` (or `abort`).
 */
export class EngineSession implements DurableInvocation, OpenedInvocation {
  /** The operations as the invocation sees them, indexed by what may change them. */
  private readonly ops = new SessionOperations();
  /** Chained invokes whose child this session has invoked. */
  private readonly invokedChildren = new Set<string>();
  /** What time alone changed (waits came due), written with the next commit. */
  private readonly time: TimeSettlement;
  /** The ids of {@link time} not yet written. */
  private readonly settled: Set<string>;
  private ended = false;
  /** The run was queued at admission: the invocation ended there, its handler never ran. */
  private queued = false;
  private meter: InvocationMeter | undefined;
  /** Places the events this invocation records in the run's history (`history-order.ts`). */
  private readonly history: HistoryCounter;
  /** When this invocation began, for its `InvocationCompleted`. */
  private readonly startedAt: number;
  /** The published state and search tags the run hands over, written with the next write (`session-carried.ts`). */
  private readonly carried: CarriedFields;
  /** The signals this invocation delivers to its waits (`session-signals.ts`). */
  private readonly signals: SessionSignals;

  constructor(
    private run: RunRecord,
    operations: readonly Operation[],
    readonly previousInvocationLost: boolean,
    private readonly deps: SessionDeps,
  ) {
    this.history = new HistoryCounter(run.historySeq);
    this.time = new TimeSettlement(this.ops, this.history);
    this.settled = this.time.unwritten;
    this.startedAt = deps.leasedAt ?? deps.clock.now();
    this.carried = new CarriedFields(run);
    this.signals = new SessionSignals(run, deps.store);
    for (const op of operations) this.ops.put(op);
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
    return [...this.ops.byId.values()];
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
    await this.signals.before(updates);
    const { written, invokes } = this.applyAll(updates, now);
    if (written.length === 0 && this.settled.size === 0) return [];
    // The store's commit awaited here, not through `commit`: one promise less on the hot path.
    const [write, sent] = this.writeOf(written);
    await this.deps.store.commit(this.run.runId, this.run.fence, write);
    this.carried.written(sent);
    this.signals.written(write.run);
    this.settled.clear();
    for (const op of written) this.ops.put(op);
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
    const lookup = (id: string) => changed.get(id) ?? this.ops.byId.get(id);
    const parentExists = (id: string) => lookup(id) !== undefined;
    let invokes: Operation[] | undefined;
    for (const update of updates) {
      const before = lookup(update.Id);
      let op = applyUpdate(before, update, now, parentExists, this.deps.limits, this.deps.ids);
      op = this.signals.started(op, before === undefined, now);
      if (op.Type === 'CHAINED_INVOKE' && op.Status === 'STARTED' && !lookup(op.Id)) {
        op = invokableOrFailed(op, now, this.deps.hooks);
        if (op.Status === 'STARTED') {
          invokes ??= [];
          invokes.push(op);
        }
      }
      changed.set(update.Id, this.history.place(before, op));
    }
    return { written: [...changed.values()], invokes };
  }

  /**
   * Flow control (see `flow/admission.ts`): true when the run may run its handler now (every gate
   * passed; the marks recorded). False when this invocation ends here, unrun: the run is QUEUED
   * (for a slot, re-checked by the reconciler; or until its time, its wake-up asked for), or it
   * ended skipped. Its `close` then answers PENDING and writes nothing.
   */
  async admit(request: AdmissionRequest): Promise<boolean> {
    this.assertOpen();
    const deps = flowDepsOf(this.deps);
    const decision = await decideFlow(deps, this.run, request, this.previousInvocationLost);
    if (decision.kind === 'run') {
      const { patch } = decision;
      if (patch) {
        await this.commit([], patch).catch((error: unknown) => fencedAdmission(deps, this.run, patch, error));
        this.run = admittedRecord(this.run, patch);
      }
      await bestEffort(afterFlow(deps, this.run, request, decision.entry));
      return true;
    }
    const now = this.now();
    this.ended = true;
    this.queued = true;
    if (decision.kind === 'skip') {
      await this.deps.hooks.end?.(this.run, { status: 'CANCELLED', error: decision.error }, decision.patch);
      return false;
    }
    // A slot's wait is due at its re-check; a time's at its end.
    const due =
      decision.kind === 'wait' ? decision.until : now + (this.deps.queueRecheckMs ?? DEFAULT_QUEUE_RECHECK_MS);
    const wake = { ...this.target(), at: due, reason: 'due' as const };
    const queued = { ...releasePatch(this.run, now, due), ...this.invocationEnded(now), status: 'QUEUED' as const };
    await this.commit([], this.metered({ ...queued, ...decision.patch }, wake));
    // A slot's wait is ended by a hand-over (its re-check is only the safety net); a time's by its wake-up.
    if (decision.kind === 'wait') await bestEffort(this.deps.waker.wakeAt(wake));
    await this.cancelSafetyWakeUp();
    return false;
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
    await this.signals.before(updates);
    const { written } = this.applyAll(updates, now);
    for (const op of written) this.ops.put(op);
    return written;
  }

  /**
   * The operations time alone changed (a wait came due, a retry became ready) since the last
   * call, as they stand now. With what {@link checkpoint} returns, that is every operation this
   * session changed without an outside event, so a caller can answer "what changed" without
   * scanning every operation (the compatibility transport does, at each checkpoint).
   */
  takeSettledByTime(): Operation[] {
    return this.time.takeChanged();
  }

  /**
   * Takes in stored operations the session was opened without, read on demand by a caller whose
   * replay load left them out (an operation under a finished context, updated by a branch the
   * context abandoned that is still running). Operations the session already holds are kept.
   */
  adopt(operations: readonly Operation[]): void {
    for (const op of operations) if (!this.ops.byId.has(op.Id)) this.ops.put(op);
  }

  async refresh(): Promise<readonly Operation[]> {
    // Outside writers (callback completions) change operations while we hold the lease.
    for (const op of await loadReplayOperations(this.deps.store, this.run.runId)) {
      if (this.settled.has(op.Id)) continue;
      // An outside event seen now stands where it was seen; the re-placed copy rides with the next write.
      const seen = this.history.seen(op);
      this.ops.put(seen ?? op);
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
    if (this.queued) return { Status: 'PENDING' };
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
      const childrenStarted = await startMissingChildren(this.run, this.ops, this.invokedChildren, this.deps);
      const nextWork = endedUnseen ? now : nextDue(this.ops.dueCandidates());
      const due = pendingDue(this.run, nextWork, childrenStarted, now, this.deps.faultRetryMs);
      const released = this.metered(
        { ...releasePatch(this.run, this.now(), due), ...this.invocationEnded(now) },
        due === undefined ? undefined : { ...this.target(), at: due, reason: 'due' },
      );
      await this.commit(pending, released);
      if (due !== undefined) await bestEffort(this.deps.waker.wakeAt({ ...this.target(), at: due, reason: 'due' }));
      await this.cancelSafetyWakeUp();
      await bestEffort(wakeForLateEvents(this.run, this.ops, this.deps));
      return { Status: 'PENDING' };
    }
    // Lambda ends the execution once its last invocation completed: that end first, then the execution's.
    const invocationEnd = this.invocationEnded(now);
    const execution = this.ops.byId.get('0');
    const finished: Operation | undefined =
      execution && this.history.place(execution, { ...execution, Status: output.Status, EndTimestamp: now });
    const patch = this.metered({ ...invocationEnd, ...endPatch(this.run, output, now, this.deps.retentionMs) });
    await this.commit(finished ? [...pending, finished] : pending, patch);
    await this.cancelSafetyWakeUp();
    // Its slot, if it held one, goes to the head of its key's queue; a death before this is
    // healed by the next admission that finds the key full.
    await bestEffort(flowAfterEnd(queueDepsOf(this.deps), { ...this.run, status: output.Status }));
    if (this.run.parent) await bestEffort(tellParent(this.run, this.deps));
    return output;
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

  /** The lease's safety wake-up is moot once the lease is released cleanly. Best effort. */
  private async cancelSafetyWakeUp(): Promise<void> {
    const at = this.run.leaseExpiresAt;
    if (at === undefined || !this.deps.waker.cancel) return;
    await bestEffort(this.deps.waker.cancel({ ...this.target(), at, reason: 'lease' }));
  }

  async abort(_error: unknown): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    // Best effort: if the store is what failed, the run stays due at its lease's end (the safety
    // wake-up, else the reconciler); if only the wake-up fails, it is due at `at` (reconciler).
    const at = this.now() + this.deps.faultRetryMs;
    try {
      const released = { ...releasePatch(this.run, this.now(), at, false), ...this.invocationEnded(this.now()) };
      await this.commit([], this.metered(released, { ...this.target(), at, reason: 'due' }));
    } catch {
      return;
    }
    await bestEffort(this.deps.waker.wakeAt({ ...this.target(), at, reason: 'due' }));
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

  /** Applies what time alone changes; only time-bound operations are looked at (hot path). */
  private settleDue(): void {
    this.time.settle(this.now());
  }

  private async commit(operations: Operation[], run?: RunPatch): Promise<void> {
    const [write, sent] = this.writeOf(operations, run);
    await this.deps.store.commit(this.run.runId, this.run.fence, write);
    this.carried.written(sent);
    this.signals.written(write.run);
    this.settled.clear();
  }

  /** Holds search tags, written with the next write (`session-tags.ts`); dropped once the invocation ended. */
  tag(tags: Readonly<Record<string, string>>): void {
    if (this.ended) return;
    this.carried.tag(tags);
  }

  /**
   * Ends the signal waits that signals sent meanwhile can end, before the handler replays (one
   * read of the inbox, only when a wait is open and the run has had signals). Like what time
   * ends, they ride with the next write, with the run's signal cursor.
   */
  async deliverSignals(): Promise<void> {
    const open = [...this.ops.waitingOutside].map((id) => this.ops.byId.get(id)).filter((op) => op !== undefined);
    for (const next of await this.signals.atOpen(open, this.now())) {
      this.ops.put(this.history.place(this.ops.byId.get(next.Id), next));
      this.settled.add(next.Id);
    }
  }

  /**
   * Holds the run's published state, written with the next write (`session-published.ts`). Once
   * the invocation has ended (a deadline passed, the lease lost) nothing more is written: dropped.
   */
  publish(state: string): void {
    if (this.ended) return;
    this.carried.publish(state, this.now());
  }

  /**
   * The write of `operations` (and the run's patch) with the operations time changed since the
   * last one, and the published state it carries (to confirm once it succeeded).
   */
  private writeOf(operations: Operation[], patch?: RunPatch): [write: CommitWrite, sent: Carried] {
    // The count of the run's history events rides with the write that records them, as do the published state and tags.
    const counted = this.history.patch();
    return this.carried.write(
      this.time.withUnwritten(operations),
      this.signals.withCursor(counted.historySeq === undefined ? patch : { ...patch, ...counted }),
    );
  }
}
