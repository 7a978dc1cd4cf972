/**
 * Admission of a run under flow control per key (`concurrency: { key, limit }`), decided in the
 * function's own process before its handler runs (see `EngineSession.admit`). A run that holds a
 * slot goes on at no cost. Otherwise, oldest first: a run finding others queued ahead of it queues
 * behind them (waking the head when a slot is free); one at the head, or finding no queue, takes a
 * slot in one conditional write of the key's holders. A full key is checked for leaks first: a
 * holder that ended or is gone (its process died between its end and its release) is evicted and
 * the slot taken again. A run that gets no slot is queued.
 */
import { entryOf, type QueueDeps, queueHead, slotOf, slotStore, unqueue, wakeQueueHead } from './concurrency-queue';
import type { QueuedRunEntry, SlotKey } from './concurrency-slots';
import type { RunPatch, RunRecord } from './ports';

/** What admission decided, and what the run's record must say of it. */
export type Admission =
  | {
      admitted: true;
      /** Absent when the run held its slot already; else the fields recording it. */
      patch?: RunPatch;
      /** The run's queue entry, to take out once the admission is recorded. */
      entry?: QueuedRunEntry;
    }
  | {
      admitted: false;
      /** The fields marking the run QUEUED (the caller adds the lease's release). */
      patch: RunPatch;
    };

/** What the concurrency gate asks: a slot of `key`, of which `limit` are held at once. */
export interface ConcurrencyRequest {
  key: string;
  limit: number;
  /** Higher first among queued runs (default 0). */
  priority?: number;
}

/**
 * Whether `run` (leased by the caller) may run now under `request`, taking its slot if so, or
 * queuing it (its entry written; the caller writes the QUEUED mark with `patch`). `previousLost`:
 * the invocation before died, maybe between taking a slot and recording it, so a run queued now
 * lets go of any slot first (a QUEUED run never holds one).
 */
export async function decideAdmission(
  deps: QueueDeps,
  run: RunRecord,
  request: ConcurrencyRequest,
  previousLost: boolean,
): Promise<Admission> {
  const { key, limit } = request;
  if (run.concurrencyKey === key && run.queuedAt === undefined) return { admitted: true };
  const slot = slotOf(run, key);
  const mine = run.concurrencyKey === key ? entryOf(run) : undefined;
  const head = await queueHead(deps, slot);
  const patch: RunPatch = { concurrencyKey: key, slotHeld: true, queuedAt: null, queuePriority: null };
  const admitted: Admission = mine ? { admitted: true, patch, entry: mine } : { admitted: true, patch };
  if (!head || head.run.runId === run.runId) {
    if (await takeSlot(deps, slot, run.runId, limit)) return admitted;
  } else {
    const holders = await slotStore(deps.store).slotHolders(slot);
    // A slot taken by an earlier invocation whose answer was lost (a lost response, then a fault
    // or a death before recording it): the run holds it, so it runs rather than queue behind the
    // head while holding it, which would keep the key's queue waiting for a slot no one frees.
    if (holders.includes(run.runId)) return admitted;
    if (holders.length < limit || (await evictEnded(deps, slot, holders)) > 0) {
      // A slot is free and the head has not taken it (its wake-up lost or still on its way).
      await unqueue(deps, head.run);
    }
  }
  const priority = request.priority ?? 0;
  return {
    admitted: false,
    patch: await enqueue(deps, slot, run, mine ?? entryFor(deps, run, priority), previousLost),
  };
}

/**
 * A new queue entry: the store orders entries lower first, so a higher `priority` is stored
 * negated (the default, 0, as 0).
 */
function entryFor(deps: QueueDeps, run: RunRecord, priority: number): QueuedRunEntry {
  return { runId: run.runId, priority: priority === 0 ? 0 : -priority, queuedAt: deps.clock.now() };
}

/** Writes the run's queue entry (its old one when it waited before) and returns its QUEUED mark. */
async function enqueue(
  deps: QueueDeps,
  slot: SlotKey,
  run: RunRecord,
  entry: QueuedRunEntry,
  previousLost: boolean,
): Promise<RunPatch> {
  const slots = slotStore(deps.store);
  if (previousLost) await slots.releaseSlot(slot, run.runId);
  await slots.enqueueRun(slot, entry);
  return {
    status: 'QUEUED',
    concurrencyKey: slot.key,
    queuedAt: entry.queuedAt,
    queuePriority: entry.priority,
    slotHeld: null,
  };
}

/**
 * Takes a slot; when the key is full, evicts holders that ended or are gone and tries once more.
 */
export async function takeSlot(deps: QueueDeps, slot: SlotKey, runId: string, limit: number): Promise<boolean> {
  const slots = slotStore(deps.store);
  if (await slots.takeSlot(slot, runId, limit)) return true;
  const holders = await slots.slotHolders(slot);
  if (holders.includes(runId)) return true;
  return (await evictEnded(deps, slot, holders)) > 0 && slots.takeSlot(slot, runId, limit);
}

/**
 * Evicts the holders that ended or are gone (their process died between their end and their
 * release): one read each, at most `limit`. A holder RUNNING or QUEUED keeps its slot. Returns
 * how many were evicted.
 */
async function evictEnded(deps: QueueDeps, slot: SlotKey, holders: readonly string[]): Promise<number> {
  let evicted = 0;
  for (const holder of holders) {
    const held = await deps.store.getRun(holder);
    if (held && (held.status === 'RUNNING' || held.status === 'QUEUED')) continue;
    await slotStore(deps.store).releaseSlot(slot, holder);
    evicted += 1;
  }
  return evicted;
}

/**
 * After an admission is recorded: a run that came from the queue takes its entry out, and when
 * slots are still free (several freed at once, evictions) the next head is woken, so a queue
 * drains as far as its slots allow. Best effort: readers skip stale entries, the reconciler wakes
 * queued runs.
 */
export async function afterAdmission(
  deps: QueueDeps,
  run: RunRecord,
  request: ConcurrencyRequest,
  entry: QueuedRunEntry | undefined,
): Promise<void> {
  if (!entry) return;
  const slot = slotOf(run, request.key);
  const slots = slotStore(deps.store);
  await slots.dequeueRun(slot, entry);
  if ((await slots.slotHolders(slot)).length < request.limit) await wakeQueueHead(deps, slot);
}
