import { clearTimeout, setImmediate, setTimeout } from 'node:timers';
import {
  CheckpointRejectedError,
  type DurableInvocation,
  FencedError,
  type InvocationOutput,
  isTerminal,
  type Operation,
  type OperationType,
  type OperationUpdate,
} from '@durable-lambda/protocol';
import { toErrorObject } from '../errors/error-object';
import { DurableRuntimeFault, nonDeterministicFault } from '../errors/runtime-errors';
import { createLogger } from '../logger';
import { NO_PLUGINS, type PluginRunner } from '../plugins/runner';
import type { DurableLogger } from '../types/logger';
import { BusyProgress } from './busy-progress';
import { Checkpointer } from './checkpointer';
import { executionArnOf } from './execution-arn';
import { never, replayableIds, withUpdates } from './invocation-parts';
import type { InvocationResult, RuntimeSettings } from './invocation-result';
import { awaitsOutside, decideWaits, type WaitDecision } from './suspend-decision';
import { verboseLog } from './verbose';
import type { Demand, Waiter } from './waiters';

export type { InvocationResult, RuntimeSettings } from './invocation-result';
export type { Demand } from './waiters';

/**
 * One invocation of a handler: the run's operations, the checkpoint queue, and the decision to
 * suspend. It ends with exactly one {@link InvocationResult}, whatever the handler does.
 */
export class InvocationRuntime {
  private readonly ops = new Map<string, Operation>();
  private readonly checkpointer: Checkpointer;
  private readonly waiters = new Set<Waiter>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  /** Recorded operations this invocation will walk again before it reaches new work. */
  private readonly toReplay: Set<string>;
  private active = 0;
  private checkScheduled = false;
  /** Waits beside running handler code (a long step) progress in-process. */
  private readonly busy: BusyProgress;
  private settled = false;
  private completing = false;
  /** Set by {@link failAfterQueued}: the invocation is ending, nothing new may be written. */
  private closing = false;
  private resolveResult!: (result: InvocationResult) => void;
  /** Settles once with how the invocation ended. */
  readonly result: Promise<InvocationResult>;
  /** True while the handler re-walks operations completed by earlier invocations. */
  replaying: boolean;
  /**
   * Write every step START before running it: the default, and always once an invocation of the
   * run was lost (with the opt-in lazy starts, a crash may recur in a step too short to reach its
   * lazy START; eager starts make every later crash visible, so it spends retry budget).
   */
  readonly eagerStarts: boolean;
  /** The run's own logger (not mode-aware: contexts wrap it), with the plugins' log fields. */
  readonly logger: DurableLogger;

  constructor(
    readonly invocation: DurableInvocation,
    readonly settings: RuntimeSettings,
    /** The function's instrumentation plugins. */
    readonly plugin: PluginRunner = NO_PLUGINS,
    /** The Lambda request id of this invocation, for the log lines. */
    requestId?: string,
  ) {
    const operations = invocation.operations;
    for (const op of operations) this.ops.set(op.Id, op);
    this.toReplay = replayableIds(operations);
    this.replaying = this.toReplay.size > 0;
    this.eagerStarts = settings.lazyStartMs === undefined || invocation.lostInvocations > 0;
    this.result = new Promise((resolve) => {
      this.resolveResult = resolve;
    });
    this.busy = new BusyProgress({
      invocation,
      waiters: this.waiters,
      busy: () => this.active > 0 && !this.settled,
      hasParked: () => this.checkpointer.hasParked,
      unpark: () => this.checkpointer.unpark(),
      setTimer: (ms, fn) => this.setTimer(ms, fn),
      releaseDue: () => this.releaseDue(),
      recheck: () => this.scheduleCheck(),
      poll: () => void this.checkpointer.refresh().then(() => this.releaseDue()),
    });
    this.checkpointer = new Checkpointer(
      invocation,
      (ops) => this.apply(ops),
      (error) => this.fault(error),
      () => this.scheduleCheck(),
      () => this.settled,
      // Plugins are told the operations as the invocation leaves them (`onInvocationEnd`), so
      // with plugins every update is written, and seen, before the end: none rides with it.
      () => !plugin.active && this.decide(true) === 'suspend' && !awaitsOutside(this.ops),
    );
    this.logger = createLogger(
      settings.logSink,
      {
        runId: invocation.runId,
        executionArn: executionArnOf(invocation),
        ...(requestId === undefined ? {} : { requestId }),
      },
      () => true,
      () => plugin.enrichLogContext(),
    );
  }

  /** True once the invocation has ended; nothing may be written after. */
  get closed(): boolean {
    return this.settled;
  }

  /** The stored operation with this id, if any. */
  get(id: string): Operation | undefined {
    return this.ops.get(id);
  }

  /** Every operation of the run as this invocation knows it now. */
  operations(): Iterable<Operation> {
    return this.ops.values();
  }

