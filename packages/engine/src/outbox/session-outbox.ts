/**
 * The events a run has recorded but not yet seen published, as one invocation holds them: new
 * ones are added to the run's `outbox` field in the same write as their step's outcome; after
 * that write, the session publishes them, and the ones accepted leave the field with the next
 * write (a checkpoint, or the invocation's end: no write of their own). What is left when the
 * invocation ends keeps the run in the due index (`dueAtOf`), where the reconciler finds it.
 */
import { CheckpointRejectedError, checkStoredOutboxEvent, type OperationUpdate } from '@durable-lambda/protocol';
import type { RunPatch } from '../run-record';
import type { OutboxEntry, OutboxPublisher } from './outbox-port';

export class HeldOutbox {
  /** Pending entries, as the run's field should hold them. */
  private pending: OutboxEntry[];
  /** The field differs from what is stored: the next write carries it. */
  private dirty = false;
  /**
   * A write that carried new entries failed without saying whether it landed (a lost response):
   * this invocation no longer knows the stored field and never writes it again (it is ending).
   */
  private frozen = false;

  constructor(
    stored: readonly OutboxEntry[] | undefined,
    private readonly runKey: string,
    private readonly publisher: OutboxPublisher | undefined,
  ) {
    this.pending = [...(stored ?? [])];
  }

  /**
   * The entries `updates` emit (each STEP SUCCEED's `Outbox`), added to the pending list for the
   * write that carries their steps' outcomes; returns them (for {@link undo} if that write fails).
   */
  take(updates: readonly OperationUpdate[], now: number): OutboxEntry[] {
    const added: OutboxEntry[] = [];
    for (const update of updates) {
      if (!update.Outbox || update.Outbox.length === 0) continue;
      if (update.Type !== 'STEP' || update.Action !== 'SUCCEED') {
        throw new CheckpointRejectedError(`operation ${update.Id}: only a STEP's SUCCEED may carry Outbox`, update.Id);
      }
      if (!this.publisher) {
        throw new CheckpointRejectedError(
          `operation ${update.Id}: this backend has no outbox publisher for emitted events`,
          update.Id,
        );
      }
      update.Outbox.forEach((event, index) => {
        const checked = checkStoredOutboxEvent(event, `outbox[${index}]`, update.Id);
        const id = `${this.runKey}:${update.Id}:${index}`;
        if (!this.pending.some((e) => e.id === id)) {
          const entry = { id, event: checked, at: now };
          this.pending.push(entry);
          added.push(entry);
        }
      });
    }
    if (added.length > 0) this.dirty = true;
    return added;
  }

  /**
   * The write that carried `added` failed: they leave the list (their steps' outcomes are not
   * known stored). `landed` false: nothing was written (a refusal); undefined: unknown (a lost
   * response), and the field is never written again by this invocation.
   */
  undo(added: readonly OutboxEntry[], landed: false | undefined): void {
    if (added.length === 0) return;
    const gone = new Set(added);
    this.pending = this.pending.filter((e) => !gone.has(e));
    if (landed === undefined) this.frozen = true;
  }

  /** `patch` with the field when it changed since the last write; a token for {@link written}. */
  with(patch: RunPatch | undefined): { patch: RunPatch | undefined; sent?: OutboxEntry[] } {
    if (!this.dirty || this.frozen) return { patch };
    const sent = [...this.pending];
    return { patch: { ...patch, outbox: sent.length > 0 ? sent : null }, sent };
  }

  /** The write carrying `sent` succeeded. */
  written(sent: OutboxEntry[] | undefined): void {
    if (sent === undefined) return;
    const same = sent.length === this.pending.length && sent.every((e, i) => e === this.pending[i]);
    if (same) this.dirty = false;
  }

  /** Whether entries wait to be published. */
  get hasPending(): boolean {
    return this.pending.length > 0;
  }

  /**
   * Publishes the pending entries (they are stored: call after the write that recorded them);
   * the accepted ones leave the list, written with the next write. Never throws.
   */
  async publish(): Promise<void> {
    if (!this.publisher || this.pending.length === 0 || this.frozen) return;
    const batch = [...this.pending];
    let accepted: string[];
    try {
      accepted = await this.publisher.publish(batch);
    } catch {
      return;
    }
    if (accepted.length === 0) return;
    const done = new Set(accepted);
    this.pending = this.pending.filter((e) => !done.has(e.id));
    this.dirty = true;
  }
}
