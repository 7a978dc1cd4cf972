import { type QueueDeps, slotOf, slotStore } from '../concurrency-queue';
import type { Engine } from '../engine';
import type { Clock, Invoker, Waker } from '../ports';
import { runIdFor } from '../run-ids';
import type { RunRecord } from '../run-record';
import { kickNewRun } from './kick-new-run';
import { scheduleBufferKey, startIfClear } from './schedule-buffer';
import { decideOverlap, type ScheduleFiringEvent, scheduleKeyPrefix, scheduleRunKey } from './schedule-events';

/** The answer to a firing: the run it started (or buffered) or found, or why it started none. */
export type ScheduleFiringResponse =
  | { schedule: string; runId: string; created: boolean; cancelled: string[]; buffered?: true }
  | { schedule: string; skipped: true; running: string[] };

/** What a {@link ScheduleReceiver} reads and starts runs through. */
export interface ScheduleReceiverOptions {
  engine: Pick<Engine, 'startRun' | 'listRuns' | 'cancelRun' | 'store'>;
  invoker?: Invoker;
  waker: Waker;
  clock: Clock;
  report?(error: unknown): void;
  /** How long a buffered run waits before the reconciler re-checks it, ms. Default 15 minutes. */
  queueRecheckMs?: number;
}

/**
 * Starts the run of a schedule's firing, keyed by the schedule's name and the firing's time (a
 * duplicate firing finds its run and starts nothing), after deciding its overlap policy against
 * the schedule's runs still RUNNING. Those are read from the store's listing of the function's
 * RUNNING runs (one query per firing; no per-schedule item, so a firing writes only its run):
 * `skip` starts nothing while one runs; `cancelPrevious` cancels them first; `allowAll` starts
 * regardless; `bufferOne` starts its run QUEUED behind them, at most one (`schedule-buffer.ts`).
 */
export class ScheduleReceiver {
  private readonly options: ScheduleReceiverOptions;

  constructor(options: ScheduleReceiverOptions) {
    this.options = options;
  }

  /** Handles `event` for `functionName` (the function, as a request's start names it). */
  async receive(event: ScheduleFiringEvent, functionName: string): Promise<ScheduleFiringResponse> {
    const { name, scheduledTime, overlap, input } = event.durableLambda;
    const runKey = scheduleRunKey(functionName, name, scheduledTime);
    const prefix = scheduleKeyPrefix(functionName, name);
    // `allowAll` decides nothing on the runs: it reads none (its own run, if there, is found by its key).
    const listed = overlap === 'allowAll' ? [] : await this.runsOf(functionName, prefix, 'RUNNING');
    const running = listed.filter((r) => r.runKey !== runKey);
    // Its own run already there (a duplicate firing) is found by its key below, whatever else runs.
    const waiting = overlap === 'bufferOne' && running.length > 0 ? await this.bufferedOf(functionName, name) : [];
    const mine = waiting.some((r) => r.runKey === runKey);
    const decision = decideOverlap(
      overlap,
      running.map((r) => r.runId),
      waiting.filter((r) => r.runKey !== runKey).length,
    );
    if (decision.action === 'skip' || (decision.action === 'buffer' && mine)) {
      if (!mine && running.length === listed.length) {
        return { schedule: name, skipped: true, running: running.map((r) => r.runId) };
      }
    }
    const cancelled: string[] = [];
    if (decision.action === 'start') {
      for (const runId of decision.cancel) {
        try {
          // Idempotent by the firing: a duplicate firing cancels nothing twice.
          await this.options.engine.cancelRun(runId, { actor: `schedule:${name}`, actionId: runKey });
          cancelled.push(runId);
        } catch (error) {
          // Ended meanwhile: nothing to cancel.
          this.options.report?.(error);
        }
      }
    }
    const request = { functionName, ...(input === undefined ? {} : { input }), runKey };
    if (decision.action === 'buffer' && !mine) return this.buffer(request, name, running);
    const started = await this.options.engine.startRun(request);
    // A duplicate firing of a buffered run finds it QUEUED: it starts when its turn comes.
    if (started.run.status !== 'QUEUED') await this.kick(started.run);
    return { schedule: name, runId: started.run.runId, created: started.created, cancelled };
  }

  /**
   * Starts the firing's run QUEUED behind `running`, in the schedule's queue (its entry first, so
   * a run ending meanwhile finds it), then looks once more: if they all ended in between, nothing
   * else would start it now, so it is started here.
   */
  private async buffer(
    request: { functionName: string; input?: string; runKey: string },
    name: string,
    running: readonly RunRecord[],
  ): Promise<ScheduleFiringResponse> {
    const { engine, clock } = this.options;
    const queuedAt = clock.now();
    const key = scheduleBufferKey(name);
    const runId = runIdFor(request.runKey);
    const slot = slotOf(request, key);
    await slotStore(engine.store).enqueueRun(slot, { runId, priority: 0, queuedAt });
    const behind = running.map((r) => r.runId);
    const recheckAt = queuedAt + (this.options.queueRecheckMs ?? 15 * 60_000);
    const started = await engine.startRun({ ...request, buffered: { key, behind, queuedAt, recheckAt } });
    if (started.run.status === 'QUEUED') await startIfClear(this.queueDeps(), started.run);
    return { schedule: name, runId: started.run.runId, created: started.created, cancelled: [], buffered: true };
  }

  /**
   * The schedule's runs waiting to start (`bufferOne`): read from the schedule's own queue (one
   * query, and one read per entry: at most a few), not from the function's QUEUED runs, which
   * other gates may number in thousands.
   */
  private async bufferedOf(functionName: string, name: string): Promise<RunRecord[]> {
    const { store } = this.options.engine;
    const slot = slotOf({ functionName }, scheduleBufferKey(name));
    const entries = await slotStore(store).listQueuedRuns(slot, 10);
    const runs = await Promise.all(entries.map((entry) => store.getRun(entry.runId)));
    return runs.filter((run): run is RunRecord => run?.status === 'QUEUED' && run.concurrencyKey === slot.key);
  }

  private queueDeps(): QueueDeps {
    return { store: this.options.engine.store, clock: this.options.clock, wake: (run) => this.kick(run) };
  }

  private async runsOf(functionName: string, prefix: string, status: 'RUNNING' | 'QUEUED'): Promise<RunRecord[]> {
    const out: RunRecord[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.options.engine.listRuns({
        functionName,
        status,
        limit: 100,
        ...(cursor ? { cursor } : {}),
      });
      out.push(...page.runs.filter((r) => r.runKey?.startsWith(prefix)));
      cursor = page.cursor;
    } while (cursor);
    return out;
  }

  private kick(run: RunRecord): Promise<void> {
    return kickNewRun(this.options, run);
  }
}
