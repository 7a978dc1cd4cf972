/**
 * The part of an `EngineSession` that holds the run while its handler runs: the operations as the
 * invocation sees them, the checkpoints that change them, and how each write is made (fenced, with
 * what time settled, the history counts, the published state, tags, outbox and signal cursor). How
 * the invocation begins (admission) and ends (`close`, `abort`) is in `session.ts`.
 */
import {
  FencedError,
  incarnationId,
  type Operation,
  type OperationUpdate,
  TransactConditionFailedError,
  TransactRejectedError,
} from '@durable-lambda/protocol';
import { HistoryCounter } from './history-order';
import type { OutboxEntry } from './outbox/outbox-port';
import { HeldOutbox } from './outbox/session-outbox';
import type { CommitWrite, RunPatch, RunRecord } from './ports';
import { loadReplayOperations } from './replay-scope';
import { type Carried, CarriedFields } from './session-carried';
import type { SessionDeps } from './session-deps';
import { SessionOperations } from './session-operations';
import { invokableOrFailed } from './session-release';
import { TimeSettlement } from './session-settled';
import { SessionSignals } from './session-signals';
import { transactWritesOf } from './transact-writes';
import { applyUpdate } from './transitions';

/**
 * One invocation's hold on a run while its handler runs: the operations as of its start, kept
 * current as it checkpoints, every write fenced by the lease's token. `EngineSession` extends it
 * with how the invocation begins and ends.
 */
export abstract class CheckpointingSession {
  /** The operations as the invocation sees them, indexed by what may change them. */
  protected readonly ops = new SessionOperations();
  /** Chained invokes whose child this session has invoked. */
  protected readonly invokedChildren = new Set<string>();
  /** What time alone changed (waits came due), written with the next commit. */
  private readonly time: TimeSettlement;
  /** The ids of {@link time} not yet written. */
  protected readonly settled: Set<string>;
  protected ended = false;
  /** Places the events this invocation records in the run's history (`history-order.ts`). */
  protected readonly history: HistoryCounter;
  /** When this invocation began, for its `InvocationCompleted`. */
  protected readonly startedAt: number;
  /** The published state and search tags the run hands over, written with the next write (`session-carried.ts`). */
  private readonly carried: CarriedFields;
  /** Events steps emitted, until known published (`outbox/session-outbox.ts`). */
  protected readonly outbox: HeldOutbox;
  /** The signals this invocation delivers to its waits (`session-signals.ts`). */
  protected readonly signals: SessionSignals;

  constructor(
    protected run: RunRecord,
    operations: readonly Operation[],
    readonly previousInvocationLost: boolean,
    protected readonly deps: SessionDeps,
  ) {
    this.history = new HistoryCounter(run.historySeq);
    this.time = new TimeSettlement(this.ops, this.history);
    this.settled = this.time.unwritten;
    this.startedAt = deps.leasedAt ?? deps.clock.now();
    this.carried = new CarriedFields(run);
    this.outbox = new HeldOutbox(run.outbox, incarnationId(run.runId, run.incarnation), deps.outbox);
    this.signals = new SessionSignals(run, deps.store);
    for (const op of operations) this.ops.put(op);
    this.settleDue();
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
    // Checked before anything: a refused write leaves the session as it was.
    const transactWrites = transactWritesOf(updates);
    const loading = this.signals.before(updates);
    if (loading) await loading;
    const { written, invokes } = this.applyAll(updates, now);
    if (written.length === 0 && this.settled.size === 0) return [];
    const emitted = this.outbox.take(updates, now);
    // The store's commit awaited here, not through `commit`: one promise less on the hot path.
    const [write, sent, outboxSent] = this.writeOf(written);
    try {
      await this.deps.store.commit(
        this.run.runId,
        this.run.fence,
        transactWrites ? { ...write, transactWrites } : write,
      );
    } catch (error) {
      // A refusal of the user's writes wrote nothing; any other failure may have landed.
      this.outbox.undo(emitted, isTransactRefusal(error) ? false : undefined);
      throw error;
    }
    this.written(write, sent, outboxSent);
    for (const op of written) this.ops.put(op);
    // Stored with their step's outcome: published now, their being sent written with the next write.
    if (emitted.length > 0) await this.outbox.publish();
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
  protected applyAll(
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
   * Past the run's execution deadline nothing of it may be written: the run is ended TIMED_OUT
   * (which moves its fence) and this invocation is fenced, so it stops quietly.
   */
  protected async enforceDeadline(now: number): Promise<void> {
    const deadline = this.run.deadlineAt;
    if (deadline === undefined || deadline > now || !this.deps.hooks.expire) return;
    this.ended = true;
    await this.deps.hooks.expire(this.run);
    throw new FencedError(`run ${this.run.runId} passed its execution deadline`);
  }

  protected target(): { runId: string; functionName: string } {
    return { runId: this.run.runId, functionName: this.run.functionName };
  }

  protected assertOpen(): void {
    if (this.ended) throw new Error(`invocation of run ${this.run.runId} already ended`);
  }

  /** Applies what time alone changes; only time-bound operations are looked at (hot path). */
  protected settleDue(): void {
    this.time.settle(this.now());
  }

  protected async commit(operations: Operation[], run?: RunPatch): Promise<void> {
    const [write, sent, outboxSent] = this.writeOf(operations, run);
    await this.deps.store.commit(this.run.runId, this.run.fence, write);
    this.written(write, sent, outboxSent);
  }

  /** What a write that succeeded settles: the fields it carried are stored, time's changes with it. */
  private written(write: CommitWrite, sent: Carried, outboxSent: OutboxEntry[] | undefined): void {
    this.carried.written(sent);
    this.outbox.written(outboxSent);
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
  private writeOf(
    operations: Operation[],
    patch?: RunPatch,
  ): [write: CommitWrite, sent: Carried, outboxSent: OutboxEntry[] | undefined] {
    // The count of the run's history events rides with the write that records them, as do the
    // published state, the tags and the outbox's pending events.
    const counted = this.history.patch();
    const { patch: run, sent: outboxSent } = this.outbox.with(
      this.signals.withCursor(counted.historySeq === undefined ? patch : { ...patch, ...counted }),
    );
    // A release that leaves events unpublished keeps the run due, for the reconciler to publish them.
    if (run && run.leaseExpiresAt === null && this.outbox.hasPending)
      run.dueAt = Math.min(run.dueAt ?? Number.POSITIVE_INFINITY, this.now());
    const [write, sent] = this.carried.write(this.time.withUnwritten(operations), run);
    return [write, sent, outboxSent];
  }
}

/** A refusal of a transactional step's writes: the commit wrote nothing. */
function isTransactRefusal(error: unknown): boolean {
  return error instanceof TransactConditionFailedError || error instanceof TransactRejectedError;
}
