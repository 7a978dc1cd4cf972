import { type MemoryStore, nextDue } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';

/** Callbacks the test is handling (it waits for them or heartbeats them), by run. */
export interface CallbackHolds {
  /** False when the test holds nothing (the common case: nothing more is read). */
  any(): boolean;
  /** True when the test holds this open callback of this run. */
  has(runId: string, callback: Operation): boolean;
}

/** The next time something is due: `real` when only a held callback's deadline is. */
export interface NextWake {
  at: number;
  /** The clock must reach `at` in real time, not jump to it. */
  real: boolean;
}

/**
 * The next due time over `runIds`. A callback the test holds does not count as a virtual due
 * time: its deadlines are reached in real time (`real: true`) when nothing else is due before.
 *
 * Why: AWS's runner with `skipTime` skips waits and retries, yet a callback's timeout and
 * heartbeat deadline run on the real clock (its checkpoint server's timers). A test that waits
 * for a callback and then heartbeats it must not see the clock leap past the heartbeat deadline
 * in the meantime. Held is decided by the test's own calls (`waitForData`, `sendCallbackHeartbeat`
 * on the operation), never by scheduling, so the outcome is deterministic: an unheld callback's
 * deadline is jumped to, as before; a held one passes only if the test lets it pass in real time.
 */
export function nextWake(store: MemoryStore, runIds: Iterable<string>, holds?: CallbackHolds): NextWake | undefined {
  let virtual: number | undefined;
  let held: number | undefined;
  const checkHolds = holds?.any() ?? false;
  for (const runId of runIds) {
    const run = store.peekRun(runId);
    if (run?.status !== 'RUNNING' || run.nextWakeAt === undefined) continue;
    let due: number | undefined = run.nextWakeAt;
    if (checkHolds && holds) {
      const ops = store.peekOperations(runId);
      const heldOps = ops.filter((op) => op.Type === 'CALLBACK' && op.Status === 'STARTED' && holds.has(runId, op));
      if (heldOps.length > 0) {
        const ids = new Set(heldOps.map((op) => op.Id));
        due = nextDue(ops.filter((op) => !ids.has(op.Id)));
        for (const op of heldOps) {
          for (const t of [op.CallbackDetails?.TimeoutTimestamp, op.CallbackDetails?.HeartbeatDeadline]) {
            if (t !== undefined && (held === undefined || t < held)) held = t;
          }
        }
      }
    }
    if (due !== undefined && (virtual === undefined || due < virtual)) virtual = due;
  }
  if (held !== undefined && (virtual === undefined || held < virtual)) return { at: held, real: true };
  return virtual === undefined ? undefined : { at: virtual, real: false };
}
