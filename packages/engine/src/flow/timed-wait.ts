/**
 * The end of a timed wait (`throttle`, `debounce`): a run QUEUED until its time is woken by its
 * own wake-up, which finds it QUEUED. Due by then, it is made RUNNING (one conditional revision)
 * and opened like any run due; a wake-up before its time, or of a run waiting for a slot, finds
 * nothing to do.
 */
import type { RunRecord, Store } from '../ports';

/** `run` RUNNING when its timed wait is over (revised so), else `run` as it was. */
export async function endTimedWait(store: Store, run: RunRecord, now: number): Promise<RunRecord | undefined> {
  const until = run.flow?.until;
  const timed = run.flow?.waitingFor === 'throttle' || run.flow?.waitingFor === 'debounce';
  if (run.status !== 'QUEUED' || !timed || until === undefined || until > now) return run;
  return (await store.reviseRun(run.runId, 'QUEUED', { status: 'RUNNING' }, [])) ?? (await store.getRun(run.runId));
}
