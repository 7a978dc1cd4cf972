import type { RunPatch, RunRecord } from '../run-record';

/**
 * The session's view of its run once an admission to run is recorded: `patch` applied, and no
 * longer waiting (its queue entry and timed wait are behind it).
 */
export function admittedRecord(run: RunRecord, patch: RunPatch): RunRecord {
  const { queuedAt: _at, queuePriority: _priority, flow: _flow, concurrencyKey: _key, ...rest } = run;
  const key = patch.concurrencyKey ?? run.concurrencyKey;
  return {
    ...rest,
    ...(key === undefined || key === null ? {} : { concurrencyKey: key }),
    ...(patch.flow ? { flow: patch.flow } : run.flow ? { flow: run.flow } : {}),
  };
}
