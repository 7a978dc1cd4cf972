/**
 * The queue side of flow control per key: finding the first run that really waits (entries left
 * by runs admitted or ended are taken out on the way), taking a QUEUED run out of its wait
 * (RUNNING and due now, then woken), and handing a freed slot over to the head of the queue.
 */
import type { QueuedRunEntry, SlotKey } from './concurrency-slots';
import { type Clock, dueAtOf, type RunRecord, type Store } from './ports';
import { functionBaseName } from './run-query';

/** What the queue's readers and writers need from the engine. */
export interface QueueDeps {
  store: Store;
  clock: Clock;
  /** Wakes a run now (its waker; a lost wake-up is left to the reconciler). */
  wake(run: RunRecord): Promise<void>;
}

/** How many stale entries one look at a queue takes out before it gives up (bounded cost). */
const STALE_SCAN = 10;

/** The store's slot methods, or an error naming what is missing. */
export function slotStore(store: Store): Required<Pick<Store, SlotMethod>> {
  const { takeSlot, releaseSlot, slotHolders, enqueueRun, dequeueRun, listQueuedRuns } = store;
  if (!takeSlot || !releaseSlot || !slotHolders || !enqueueRun || !dequeueRun || !listQueuedRuns) {
    throw new Error('durable-lambda: this store keeps no concurrency slots (concurrency needs takeSlot and the rest)');
  }
  return {
    takeSlot: takeSlot.bind(store),
    releaseSlot: releaseSlot.bind(store),
    slotHolders: slotHolders.bind(store),
    enqueueRun: enqueueRun.bind(store),
    dequeueRun: dequeueRun.bind(store),
    listQueuedRuns: listQueuedRuns.bind(store),
  };
}

type SlotMethod = 'takeSlot' | 'releaseSlot' | 'slotHolders' | 'enqueueRun' | 'dequeueRun' | 'listQueuedRuns';

/** The slot of `run` under `key`: by the function's bare name, so every version shares it. */
export function slotOf(run: Pick<RunRecord, 'functionName'>, key: string): SlotKey {
  return { functionName: functionBaseName(run.functionName), key };
}

/** The queue entry of a run that waits (or was woken from its wait), or undefined. */
export function entryOf(run: RunRecord): QueuedRunEntry | undefined {
  if (run.queuedAt === undefined) return undefined;
  return { runId: run.runId, priority: run.queuePriority ?? 0, queuedAt: run.queuedAt };
}

/**
 * Whether `run` is what `entry` stands for: the run waits for this key's slot with this entry
 * (QUEUED, or RUNNING and woken to try its admission again).
 */
function waitsWith(run: RunRecord | undefined, entry: QueuedRunEntry, slot: SlotKey): run is RunRecord {
  if (!run || (run.status !== 'QUEUED' && run.status !== 'RUNNING')) return false;
  return run.concurrencyKey === slot.key && run.queuedAt === entry.queuedAt;
}

/**
 * The first run of the key's queue that really waits, with its entry; stale entries met before
 * it are taken out (idempotent). Undefined when none is found among the first few.
 */
export async function queueHead(
  deps: QueueDeps,
  slot: SlotKey,
): Promise<{ run: RunRecord; entry: QueuedRunEntry } | undefined> {
  const slots = slotStore(deps.store);
  for (const entry of await slots.listQueuedRuns(slot, STALE_SCAN)) {
    const run = await deps.store.getRun(entry.runId);
    if (waitsWith(run, entry, slot)) return { run, entry };
    await slots.dequeueRun(slot, entry);
  }
  return undefined;
}

/**
 * Takes a QUEUED run out of its wait: RUNNING and due now (one conditional revision; it keeps its
 * key and entry, so its admission knows its place), then woken. A run woken already is woken again
 * (harmless); one that no longer waits is left alone.
 */
export async function unqueue(deps: QueueDeps, run: RunRecord): Promise<void> {
  let target: RunRecord | undefined = run;
  if (run.status === 'QUEUED') {
    const now = deps.clock.now();
    target = await deps.store.reviseRun(run.runId, 'QUEUED', { status: 'RUNNING', nextWakeAt: now, dueAt: now }, []);
  }
  if (target?.status === 'RUNNING') await deps.wake(target).catch(() => undefined);
}

/** Wakes the head of the key's queue (a slot came free). */
export async function wakeQueueHead(deps: QueueDeps, slot: SlotKey): Promise<void> {
  const head = await queueHead(deps, slot);
  if (head) await unqueue(deps, head.run);
}

/**
 * A run ended (any way): its slot is released, the head of its key's queue woken to take it, and
 * its `slotHeld` mark cleared (its end kept it in the due index until now). Idempotent; a run that
 * never had a key is no work. A death before this is healed by the reconciler (the run is due) or
 * at the next admission that finds the key full (holders that ended are evicted), whichever first.
 */
export async function freeSlot(deps: QueueDeps, run: RunRecord): Promise<void> {
  if (run.concurrencyKey !== undefined) {
    const slot = slotOf(run, run.concurrencyKey);
    const slots = slotStore(deps.store);
    await slots.releaseSlot(slot, run.runId);
    const entry = entryOf(run);
    // A run that ended while it waited held no slot: it only leaves the queue.
    if (entry) await slots.dequeueRun(slot, entry);
    else await wakeQueueHead(deps, slot);
  }
  // Released: the ended run leaves the due index, where its end kept it until now (`slotHeld`).
  if (run.slotHeld && run.status !== 'RUNNING' && run.status !== 'QUEUED') {
    const dueAt = dueAtOf({ ...run, slotHeld: false }) ?? null;
    await deps.store.reviseRun(run.runId, run.status, { slotHeld: null, dueAt }, []);
  }
}

/**
 * A run's place in its key's queue (1 for the head), counting entries before it (stale ones too,
 * so it is an upper bound); undefined for a run that does not wait. Reads the queue up to it.
 */
export async function queuePosition(store: Store, run: RunRecord): Promise<number | undefined> {
  const entry = entryOf(run);
  if (run.status !== 'QUEUED' || !entry || run.concurrencyKey === undefined || !store.listQueuedRuns) return undefined;
  const slot = slotOf(run, run.concurrencyKey);
  let position = 0;
  let after: QueuedRunEntry | undefined;
  for (;;) {
    const page = await store.listQueuedRuns(slot, 100, after);
    for (const e of page) {
      position += 1;
      if (e.runId === run.runId) return position;
    }
    if (page.length < 100) return undefined;
    after = page[page.length - 1];
  }
}
