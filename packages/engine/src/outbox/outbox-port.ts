/**
 * The outbox's port: where the events steps emit (`context.emit`) are published once their step's
 * checkpoint is stored. Implementations: {@link MemoryOutbox} (in-process: the test runner, the dev
 * server, the chaos suite), the AWS adapter's EventBridge and SQS publisher.
 */
import type { StoredOutboxEvent } from '@durable-lambda/protocol';

/** An emitted event as the run keeps it until it is published. */
export interface OutboxEntry {
  /** Stable: `<run>:<step id>:<index>` (the run part with its incarnation). The same on every retry. */
  id: string;
  event: StoredOutboxEvent;
  /** When its step's checkpoint recorded it (epoch ms). */
  at: number;
}

/** Publishes outbox entries. */
export interface OutboxPublisher {
  /**
   * Publishes `entries` (at-least-once: an entry may be sent again when its answer was lost);
   * returns the ids it knows were accepted. Entries not returned stay pending and are tried again
   * (by the invocation's next write, its successor, or the reconciler). Should not throw; a throw
   * counts as none accepted.
   */
  publish(entries: readonly OutboxEntry[]): Promise<string[]>;
}

/** One delivery a {@link MemoryOutbox} received. */
export interface OutboxDelivery extends OutboxEntry {
  /** When it was delivered (the sink's clock). */
  deliveredAt: number;
}

/**
 * An in-process {@link OutboxPublisher}: keeps every delivery, in order, duplicates included
 * (count them with {@link MemoryOutbox.duplicates}), for tests, the dev server and its dashboard.
 * `fail` decides per entry what goes wrong, the documented ways: `'refused'` (not delivered,
 * answered as a failure: a throttle) or `'lostResponse'` (delivered, answered as a failure).
 */
export class MemoryOutbox implements OutboxPublisher {
  readonly deliveries: OutboxDelivery[] = [];
  /** Deliveries whose answer was lost (delivered, reported as failed). */
  lostResponses = 0;

  constructor(
    private readonly clock: { now(): number } = { now: () => Date.now() },
    private readonly fail?: (entry: OutboxEntry) => 'refused' | 'lostResponse' | undefined,
    private readonly listener?: (delivery: OutboxDelivery) => void,
  ) {}

  async publish(entries: readonly OutboxEntry[]): Promise<string[]> {
    const sent: string[] = [];
    for (const entry of entries) {
      const fault = this.fail?.(entry);
      if (fault === 'refused') continue;
      const delivery = { ...structuredClone(entry), deliveredAt: this.clock.now() };
      this.deliveries.push(delivery);
      this.listener?.(delivery);
      if (fault === 'lostResponse') {
        this.lostResponses += 1;
        continue;
      }
      sent.push(entry.id);
    }
    return sent;
  }

  /** Ids delivered more than once, with how many times. */
  duplicates(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const d of this.deliveries) counts.set(d.id, (counts.get(d.id) ?? 0) + 1);
    return new Map([...counts].filter(([, n]) => n > 1));
  }
}
