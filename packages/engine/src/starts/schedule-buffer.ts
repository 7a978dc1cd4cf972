/**
 * A schedule's `bufferOne` overlap: a firing that finds the schedule's previous run still RUNNING
 * starts its run QUEUED behind it (at most one waits; a firing finding one waiting is skipped).
 * The buffered run waits in the queue of the schedule's own key (`@schedule:<name>`), so the end
 * of any run of the schedule, which frees its slot however it ended (`freeSlot`), finds it with
 * one read of that queue and starts it once every run it waits behind has ended. A hand-over lost
 * to a crash is made up by the reconciler at the buffered run's re-check, which starts it only
 * then too (`recheckBuffered`).
 */
import { type QueueDeps, queueHead, slotOf, slotStore } from '../concurrency-queue';
import type { RunRecord } from '../ports';

/** The concurrency key a schedule's buffered run waits under. */
export function scheduleBufferKey(schedule: string): string {
  return `@schedule:${schedule}`;
}

/** The name of the schedule a run key was made by (`schedule:<function>:<name>:<ISO time>`), or undefined. */
export function scheduleOfRunKey(runKey: string | undefined): string | undefined {
  const prefix = 'schedule:';
  if (!runKey?.startsWith(prefix)) return undefined;
  // A bare function name has no colon; the fire time is ISO 8601 in ms, 24 characters, after one.
  const rest = runKey.slice(prefix.length);
  const fn = rest.indexOf(':');
  if (fn <= 0 || rest.length < fn + 1 + 1 + 25) return undefined;
  return rest.slice(fn + 1, -25);
}

/**
 * A run of a schedule ended: its buffered run (the head of the schedule's queue) starts when
 * every run it waits behind has ended. Best effort, like every hand-over.
 */
export async function startBufferedAfter(deps: QueueDeps, ended: RunRecord): Promise<void> {
  const schedule = scheduleOfRunKey(ended.runKey);
  if (schedule === undefined) return;
  const head = await queueHead(deps, slotOf(ended, scheduleBufferKey(schedule)));
  if (head && head.run.status === 'QUEUED') await startIfClear(deps, head.run, ended.runId);
}

/**
 * At a buffered run's re-check (the reconciler): started if every run it waits behind has ended,
 * else left QUEUED and due again a re-check later. Returns whether it was started.
 */
export async function recheckBuffered(deps: QueueDeps, run: RunRecord, recheckMs: number): Promise<boolean> {
  if (await startIfClear(deps, run)) return true;
  const at = deps.clock.now() + recheckMs;
  await deps.store.reviseRun(run.runId, 'QUEUED', { nextWakeAt: at, dueAt: at }, [], { fence: run.fence });
  return false;
}

/** Starts the buffered `run` (RUNNING, due now, out of its queue, woken) when nothing it waits behind runs. */
export async function startIfClear(deps: QueueDeps, run: RunRecord, endedId?: string): Promise<boolean> {
  for (const id of run.flow?.behind ?? []) {
    if (id === endedId) continue;
    const other = await deps.store.getRun(id);
    if (other && (other.status === 'RUNNING' || other.status === 'QUEUED')) return false;
  }
  const now = deps.clock.now();
  const started = await deps.store.reviseRun(
    run.runId,
    'QUEUED',
    {
      status: 'RUNNING',
      nextWakeAt: now,
      dueAt: now,
      flow: null,
      concurrencyKey: null,
      queuedAt: null,
      queuePriority: null,
    },
    [],
  );
  if (!started) return false;
  if (run.concurrencyKey !== undefined && run.queuedAt !== undefined) {
    const entry = { runId: run.runId, priority: run.queuePriority ?? 0, queuedAt: run.queuedAt };
    await slotStore(deps.store)
      .dequeueRun(slotOf(run, run.concurrencyKey), entry)
      .catch(() => undefined);
  }
  await deps.wake(started).catch(() => undefined);
  return true;
}
