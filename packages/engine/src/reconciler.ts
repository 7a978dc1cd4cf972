import { EngineInputError } from './errors';
import { pastDeadline } from './execution-timeout';
import type { OutboxPublisher } from './outbox/outbox-port';
import { publishUnsent } from './outbox/outbox-reconcile';
import type { OutsideEvents } from './outside-events';
import { type Clock, type DueRun, dueAtOf, type RunRecord, type Store, type Waker } from './ports';
import { endChildren } from './run-tree-end';

/** Options of one {@link reconcile} pass. */
export interface ReconcileOptions {
  /** At most this many due runs are looked at (1-1000). Default 100; `more` says if others wait. */
  limit?: number;
  /**
   * Only runs due at least this long ago (ms) are looked at: a run's own wake-up gets this long to
   * arrive first (EventBridge Scheduler fires up to a minute late). Default: the engine's
   * `reconcileGraceMs`.
   */
  graceMs?: number;
  /** Start after this due-index entry: the previous pass's `cursor`, to page on. */
  after?: DueRun;
  /**
   * Read only this partition of the due index (0 to `Engine.duePartitions() - 1`), so partitions
   * can be worked side by side (see `reconcileAll`). Default: the whole index, merged.
   */
  partition?: number;
  /** Due runs handled at once (each a read, then a wake-up), 1-{@link MAX_RECONCILE_CONCURRENCY}. Default 8. */
  concurrency?: number;
}

/** The most due runs one pass handles at once ({@link ReconcileOptions.concurrency}). */
export const MAX_RECONCILE_CONCURRENCY = 64;

/** What one {@link reconcile} pass did. */
export interface ReconcileReport {
  /** Due-index entries looked at. */
  examined: number;
  /** Runs woken again, with why they were due. */
  woken: { runId: string; reason: 'lease_lapsed' | 'due' | 'event' }[];
  /** Ended child runs whose parent was told now (its earlier notification was lost). */
  parentsNotified: string[];
  /** Runs past their execution deadline, ended TIMED_OUT now (nothing else had ended them). */
  timedOut: string[];
  /** Ended runs whose child runs were still to be ended (a timeout or tree cancel cut short). */
  treesEnded: string[];
  /** Stale index entries of ended runs, removed. */
  repaired: string[];
  /** Ids of outbox events the pass published (runs whose invocation did not see them published). */
  outboxPublished?: string[];
  /** Runs that could not be handled this pass; the next pass finds them again. */
  failed: { runId: string; error: string }[];
  /** True when `limit` entries were found: more due runs may be waiting. */
  more: boolean;
  /**
   * With `more`: the last entry looked at; pass it as `after` to look at the next ones (runs that
   * could not be helped, e.g. of a deleted function, never block the runs behind them).
   */
  cursor?: DueRun;
}

/** What a reconcile pass needs from the engine. */
export interface ReconcilerDeps {
  store: Store;
  waker: Waker;
  clock: Clock;
  outside: OutsideEvents;
  graceMs: number;
  /** Ends a run past its execution deadline TIMED_OUT, with its tree. */
  expire?: (runId: string) => Promise<unknown>;
  /** Publishes events a run recorded and no invocation saw published (`outbox/outbox-reconcile.ts`). */
  outbox?: OutboxPublisher;
}

/** How many runs one pass handles at once by default (each costs a read and a wake-up). */
const CONCURRENCY = 8;

/**
 * One pass of the reconciler: every run the due index says is due (and not held by a live lease)
 * is woken again, and every ended child run whose parent was never told is told now. It is the
 * backstop for every wake-up or notification lost after a durable write (a throttled call, a
 * process killed, an event dropped): the store's `dueAt` says when each run must next be looked at.
 * Safe to run concurrently and repeatedly: a duplicate wake-up finds the run busy or not due and
 * does nothing, and a parent's chained invoke completes once (a conditional write).
 */
