import { setImmediate } from 'node:timers';
import { EngineInputError } from './errors';
import type { DueRun } from './ports';
import { MAX_RECONCILE_CONCURRENCY, type ReconcileOptions, type ReconcileReport } from './reconciler';

/** What {@link reconcileAll} drives: an `Engine` (its `reconcile` and `duePartitions`). */
export interface ReconcileTarget {
  /** One pass (`Engine.reconcile`). */
  reconcile(options: ReconcileOptions): Promise<ReconcileReport>;
  /** The due index's partitions (`Engine.duePartitions`); absent: 1. */
  duePartitions?(): number;
}

/** Options of {@link reconcileAll}. */
export interface ReconcileAllOptions {
  /** Due runs per pass (1-1000). Default 100. */
  limit?: number;
  /** As `ReconcileOptions.graceMs`. Default: the engine's. */
  graceMs?: number;
  /** Due runs handled at once by the first pass (and by any while nothing is behind). Default 8. */
  concurrency?: number;
  /**
   * Due runs handled at once, over all passes under way, once a pass filled its limit (a backlog):
   * the wake-up rate rises with what the reconciler finds. Default: `concurrency`.
   */
  concurrencyWhenBehind?: number;
  /** Partitions of the due index worked side by side once behind (at most). Default 8. */
  partitionsAtOnce?: number;
  /** Most passes in all (the first included). Default 100. */
  maxPasses?: number;
  /** Asked before every pass but the first: false stops (`stoppedBy: 'time'`), e.g. when time runs short. */
  canContinue?(): boolean;
  /**
   * Awaited before every pass but the first. Default: one macrotask turn (`setImmediate`), so the
   * runs woken by the pass before (a timer each, in-process) start and I/O is served in between.
   */
  between?(): Promise<void>;
  /** Told of each pass as it ends, with the partition it read (undefined: the whole index). */
  onPass?(report: ReconcileReport, partition: number | undefined): void;
}

/** Why {@link reconcileAll} stopped: nothing more due, `canContinue` said no, or `maxPasses`. */
export type ReconcileAllStop = 'done' | 'time' | 'passes';

/** What {@link reconcileAll} did. */
export interface ReconcileAllResult {
  /** Passes made (each a page of one partition, or of the whole index). */
  passes: number;
  stoppedBy: ReconcileAllStop;
  /** Whether it went on partition by partition (the first pass filled its limit on a store with several). */
  partitioned: boolean;
}

const DEFAULT_LIMIT = 100;
const DEFAULT_CONCURRENCY = 8;
const DEFAULT_PARTITIONS_AT_ONCE = 8;
const DEFAULT_MAX_PASSES = 100;

/**
 * Reconciles until no due run is left (or time or passes run out), the one way every driver of
 * the reconciler pages (the deployed reconciler, `LocalRuntime` and the dev server, the test
 * driver). The first pass reads the whole due index merged, as one `Engine.reconcile`: when it
 * finds fewer runs than its limit, that is all (an idle table costs that one pass). When it fills
 * its limit the reconciler is behind: every later pass starts after the last one's `cursor` (a run
 * just woken is still in the index until its invocation takes the lease, so without the cursor
 * each pass would find the same runs again), and on a store whose index has several partitions
 * (`Store.duePartitions`: DynamoDB's shards) the partitions are paged side by side from that
 * cursor, `partitionsAtOnce` at a time, with `concurrencyWhenBehind` wake-ups in flight over all
 * of them. Each partition goes on while its pass fills the limit and `canContinue()` holds.
 *
 * Between passes it awaits `between()` (a macrotask turn by default), so in-process wake-ups
 * start and other work is served. A pass that throws (the index cannot be read) stops the others
 * from starting new passes; it rejects with that error once those under way have ended (each
 * was reported to `onPass`).
 */
export async function reconcileAll(
  target: ReconcileTarget,
  options: ReconcileAllOptions = {},
): Promise<ReconcileAllResult> {
  const limit = options.limit ?? DEFAULT_LIMIT;
  const base = checkConcurrency('concurrency', options.concurrency ?? DEFAULT_CONCURRENCY);
  const behind = checkConcurrency('concurrencyWhenBehind', options.concurrencyWhenBehind ?? base);
  const atOnce = options.partitionsAtOnce ?? DEFAULT_PARTITIONS_AT_ONCE;
  if (!Number.isInteger(atOnce) || atOnce < 1) {
    throw new EngineInputError('partitionsAtOnce', 'must be an integer, 1 or more');
  }
  const maxPasses = options.maxPasses ?? DEFAULT_MAX_PASSES;
  if (!(maxPasses >= 1)) throw new EngineInputError('maxPasses', 'must be 1 or more');
  const between = options.between ?? macrotask;
  const partitions = partitionCount(target);
  const common: ReconcileOptions = { limit, ...(options.graceMs === undefined ? {} : { graceMs: options.graceMs }) };

  let passes = 1;
  const first = await target.reconcile({ ...common, concurrency: base });
  options.onPass?.(first, undefined);
  if (!first.more || !first.cursor) return { passes, stoppedBy: 'done', partitioned: false };

  let stoppedBy: ReconcileAllStop = 'done';
  let failure: { error: unknown } | undefined;
  /** Whether another pass may start; sets `stoppedBy` when not. */
  const mayGoOn = (): boolean => {
    if (failure || stoppedBy !== 'done') return false;
    if (passes >= maxPasses) stoppedBy = 'passes';
    else if (options.canContinue && !options.canContinue()) stoppedBy = 'time';
    return stoppedBy === 'done';
  };
  /** Pages one partition (or the whole index) on from `after` while its passes fill the limit. */
  const page = async (after: DueRun, partition: number | undefined, concurrency: number) => {
    let cursor: DueRun | undefined = after;
    while (cursor && mayGoOn()) {
      passes += 1;
      await between();
      let report: ReconcileReport;
      try {
        report = await target.reconcile({
          ...common,
          after: cursor,
          concurrency,
          ...(partition === undefined ? {} : { partition }),
        });
      } catch (error) {
        failure ??= { error };
        return;
      }
      options.onPass?.(report, partition);
      cursor = report.more ? report.cursor : undefined;
    }
  };

  const cursor = first.cursor;
  if (partitions === 1) {
    await page(cursor, undefined, behind);
  } else {
    // Every entry up to the first pass's cursor, in every partition, was in that merged page: each
    // partition goes on from it. Wake-ups in flight stay within `behind` over all partitions.
    const workers = Math.min(atOnce, partitions);
    const each = Math.max(1, Math.floor(behind / workers));
    let next = 0;
    const worker = async () => {
      for (let partition = next++; partition < partitions && !failure; partition = next++) {
        await page(cursor, partition, each);
      }
    };
    await Promise.all(Array.from({ length: workers }, worker));
  }
  if (failure) throw failure.error;
  return { passes, stoppedBy, partitioned: partitions > 1 };
}

function partitionCount(target: ReconcileTarget): number {
  const count = target.duePartitions?.() ?? 1;
  return Number.isInteger(count) && count >= 1 ? count : 1;
}

function checkConcurrency(field: string, value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > MAX_RECONCILE_CONCURRENCY) {
    throw new EngineInputError(field, `must be an integer from 1 to ${MAX_RECONCILE_CONCURRENCY}`);
  }
  return value;
}

/** One turn of the event loop: timers due and I/O run before the promise settles. */
function macrotask(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
