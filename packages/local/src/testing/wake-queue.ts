/** Why an event reaches a run's function. */
export type DeliveryReason = 'due' | 'lease' | 'event' | 'reconcile' | 'invoke';

/** An event waiting in virtual time to invoke a run's function. */
export interface Delivery {
  runId: string;
  /** Virtual time it fires at, epoch ms. */
  at: number;
  reason: DeliveryReason;
  /** Lambda's automatic retries of a failed asynchronous invocation made so far (0-2). */
  retries: number;
  /** Order of arrival: ties on `at` fire first come, first served. */
  seq: number;
}

/**
 * The events that will invoke functions, in virtual time: wake-ups asked of the waker and
 * asynchronous invokes. The driver fires them in order; nothing else invokes a run.
 */
export class WakeQueue {
  private entries: Delivery[] = [];
  private seq = 0;

  /** Adds an event. */
  push(entry: Omit<Delivery, 'seq' | 'retries'> & { retries?: number }): void {
    this.entries.push({ retries: 0, ...entry, seq: this.seq++ });
  }

  /** Withdraws pending wake-ups matching a cancelled request (as Scheduler deletes a schedule). */
  cancel(runId: string, at: number, reason: DeliveryReason): void {
    this.entries = this.entries.filter((e) => !(e.runId === runId && e.at === at && e.reason === reason));
  }

  /** Removes and returns the earliest event due at `now`, if any. */
  popDue(now: number): Delivery | undefined {
    const next = this.earliest();
    if (!next || next.at > now) return undefined;
    this.entries.splice(this.entries.indexOf(next), 1);
    return next;
  }

  /** The earliest event, left in place. */
  earliest(): Delivery | undefined {
    let best: Delivery | undefined;
    for (const e of this.entries) if (!best || e.at < best.at || (e.at === best.at && e.seq < best.seq)) best = e;
    return best;
  }

  /** True when an event is due at `now`. */
  hasDue(now: number): boolean {
    return this.entries.some((e) => e.at <= now);
  }

  get size(): number {
    return this.entries.length;
  }
}
