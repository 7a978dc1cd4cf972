/**
 * The shapes of flow control per key (`concurrency: { key, limit }`): a key's slots, held by a
 * set of run ids, and its queue of runs waiting for one, in admission order. Stored through the
 * optional slot methods of the `Store` port; a leaf of the engine's import graph.
 */

/** How long after it is queued a QUEUED run is re-checked by default (`EngineOptions.queueRecheckMs`), ms. */
export const DEFAULT_QUEUE_RECHECK_MS = 15 * 60_000;

/** A concurrency key of a function: the unit slots and queues are kept by. */
export interface SlotKey {
  /** The function's bare name (a run of `orders:7` counts under `orders`). */
  functionName: string;
  /** The key, a function of the run's input (a tenant, a customer, a resource). */
  key: string;
}

/** A run waiting in a key's queue. Entries are admitted in (`priority`, `queuedAt`, `runId`) order. */
export interface QueuedRunEntry {
  runId: string;
  /** Lower first; 0 by default (kept in the order for a later `priority` option). */
  priority: number;
  /** When the run was first queued (epoch ms): oldest first within a priority. */
  queuedAt: number;
}

/** Whether queue entry `a` comes before `b` in admission order. */
export function queuedBefore(a: QueuedRunEntry, b: QueuedRunEntry): boolean {
  if (a.priority !== b.priority) return a.priority < b.priority;
  if (a.queuedAt !== b.queuedAt) return a.queuedAt < b.queuedAt;
  return a.runId < b.runId;
}

/** Sorts queue entries in admission order (a copy). */
export function inQueueOrder(entries: readonly QueuedRunEntry[]): QueuedRunEntry[] {
  return [...entries].sort((a, b) => (queuedBefore(a, b) ? -1 : queuedBefore(b, a) ? 1 : 0));
}
