/**
 * What flow control does when a run ends, whichever way (its invocation's end, a cancel, a
 * timeout): its concurrency slot goes to the head of its key's queue (`freeSlot`), and a run of a
 * schedule starts the run buffered behind it (`bufferOne`). Each is idempotent and best effort:
 * a death before it is healed at the next admission or the reconciler's re-check.
 */
import { freeSlot, type QueueDeps } from '../concurrency-queue';
import type { RunRecord } from '../ports';
import { startBufferedAfter } from '../starts/schedule-buffer';

/** Frees what the ended `run` held and starts what waited for it. */
export async function flowAfterEnd(deps: QueueDeps, run: RunRecord): Promise<void> {
  try {
    await freeSlot(deps, run);
  } finally {
    await startBufferedAfter(deps, run);
  }
}
