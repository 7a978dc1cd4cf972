import type { DurableInvocation } from '@durable-lambda/protocol';
import type { Waiter } from './waiters';

/** Real time an invocation keeps in hand after an in-process sleep. */
export const SLEEP_MARGIN_MS = 2_000;

/**
 * Real time the other code must have run before a skipping clock skips to a wait beside it: code
 * that ends sooner (a quick step, a serdes) leaves the wait to end the invocation, as before.
 */
export const BUSY_GRACE_MS = 500;

/** How often a busy invocation reads the run again for callbacks and invokes ended from outside. */
export const BUSY_POLL_MS = 1_000;

/** What {@link BusyProgress} needs of its invocation. */
export interface BusyHost {
  readonly invocation: DurableInvocation;
  readonly waiters: ReadonlySet<Waiter>;
  /** True while handler code runs (a step body, a serdes): the invocation cannot end now. */
  busy(): boolean;
  hasParked(): boolean;
  unpark(): void;
  setTimer(ms: number, fn: () => void): () => void;
  /** Resolves the waiters now due. */
  releaseDue(): void;
  /** Looks at the invocation again (a turn later). */
  recheck(): void;
  /** Reads the run again and resolves the waiters whose operation ended meanwhile. */
  poll(): void;
}

/**
 * Parts of the handler that wait while its other code still runs (a long step) need not wait for
 * that code to end, nor for a later invocation (AWS's force checkpointing: a branch that blocks
 * does not keep the others from finishing).
 * - A wait or retry backoff due within the invocation's time ends in-process when due: after a
 *   real timer, or where the backend's clock can skip ahead (`skipTo`: the test runner's virtual
 *   clock) at once, once the other code has run {@link BUSY_GRACE_MS}.
 * - A callback or invoke ended from outside is seen by reading the run again every
 *   {@link BUSY_POLL_MS} while that code runs.
 * A START still parked for a suspension is written first (the wait's due time is set by it).
 */
export class BusyProgress {
  private timed = false;
  private polling = false;
  /** The code running now has run past the grace: waits beside it skip at once. */
  private long = false;

  constructor(private readonly host: BusyHost) {}

  /** No handler code runs any more. */
  idle(): void {
    this.long = false;
  }

  /** Handler code runs and parts of the handler wait: arranges their progress. */
  step(): void {
    const host = this.host;
    let earliest: number | undefined;
    let outside = false;
    for (const w of host.waiters) {
      if (w.demand && !w.demand.awaited) continue;
      if (w.dueAt === undefined) outside ||= w.opId !== undefined;
      else if (earliest === undefined || w.dueAt < earliest) earliest = w.dueAt;
    }
    if (outside && !this.polling) {
      this.polling = true;
      host.setTimer(BUSY_POLL_MS, () => {
        this.polling = false;
        if (host.busy()) host.poll();
      });
    }
    if (earliest === undefined || this.timed) return;
    if (host.hasParked()) {
      host.unpark();
      return;
    }
    const invocation = host.invocation;
    const delay = Math.max(0, earliest - invocation.now());
    if (invocation.remainingTimeMs() - delay <= SLEEP_MARGIN_MS) return;
    if (invocation.skipTo && this.long) {
      invocation.skipTo(earliest);
      host.releaseDue();
      return;
    }
    this.timed = true;
    host.setTimer(invocation.skipTo ? BUSY_GRACE_MS : delay, () => {
      this.timed = false;
      if (invocation.skipTo) {
        // The grace passed: if that code still runs, skip to the wait's time.
        this.long = host.busy();
        host.recheck();
      } else host.releaseDue();
    });
  }
}