export async function reconcile(deps: ReconcilerDeps, options: ReconcileOptions = {}): Promise<ReconcileReport> {
  const limit = options.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new EngineInputError('limit', 'must be an integer from 1 to 1000');
  }
  const graceMs = options.graceMs ?? deps.graceMs;
  if (typeof graceMs !== 'number' || !Number.isFinite(graceMs) || graceMs < 0) {
    throw new EngineInputError('graceMs', 'must be a number of ms, 0 or more');
  }
  const concurrency = options.concurrency ?? CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_RECONCILE_CONCURRENCY) {
    throw new EngineInputError('concurrency', `must be an integer from 1 to ${MAX_RECONCILE_CONCURRENCY}`);
  }
  const { partition } = options;
  const partitions = duePartitionsOf(deps.store);
  if (partition !== undefined && (!Number.isInteger(partition) || partition < 0 || partition >= partitions)) {
    throw new EngineInputError(
      'partition',
      `must be an integer from 0 to ${partitions - 1} (the store's due partitions)`,
    );
  }
  const now = deps.clock.now();
  // A one-partition store is asked as before: its partition 0 is the whole index.
  const due =
    partition === undefined || partitions === 1
      ? await deps.store.findDueRuns(now - graceMs, limit, options.after)
      : await deps.store.findDueRuns(now - graceMs, limit, options.after, partition);
  const last = due[due.length - 1];
  const report: ReconcileReport = {
    examined: due.length,
    woken: [],
    parentsNotified: [],
    timedOut: [],
    treesEnded: [],
    repaired: [],
    failed: [],
    more: due.length >= limit,
    ...(due.length >= limit && last ? { cursor: last } : {}),
  };
  const queue = [...due];
  const worker = async () => {
    for (let entry = queue.shift(); entry; entry = queue.shift()) {
      const { runId } = entry;
      try {
        await reconcileRun(deps, runId, report);
      } catch (error) {
        report.failed.push({ runId, error: error instanceof Error ? error.message : String(error) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
  return report;
}

/**
 * How many partitions `store`'s due index has (`Store.duePartitions`): 1 when it does not say, or
 * says something that is not a whole number from 1 up.
 */
export function duePartitionsOf(store: Pick<Store, 'duePartitions'>): number {
  const count = store.duePartitions?.();
  return typeof count === 'number' && Number.isInteger(count) && count >= 1 ? count : 1;
}

async function reconcileRun(deps: ReconcilerDeps, runId: string, report: ReconcileReport): Promise<void> {
  // The index may lag (DynamoDB's is eventually consistent) or run early: decide on the run itself.
  let run = await deps.store.getRun(runId);
  if (!run) return;
  const now = deps.clock.now();
  if (deps.outbox && run.outbox?.length && !(run.leaseExpiresAt !== undefined && run.leaseExpiresAt > now)) {
    run = (await publishUnsent(deps.store, deps.outbox, run, report)) ?? run;
  }
  if (run.status !== 'RUNNING' && run.childrenOpen) {
    await endChildren(deps, run);
    report.treesEnded.push(runId);
    run = (await deps.store.getRun(runId)) ?? run;
  }
  const dueAt = dueAtOf(run);
  if (run.status === 'QUEUED') {
    if (deps.expire && pastDeadline(run, now)) {
      await deps.expire(runId);
      report.timedOut.push(runId);
    } else if (dueAt !== undefined && dueAt <= now) {
      // Its re-check: a hand-over lost to a crash or a fault strands no queued run.
      if (run.flow?.waitingFor === 'schedule') {
        if (await deps.outside.recheckBuffered(run)) report.woken.push({ runId, reason: 'due' });
      } else {
        await deps.outside.unqueue(run);
        report.woken.push({ runId, reason: 'due' });
      }
    }
    return;
  }
  if (run.status !== 'RUNNING') {
    if (run.slotHeld) {
      // Ended holding a slot whose release was lost (a crash or a fault after its end): released
      // here, its key's queue handed on, and the run out of the index.
      await deps.outside.slotFreed(run);
      report.repaired.push(runId);
      run = (await deps.store.getRun(runId)) ?? run;
    }
    if (run.parent && !run.parentNotified) {
      await deps.outside.childFinished(run);
      report.parentsNotified.push(runId);
    } else if (dueAt === undefined && run.dueAt !== undefined) {
      await deps.store.reviseRun(runId, run.status, { dueAt: null }, []);
      report.repaired.push(runId);
    }
    return;
  }
  if (deps.expire && pastDeadline(run, now)) {
    // Ended here, not woken: the function may be gone, and a held lease must not delay the end.
    await deps.expire(runId);
    report.timedOut.push(runId);
    return;
  }
  if (dueAt === undefined || dueAt > now) return;
  await deps.waker.wakeAt({ runId, functionName: run.functionName, at: now, reason: 'reconcile' });
  report.woken.push({ runId, reason: dueReason(run) });
}

function dueReason(run: RunRecord): 'lease_lapsed' | 'due' | 'event' {
  if (run.leaseExpiresAt !== undefined) return 'lease_lapsed';
  return run.eventSeq > run.handledEventSeq ? 'event' : 'due';
}
