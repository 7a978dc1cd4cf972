/**
 * The guarantees checked over the whole world's write log and step executions, whatever operator
 * actions, execution timeouts and re-created runs happened (see `store-log.ts`):
 *
 * - **Fenced.** No checkpoint lands at a fence the run has moved past (a lease taken over, an
 *   operator action, a timeout, the run created anew under its id): a fenced invocation writes
 *   nothing.
 * - **Queued holds nothing.** No checkpoint or lease lands on a run's execution while it is QUEUED.
 * - **Ended stays ended.** Once a run's execution is terminal, no checkpoint or lease lands on it
 *   and its status changes only by an operator retry or skip reopening it; so after a cancel or a
 *   timeout is durable, no step attempt starts.
 * - **Started before run.** Every step body ran after its attempt's START was durable on its
 *   execution (so a body never starts on an ended run or at a stale fence).
 * - **Ended, nothing due.** Every run of the world ends, and none is left in the due index.
 */
import type { RunRecord, RunStatus } from '@durable-lambda/engine';
import type { Execution } from './outside-world';
import type { LoggedWrite } from './store-log';

/** Operator actions that may reopen an ended run. */
const REOPENING = new Set(['retry', 'skip_step']);

export function checkWorldLog(log: readonly LoggedWrite[], executions: readonly Execution[]): string[] {
  const violations: string[] = [];
  // As answered, by run id (fences: a run created anew starts above its old fences) and by
  // execution (statuses). A write sent before another was answered may have landed before it:
  // only what was answered before a write was sent is compared with it.
  const fences = new Map<string, Array<{ seq: number; fence: number }>>();
  const statuses = new Map<string, Array<{ seq: number; status: RunStatus }>>();
  const started = new Map<string, number>();
  for (const w of log) {
    if (w.kind === 'commit' || w.kind === 'lease') {
      const moved = Math.max(0, ...(fences.get(w.runId) ?? []).filter((f) => f.seq < w.sentSeq).map((f) => f.fence));
      if (w.kind === 'commit' && w.fence < moved) {
        violations.push(`a checkpoint of ${w.execId} landed at fence ${w.fence} after the fence moved to ${moved}`);
      }
      const ended = (statuses.get(w.execId) ?? []).filter((s) => s.seq < w.sentSeq).at(-1)?.status;
      if (ended === 'QUEUED') {
        // A QUEUED run holds no lease: only taking it out of its queue (a revision) makes it run again.
        violations.push(`a ${w.kind === 'commit' ? 'checkpoint' : 'lease'} landed on ${w.execId} while it was QUEUED`);
      } else if (ended !== undefined && ended !== 'RUNNING') {
        violations.push(
          `a ${w.kind === 'commit' ? 'checkpoint' : 'lease'} landed on ${w.execId} after it ended ${ended}`,
        );
      }
    }
    if (w.kind !== 'commit') fences.set(w.runId, [...(fences.get(w.runId) ?? []), { seq: w.seq, fence: w.fence }]);
    const history = statuses.get(w.execId) ?? [];
    const before = history.at(-1)?.status;
    // Conditional on the status they found, two writes that change it never both land out of order.
    // QUEUED is no end: a revision takes the run out of its wait (RUNNING) or ends it (a cancel, a timeout).
    if (
      w.status !== undefined &&
      w.kind !== 'create' &&
      before !== undefined &&
      before !== 'RUNNING' &&
      before !== 'QUEUED'
    ) {
      const reopened = w.kind === 'revise' && w.status === 'RUNNING' && REOPENING.has(w.action ?? '');
      if (w.status !== before && !reopened) {
        violations.push(`${w.execId} ended ${before}, then became ${w.status} by a ${w.kind}`);
      }
    }
    if (w.status !== undefined) statuses.set(w.execId, [...history, { seq: w.seq, status: w.status }]);
    for (const s of w.starts) if (!started.has(`${w.execId}|${s}`)) started.set(`${w.execId}|${s}`, w.seq);
  }
  for (const e of executions) {
    const at = started.get(`${e.execId}|${e.operationId}:${e.attempt}`);
    if (at === undefined || at > e.seq) {
      violations.push(
        `step ${e.step} (${e.execId}|${e.operationId}) ran attempt ${e.attempt} with no durable START before it`,
      );
    }
  }
  return violations;
}

/** Every run ended and none is left due. */
export function checkAllEnded(runs: readonly RunRecord[]): string[] {
  const violations: string[] = [];
  for (const run of runs) {
    if (run.status === 'RUNNING') violations.push(`run ${run.runId} (${run.functionName}) never ended`);
    else if (run.dueAt !== undefined) {
      violations.push(`run ${run.runId} ended ${run.status} but is still due (at ${run.dueAt})`);
    }
  }
  return violations;
}

/**
 * Idempotency keys across every seed of a suite: a key handed to a step body anywhere in the
 * world is never handed out again, in any run, execution or seed.
 */
export class WorldKeys {
  private readonly seen = new Map<string, number>();
  size = 0;

  /** Adds a seed's keys; returns a violation for each key an earlier seed was handed. */
  add(seed: number, keys: readonly string[]): string[] {
    const violations: string[] = [];
    for (const key of new Set(keys)) {
      const first = this.seen.get(key);
      if (first !== undefined && first !== seed)
        violations.push(`idempotency key ${key} was issued in seed ${first} too`);
      else this.seen.set(key, seed);
    }
    this.size = this.seen.size;
    return violations;
  }
}
