/**
 * The run-control side of an `Engine` (the base it extends): listing and reading runs as they
 * stand now (a QUEUED run with its place in its key's queue, waits past their end settled), and
 * the operator's actions on them (cancel, retry, skip a step, wake now), each fenced and recorded
 * (see `operator-actions.ts`, `wake-now.ts`).
 */
import { randomUUID } from 'node:crypto';
import type { Operation } from '@durable-lambda/protocol';
import { queuePosition } from './concurrency-queue';
import {
  type CancelOptions,
  cancelRunAction,
  type RetryOptions,
  retryRunAction,
  type SkipOptions,
  skipStepAction,
} from './operator-actions';
import type { OutsideEvents } from './outside-events';
import type { Clock, RunPage, RunQuery, RunRecord, Store } from './ports';
import { checkRunSearch, runQueryLimit } from './run-query';
import { callbackTimeout, settleDue } from './transitions';
import { type WakeNowReport, wakeNow } from './wake-now';

/** Reading runs and acting on them, over the engine's store, clock and outside events. */
export abstract class EngineRunControl {
  abstract readonly store: Store;
  abstract readonly clock: Clock;
  protected abstract readonly outside: OutsideEvents;

  /** Runs matching the query, newest first, paginated; a QUEUED run with its `queuePosition`. */
  async listRuns(query: RunQuery = {}): Promise<RunPage> {
    runQueryLimit(query.limit);
    checkRunSearch(query);
    const page = await this.store.listRuns(query);
    if (!page.runs.some((run) => run.status === 'QUEUED')) return page;
    return { ...page, runs: await Promise.all(page.runs.map((run) => withQueuePosition(this.store, run))) };
  }

  /**
   * Cancels a RUNNING run (with `tree`, also its child runs, and theirs); a waiting parent hears
   * of it like of any child that ended. Fenced (a live invocation stops at its next checkpoint),
   * recorded in the run's `actions`, and applied once per `actionId` (see `operator-actions.ts`).
   */
  async cancelRun(runId: string, options: CancelOptions = {}): Promise<RunRecord> {
    return (await cancelRunAction(this.operatorDeps(), runId, options)).run;
  }

  /**
   * Retries a FAILED (or TIMED_OUT) run from its failed operations, or from `fromOperationId`,
   * and wakes it. Fenced, recorded in the run's `actions`, applied once per `actionId`.
   */
  async retryRun(runId: string, options: RetryOptions = {}): Promise<RunRecord> {
    const { run } = await retryRunAction(this.operatorDeps(), runId, options);
    // The retried run is due now: a lost wake-up is left to the reconciler.
    if (run.status === 'RUNNING') await this.outside.wakeSoon(run);
    return run;
  }

  /**
   * Skips a failed step: stores it SUCCEEDED with `result` (serialized JSON) and resumes the run
   * past it. Fenced, recorded in the run's `actions`, applied once per `actionId`.
   */
  async skipStep(runId: string, operationId: string, options: SkipOptions = {}): Promise<RunRecord> {
    const { run } = await skipStepAction(this.operatorDeps(), runId, operationId, options);
    if (run.status === 'RUNNING') await this.outside.wakeSoon(run);
    return run;
  }

  /** What the operator actions are given (`operator-actions.ts`); also the session's skip and cancel hooks. */
  protected operatorDeps() {
    return { store: this.store, clock: this.clock, outside: this.outside, newId: () => randomUUID() };
  }

  /** A run's record, or undefined; a QUEUED run with its `queuePosition`. */
  async getRun(runId: string): Promise<RunRecord | undefined> {
    const run = await this.store.getRun(runId);
    return run && withQueuePosition(this.store, run);
  }

  /** A run's operations as of now (waits past their end show as succeeded). */
  async getOperations(runId: string): Promise<Operation[]> {
    const now = this.clock.now();
    return (await this.store.loadOperations(runId)).map((op) => settleDue(op, now) ?? callbackTimeout(op, now) ?? op);
  }

  /**
   * "Wake now": ends a RUNNING run's pending durable waits and retry backoffs at once (only
   * `operationId`'s, when given) and wakes it. Refuses with code `nothing_to_wake` when nothing
   * waits on time (see `wake-now.ts`).
   */
  wakeRun(runId: string, options: { operationId?: string } = {}): Promise<WakeNowReport> {
    return wakeNow({ store: this.store, clock: this.clock, wake: (run) => this.outside.wakeSoon(run) }, runId, options);
  }
}

/** `run` with its place in its key's queue, when it is QUEUED. */
async function withQueuePosition(store: Store, run: RunRecord): Promise<RunRecord> {
  const position = run.status === 'QUEUED' ? await queuePosition(store, run) : undefined;
  return position === undefined ? run : { ...run, queuePosition: position };
}
