/**
 * The signals one session delivers (`signals.ts`): read from the run's inbox at most once per
 * invocation, and only when a signal wait needs them and the run has had signals; each delivery
 * rides with the session's next write, with the run's moved `signalCursor`, so the wait's end and
 * the consumption are written together or not at all.
 */
import { CheckpointRejectedError, type Operation, type OperationUpdate } from '@durable-lambda/protocol';
import type { RunPatch, RunRecord, Store } from './ports';
import { checkSignalName, isSignalWait, SignalDelivery } from './signals';

export class SessionSignals {
  private readonly delivery: SignalDelivery;
  private loaded = false;

  constructor(
    private readonly run: Pick<RunRecord, 'runId' | 'createdAt' | 'signalSeq' | 'signalCursor'>,
    private readonly store: Pick<Store, 'listSignals'>,
  ) {
    this.delivery = new SignalDelivery(run.signalCursor);
  }

  /**
   * Reads the inbox before `updates` are applied when one of them starts a signal wait; refuses a
   * wait whose name no signal can have (our SDK checks it first; another client may not).
   */
  before(updates: readonly OperationUpdate[]): Promise<void> | undefined {
    // Undefined (nothing to await) unless a wait starts: a checkpoint is the test runner's hot path.
    const starts = updates.filter((u) => u.Action === 'START' && isSignalWait(u));
    if (starts.length === 0) return undefined;
    for (const u of starts) {
      try {
        checkSignalName(u.Name, 'Name');
      } catch (error) {
        throw new CheckpointRejectedError(`update of operation ${u.Id}: ${(error as Error).message}`, u.Id);
      }
    }
    return this.load();
  }

  /** The signal waits among `open` (STARTED, in the session's order) ended by signals in the inbox. */
  async atOpen(open: readonly Operation[], now: number): Promise<Operation[]> {
    const waits = open.filter((op) => op.Status === 'STARTED' && isSignalWait(op));
    if (waits.length === 0) return [];
    await this.load();
    const ended: Operation[] = [];
    for (const op of waits) {
      const next = this.delivery.deliver(op, now);
      if (next) ended.push(next);
    }
    return ended;
  }

  /** `op` as a fresh START leaves it: ended at once when a signal of its name waits. */
  started(op: Operation, isNew: boolean, now: number): Operation {
    if (!isNew || op.Status !== 'STARTED' || !isSignalWait(op)) return op;
    return this.delivery.deliver(op, now) ?? op;
  }

  /** `patch` with the run's cursor when deliveries ride with this write. */
  withCursor(patch: RunPatch | undefined): RunPatch | undefined {
    const signalCursor = this.delivery.patch();
    return signalCursor ? { ...patch, signalCursor } : patch;
  }

  /** The write that carried `patch` succeeded. */
  written(patch: RunPatch | undefined): void {
    this.delivery.written(patch?.signalCursor ?? undefined);
  }

  private async load(): Promise<void> {
    if (this.loaded) return;
    this.loaded = true;
    // A run that never had a signal has none to read: no read at all (the common case).
    if (!this.store.listSignals || !((this.run.signalSeq ?? 0) > 0)) return;
    try {
      this.delivery.load(await this.store.listSignals(this.run.runId, this.run.createdAt));
    } catch (error) {
      this.loaded = false;
      throw error;
    }
  }
}
