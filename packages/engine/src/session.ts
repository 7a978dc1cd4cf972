import {
  type AdmissionRequest,
  CheckpointRejectedError,
  type DurableInvocation,
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
import { withInvocation } from './history-order';
import type { RunPatch, RunRecord, WakeRequest } from './ports';
import type { InvocationMeter } from './run-meter';
import { CheckpointingSession } from './session-checkpoints';
import type { SessionDeps } from './session-deps';
import {
  bestEffort,
  endPatch,
  pendingDue,
  releasePatch,
  startMissingChildren,
  tellParent,
  wakeForLateEvents,
} from './session-release';
import { nextDue } from './transitions';

export type { SessionDeps, SessionHooks } from './session-deps';

/**
 * One invocation's hold on a run: the operations as of its start, kept current as it
 * checkpoints (`session-checkpoints.ts`), every write fenced by the lease's token. It implements
 * the protocol the SDK speaks, admits the run (flow control) and ends with `close` (or `abort`).
 */
export class EngineSession extends CheckpointingSession implements DurableInvocation, OpenedInvocation {
  /** The run was queued at admission: the invocation ended there, its handler never ran. */
  private queued = false;
  private meter: InvocationMeter | undefined;

  constructor(run: RunRecord, operations: readonly Operation[], previousInvocationLost: boolean, deps: SessionDeps) {
    super(run, operations, previousInvocationLost, deps);
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
    // A transactional step's writes are committed by a checkpoint of their own, as are invokes.
    if (updates.some((u) => u.Type === 'CHAINED_INVOKE' || u.TransactWrites !== undefined || u.Outbox !== undefined)) {
      await this.checkpoint(updates);
      return [];
    }
    await this.signals.before(updates);
    const { written } = this.applyAll(updates, now);
    for (const op of written) this.ops.put(op);
    return written;
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
    // Events left from before (a publish that failed, an invocation that died): tried again, and
    // what was accepted leaves the run with the write that ends this invocation.
    await this.outbox.publish();
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
}
