/**
 * `singleton`: one run of a key at a time, with no queue. It is a concurrency slot of 1 (the same
 * holders set, freed by every way a run ends, leaks healed the same way): a run finding the slot
 * held is skipped (`skip`), or cancels the holder and takes the slot (`cancel`, the newest wins).
 */
import { takeSlot } from '../concurrency-admission';
import { type QueueDeps, slotOf, slotStore } from '../concurrency-queue';
import type { RunRecord } from '../ports';

/** What a singleton admission needs besides the queue's deps. */
export interface SingletonDeps extends QueueDeps {
  /** Cancels `runId` on behalf of `byRunId` (idempotent per pair); a run that ended meanwhile is no error. */
  cancel(runId: string, byRunId: string): Promise<void>;
}

/** How often a `cancel` singleton cancels holders and tries again before it gives up (a storm of new runs). */
const ROUNDS = 5;

/**
 * Takes the key's one slot for `run`: `{ held: true }` when it holds it (now or already), else
 * `{ held: false, holders }` (mode `skip`, or `cancel` losing every round to newer runs).
 */
export async function takeSingleton(
  deps: SingletonDeps,
  run: RunRecord,
  key: string,
  mode: 'skip' | 'cancel',
): Promise<{ held: true } | { held: false; holders: string[] }> {
  const slot = slotOf(run, key);
  let holders: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (await takeSlot(deps, slot, run.runId, 1)) return { held: true };
    holders = (await slotStore(deps.store).slotHolders(slot)).filter((id) => id !== run.runId);
    if (mode === 'skip') break;
    // Each holder's end frees its slot (the cancel's own end path), so the next round can take it.
    for (const holder of holders) await deps.cancel(holder, run.runId);
  }
  return { held: false, holders };
}
