/**
 * The slots and queues of concurrency keys held in memory (the {@link MemoryStore}'s slot
 * methods): per key, the set of holders and the queue entries by run id.
 */
import { inQueueOrder, type QueuedRunEntry, queuedBefore, type SlotKey } from './concurrency-slots';

/** The memory store's slot methods, over maps keyed by function and key. */
export class MemorySlots {
  private readonly holders = new Map<string, Set<string>>();
  private readonly queues = new Map<string, Map<string, QueuedRunEntry>>();

  /** See `Store.takeSlot`. */
  take(slot: SlotKey, runId: string, limit: number): boolean {
    const holders = this.holders.get(slotId(slot)) ?? new Set<string>();
    if (holders.has(runId)) return true;
    if (holders.size >= limit) return false;
    holders.add(runId);
    this.holders.set(slotId(slot), holders);
    return true;
  }

  /** See `Store.releaseSlot`. */
  release(slot: SlotKey, runId: string): void {
    this.holders.get(slotId(slot))?.delete(runId);
  }

  /** See `Store.slotHolders`. */
  holdersOf(slot: SlotKey): string[] {
    return [...(this.holders.get(slotId(slot)) ?? [])];
  }

  /** See `Store.enqueueRun`. */
  enqueue(slot: SlotKey, entry: QueuedRunEntry): void {
    const queue = this.queues.get(slotId(slot)) ?? new Map<string, QueuedRunEntry>();
    queue.set(entryId(entry), { ...entry });
    this.queues.set(slotId(slot), queue);
  }

  /** See `Store.dequeueRun`. */
  dequeue(slot: SlotKey, entry: QueuedRunEntry): void {
    this.queues.get(slotId(slot))?.delete(entryId(entry));
  }

  /** See `Store.listQueuedRuns`. */
  list(slot: SlotKey, limit: number, after?: QueuedRunEntry): QueuedRunEntry[] {
    const entries = inQueueOrder([...(this.queues.get(slotId(slot))?.values() ?? [])]);
    const from = after ? entries.filter((e) => queuedBefore(after, e)) : entries;
    return from.slice(0, limit).map((e) => ({ ...e }));
  }
}

function slotId(slot: SlotKey): string {
  return JSON.stringify([slot.functionName, slot.key]);
}

/** An entry is one run's place in one key's queue: the same run queued again at another time is another entry. */
function entryId(entry: QueuedRunEntry): string {
  return `${entry.priority}/${entry.queuedAt}/${entry.runId}`;
}