  /**
   * Looks up the record at `id` for an operation of `type` and `name` about to run. A record of
   * another type or name means the code changed between invocations: the run fails with
   * `non_deterministic`. Returns undefined when the operation is new.
   */
  find(id: string, type: OperationType, name: string | undefined, subType?: string): Operation | undefined {
    const op = this.ops.get(id);
    // A SubType is compared only when both sides have one: records of earlier versions (and
    // callers that do not name theirs) replay as before.
    const otherSubType = subType !== undefined && op?.SubType !== undefined && op.SubType !== subType;
    if (op && (op.Type !== type || op.Name !== name || otherSubType)) {
      // AWS's order: the type first, then the name, then the SubType.
      const fault =
        op.Type !== type
          ? nonDeterministicFault(id, 'type', op.Type, type)
          : op.Name !== name
            ? nonDeterministicFault(id, 'name', op.Name, name)
            : nonDeterministicFault(id, 'subtype', op.SubType, subType);
      throw this.fail(fault);
    }
    this.toReplay.delete(id);
    // A context still running is re-entered, not new work: its children replay inside it.
    const newWork = !op || (!isTerminal(op.Status) && op.Type !== 'CONTEXT');
    if (newWork || this.toReplay.size === 0) this.replaying = false;
    return op;
  }

  /** Checkpoints one update and resolves with the stored operation once durable. */
  checkpoint(update: OperationUpdate): Promise<Operation> {
    return this.pushChecked(update, false);
  }

  /**
   * Checkpoints the START of a wait that cannot end in this invocation: it may ride with the
   * suspension's write. Resolves with the stored record if it is written before that; never if
   * the invocation suspends first (the wait does not end in this invocation either way).
   */
  checkpointDeferrable(update: OperationUpdate): Promise<Operation> {
    return this.pushChecked(update, true);
  }

  private pushChecked(update: OperationUpdate, deferrable: boolean): Promise<Operation> {
    if (this.settled || this.closing) return never();
    verboseLog('checkpoint', () => update);
    // A `then`, not an async function: the same turn as an `await`, one promise less (hot path).
    return this.checkpointer.push(update, deferrable).then((op) => {
      if (this.settled) return never<Operation>();
      if (!op)
        return never<Operation>(
          this.fault(new CheckpointRejectedError(`engine returned no record for ${update.Id}`, update.Id)),
        );
      return op;
    });
  }

  /**
   * Checkpoints a transactional step's outcome with its writes: resolves with the stored record;
   * rejects with the refusal of its writes (the protocol's `TransactConditionFailedError` or
   * `TransactRejectedError`), after which the step's attempt fails with it.
   */
  checkpointTransact(update: OperationUpdate): Promise<Operation> {
    if (this.settled || this.closing) return never();
    verboseLog('checkpoint', () => update);
    return this.checkpointer.pushTransact(update).then((op) => {
      if (this.settled) return never<Operation>();
      if (!op)
        return never<Operation>(
          this.fault(new CheckpointRejectedError(`engine returned no record for ${update.Id}`, update.Id)),
        );
      return op;
    });
  }

  /**
   * Queues an update without waiting for it (a step's outcome written behind, a lazy START, a
   * context's START): nothing waits on it, so if the invocation suspends before it is sent, it
   * rides with the suspension's write.
   */
  enqueue(update: OperationUpdate): void {
    if (!this.settled && !this.closing) void this.checkpointer.push(update, true);
  }

  /** Runs `work` as user code in progress: the invocation does not suspend while it runs. */
  track<T>(work: () => Promise<T>): Promise<T> {
    this.active++;
    let running: Promise<T>;
    try {
      running = Promise.resolve(work());
    } catch (error) {
      this.untrack();
      return Promise.reject(error);
    }
    // A `then`, not `try { return await work() } finally`: the same turn, one promise less (hot path).
    return running.then(
      (value) => {
        this.untrack();
        return value;
      },
      (error: unknown) => {
        this.untrack();
        throw error;
      },
    );
  }

  private untrack(): void {
    if (--this.active === 0) this.busy.idle();
    this.scheduleCheck();
  }

