import type { Engine } from '../engine';
import type { Clock, Invoker, Waker } from '../ports';
import type { RunRecord } from '../run-record';
import { kickNewRun } from './kick-new-run';
import { decideOverlap, type ScheduleFiringEvent, scheduleKeyPrefix, scheduleRunKey } from './schedule-events';

/** The answer to a firing: the run it started or found, or why it started none. */
export type ScheduleFiringResponse =
  | { schedule: string; runId: string; created: boolean; cancelled: string[] }
  | { schedule: string; skipped: true; running: string[] };

/** What a {@link ScheduleReceiver} reads and starts runs through. */
export interface ScheduleReceiverOptions {
  engine: Pick<Engine, 'startRun' | 'listRuns' | 'cancelRun'>;
  invoker?: Invoker;
  waker: Waker;
  clock: Clock;
  report?(error: unknown): void;
}

/**
 * Starts the run of a schedule's firing, keyed by the schedule's name and the firing's time (a
 * duplicate firing finds its run and starts nothing), after deciding its overlap policy against
 * the schedule's runs still RUNNING. Those are read from the store's listing of the function's
 * RUNNING runs (one query per firing; no per-schedule item, so a firing writes only its run):
 * `skip` starts nothing while one runs; `cancelPrevious` cancels them first; `allowAll` starts
 * regardless. `bufferOne` needs a durable slot to wait in (the flow-control queue of issue 26):
 * until then a firing that would wait is skipped, and the answer says so.
 */
export class ScheduleReceiver {
  private readonly options: ScheduleReceiverOptions;

  constructor(options: ScheduleReceiverOptions) {
    this.options = options;
  }

  /** Handles `event` for `functionName` (the function, as a request's start names it). */
  async receive(event: ScheduleFiringEvent, functionName: string): Promise<ScheduleFiringResponse> {
    const { name, scheduledTime, overlap, input } = event.durableLambda;
    const runKey = scheduleRunKey(name, scheduledTime);
    const running = (await this.runningOf(functionName, name)).filter((r) => r.runKey !== runKey);
    // Its own run already there (a duplicate firing) is found by its key below, whatever else runs.
    const decision = decideOverlap(
      overlap,
      running.map((r) => r.runId),
    );
    if (decision.action !== 'start') {
      const mine = await this.findOwn(functionName, name, runKey);
      if (!mine) return { schedule: name, skipped: true, running: running.map((r) => r.runId) };
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
    const started = await this.options.engine.startRun({
      functionName,
      ...(input === undefined ? {} : { input }),
      runKey,
    });
    await this.kick(started.run);
    return { schedule: name, runId: started.run.runId, created: started.created, cancelled };
  }

  private async runningOf(functionName: string, schedule: string): Promise<RunRecord[]> {
    const prefix = scheduleKeyPrefix(schedule);
    const out: RunRecord[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.options.engine.listRuns({
        functionName,
        status: 'RUNNING',
        limit: 100,
        ...(cursor ? { cursor } : {}),
      });
      out.push(...page.runs.filter((r) => r.runKey?.startsWith(prefix)));
      cursor = page.cursor;
    } while (cursor);
    return out;
  }

  private async findOwn(functionName: string, schedule: string, runKey: string): Promise<boolean> {
    return (await this.runningOf(functionName, schedule)).some((r) => r.runKey === runKey);
  }

  private kick(run: RunRecord): Promise<void> {
    return kickNewRun(this.options, run);
  }
}
