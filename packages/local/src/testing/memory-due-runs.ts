/**
 * Which run the test driver invokes next on the in-memory store without faults, where it looks
 * for due runs itself (with faults or another store, the queued loop is driven by events alone).
 */
import type { MemoryStore, RunRecord } from '@durable-lambda/engine';
import type { VirtualClock } from '../virtual-clock';
import { type CallbackHolds, nextWake } from './next-wake';

/**
 * The first of the `known` runs with work due at `now` (not leased, and a wake-up due or an outside
 * event unhandled); `fresh` is one just read (a copy saved: the driver's loop is hot).
 */
export function dueRun(
  store: MemoryStore,
  known: Iterable<string>,
  now: number,
  fresh?: RunRecord,
): RunRecord | undefined {
  for (const runId of known) {
    const run = fresh?.runId === runId ? fresh : store.peekRun(runId);
    if (run?.status !== 'RUNNING' || (run.leaseExpiresAt !== undefined && run.leaseExpiresAt > now)) continue;
    if ((run.nextWakeAt !== undefined && run.nextWakeAt <= now) || run.eventSeq > run.handledEventSeq) return run;
  }
  return undefined;
}

/**
 * Beside a long invocation of `busyId` with nothing else due: skips the virtual clock to the
 * next wake-up of another known run (a child run's wait), when it comes well before the busy
 * invocation's lease ends, and returns the run then due. Time skips for every run alike.
 */
export function skipToWakeBeside(
  store: MemoryStore,
  known: ReadonlySet<string>,
  clock: VirtualClock,
  busyId: string,
  holds: CallbackHolds | undefined,
): RunRecord | undefined {
  const next = nextWake(
    store,
    [...known].filter((id) => id !== busyId),
    holds,
  );
  const lease = store.peekRun(busyId)?.leaseExpiresAt;
  if (!next || next.real || lease === undefined || next.at >= lease - 60_000) return undefined;
  clock.advanceTo(next.at);
  return dueRun(store, known, clock.now());
}