  /** Starts a real timer that is cleared when the invocation ends. */
  setTimer(ms: number, fn: () => void): () => void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.settled) fn();
    }, ms);
    this.timers.add(timer);
    return () => {
      clearTimeout(timer);
      this.timers.delete(timer);
    };
  }

  /**
   * Resolves once `dueAt` (backend clock) has passed within this invocation; when the wait is too
   * long to sleep through, the invocation ends PENDING instead and this never resolves: the next
   * invocation replays to this point. `undefined` waits for an outside event.
   */
  blockUntil(dueAt: number | undefined, demand?: Demand, opId?: string): Promise<void> {
    if (this.settled) return never();
    return new Promise((resolve) => {
      this.waiters.add({ dueAt, resolve, demand, opId });
      this.scheduleCheck();
    });
  }

  /** The promise of `demand`'s operation is awaited: its waits count from now on. */
  demand(demand: Demand): void {
    if (demand.awaited) return;
    demand.awaited = true;
    this.scheduleCheck();
  }

  /** The handler has settled: from now on the invocation ends with its outcome, never PENDING. */
  markCompleting(): void {
    this.completing = true;
  }

  /** Ends the invocation with an output (handler finished or failed). */
  async complete(output: InvocationOutput): Promise<void> {
    this.completing = true;
    // What is queued and not yet sent is written with the end: one write, not two.
    const updates = await this.takeForEnd();
    this.settle({ type: 'completed', output: withUpdates(output, updates) });
  }

  /**
   * Ends the invocation failed by handler code's misuse of the SDK (a parent context used inside a
   * child), once the updates queued before it are durable, as AWS's SDK waits for its checkpoint
   * queue before answering FAILED: the operations started so far show, and nothing new is written.
   */
  failAfterQueued(fault: DurableRuntimeFault): DurableRuntimeFault {
    if (this.settled || this.closing) return fault;
    this.closing = true;
    this.completing = true;
    void this.takeForEnd().then((updates) => this.fail(fault, updates));
    return fault;
  }

  /**
   * The updates not yet written, which the end carries. With plugins, none: they are written first,
   * so the operations the plugins are told at the end are the stored ones.
   */
  private async takeForEnd(): Promise<OperationUpdate[]> {
    if (this.plugin.active) await this.checkpointer.drain();
    return this.checkpointer.takeForEnd();
  }

  /** Ends the invocation because of a fault of the runtime; returns the fault for `throw`. */
  fail(fault: DurableRuntimeFault, updates: readonly OperationUpdate[] = []): DurableRuntimeFault {
    const output: InvocationOutput = { Status: 'FAILED', Error: toErrorObject(fault, fault.code) };
    this.settle({ type: 'completed', output: withUpdates(output, updates) });
    return fault;
  }

  /** Ends the invocation after a failed checkpoint. */
  fault(error: unknown): DurableRuntimeFault {
    if (error instanceof FencedError) {
      this.settle({ type: 'fenced' });
    } else if (error instanceof CheckpointRejectedError) {
      // The SDK and the engine disagree on the run's state: retrying cannot help.
      return this.fail(new DurableRuntimeFault(error.code, error.message));
    } else {
      this.settle({ type: 'fault', error });
    }
    return new DurableRuntimeFault('invocation_faulted', error instanceof Error ? error.message : String(error));
  }

  private settle(result: InvocationResult): void {
    if (this.settled) return;
    this.settled = true;
    verboseLog('invocation ended', () => ({ runId: this.invocation.runId, result: result.type }));
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.waiters.clear();
    this.resolveResult(result);
  }

  private apply(ops: readonly Operation[]): void {
    for (const op of ops) this.ops.set(op.Id, op);
  }

  private scheduleCheck(): void {
    if (this.checkScheduled || this.settled) return;
    this.checkScheduled = true;
    // After the current turn, so code resumed by the last event can start its next operations.
    setImmediate(() => {
      this.checkScheduled = false;
      this.checkQuiescent();
    });
  }

  /**
   * What the invocation would do now: nothing (code runs, a checkpoint is on its way, or nothing
   * waits), sleep in-process until `earliest` (due soon), or suspend. `queueHeld`: asked by the
   * checkpointer about the batch it is about to send, as if that batch were held back.
   */
  private decide(queueHeld = false): WaitDecision {
    const checkpointing = !queueHeld && this.checkpointer.busy;
    if (this.settled || this.completing || this.active > 0 || checkpointing || this.waiters.size === 0) {
      return 'none';
    }
    return decideWaits(this.waiters, this.invocation, this.settings.inProcessWaitMs);
  }

  /** Nothing runs and something waits: sleep in-process if it is due soon, else suspend. */
  private checkQuiescent(): void {
    const decision = this.decide();
    if (decision === 'none') {
      if (this.active > 0 && this.waiters.size > 0) this.busy.step();
      return;
    }
    if (decision !== 'suspend') {
      // Held back for a suspension that is not coming: written first, then looked at again.
      if (this.checkpointer.hasParked) {
        this.checkpointer.unpark();
        return;
      }
      this.active++;
      this.setTimer(decision.sleepMs, () => {
        this.active--;
        this.releaseDue();
      });
      return;
    }
    verboseLog('suspending', () => ({ runId: this.invocation.runId, waiting: this.waiters.size }));
    const output = withUpdates({ Status: 'PENDING' }, this.checkpointer.takeParked());
    this.settle({ type: 'completed', output });
  }

  /** Resolves the waiters due now, and those whose operation ended from outside (seen by a poll). */
  private releaseDue(): void {
    const now = this.invocation.now();
    for (const w of [...this.waiters]) {
      const ended = w.opId !== undefined && this.ops.get(w.opId)?.Status !== 'STARTED';
      if ((w.dueAt !== undefined && w.dueAt <= now) || ended) {
        this.waiters.delete(w);
        w.resolve();
      }
    }
    this.scheduleCheck();
  }
}
