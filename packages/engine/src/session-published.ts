/**
 * A run's published state as one invocation holds it (`ctx.publish`): the latest state the SDK
 * handed over, written with the session's next write (a checkpoint, or the write that ends the
 * invocation), so publishing costs no write request of its own.
 *
 * Held until a write that carried it succeeded: a write that failed (a throttle, a lost response
 * the SDK retries) leaves it held for the next one. A state published again before the write
 * answered replaces it and is written next, so what is stored is always the latest published.
 * The SDK hands over only publishes made past the point the run had reached (never while it
 * replays), so the state stored never moves back to an older one; a state held when the
 * invocation dies before any write is lost with it, and published again by the replay that
 * reaches its point live.
 */
import { CheckpointRejectedError, MAX_PUBLISHED_STATE_BYTES } from '@durable-lambda/protocol';
import type { PublishedState, RunPatch } from './run-record';

export class HeldPublication {
  private held: { state: string; at: number } | undefined;
  /** The `seq` of the state last stored. */
  private seq: number;

  constructor(stored: PublishedState | undefined) {
    this.seq = stored?.seq ?? 0;
  }

  /** Holds `state`, published at `at`, in place of any held before. */
  hold(state: string, at: number): void {
    // The SDK refuses these first, with the field named; a backend never stores one.
    if (typeof state !== 'string' || Buffer.byteLength(state, 'utf8') > MAX_PUBLISHED_STATE_BYTES) {
      throw new CheckpointRejectedError(
        `published state must be a string of at most ${MAX_PUBLISHED_STATE_BYTES} bytes`,
        'published',
      );
    }
    this.held = { state, at };
  }

  /**
   * The patch that writes the held state (with `patch`'s own fields), and a token to hand to
   * {@link written} once that write succeeded. `patch` unchanged when nothing is held.
   */
  with(patch: RunPatch | undefined): { patch: RunPatch | undefined; sent?: object } {
    const held = this.held;
    if (!held) return { patch };
    return { patch: { ...patch, published: { ...held, seq: this.seq + 1 } }, sent: held };
  }

  /** The write that carried `sent` succeeded: it is stored; nothing is held unless published since. */
  written(sent: object | undefined): void {
    if (sent === undefined) return;
    this.seq += 1;
    if (this.held === sent) this.held = undefined;
  }
}
