import { FencedError } from '@durable-lambda/protocol';
import { type QueueDeps, slotOf, slotStore } from '../concurrency-queue';
import type { RunPatch, RunRecord } from '../run-record';

/**
 * The session's view of its run once an admission to run is recorded: `patch` applied (`null`
 * removes a field), and no longer waiting (its queue entry and timed wait are behind it).
 */
export function admittedRecord(run: RunRecord, patch: RunPatch): RunRecord {
  const { queuedAt: _at, queuePriority: _priority, ...rest } = run;
  const next: Record<string, unknown> = { ...rest };
  for (const [field, value] of Object.entries(patch)) {
    if (field === 'meter' || value === undefined) continue;
    if (value === null) delete next[field];
    else next[field] = value;
  }
  return next as unknown as RunRecord;
}

/**
 * The write recording an admission was fenced (`error` a `FencedError`: nothing was written):
 * if the run has ended meanwhile (cancelled, timed out), the slot this late invocation just took
 * is no one's, and its end freed the run's slot before it: it is released now. A run still going
 * keeps it (its next invocation finds itself a holder). Rethrows `error` in every case.
 */
export async function fencedAdmission(
  deps: QueueDeps,
  run: RunRecord,
  patch: RunPatch,
  error: unknown,
): Promise<never> {
  const key = patch.concurrencyKey;
  if (error instanceof FencedError && patch.slotHeld === true && typeof key === 'string') {
    const latest = await deps.store.getRun(run.runId).catch(() => undefined);
    if (latest && latest.status !== 'RUNNING' && latest.status !== 'QUEUED') {
      await slotStore(deps.store)
        .releaseSlot(slotOf(run, key), run.runId)
        .catch(() => undefined);
    }
  }
  throw error;
}
