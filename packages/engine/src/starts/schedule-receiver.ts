import { type QueueDeps, slotOf, slotStore } from '../concurrency-queue';
import { DEFAULT_QUEUE_RECHECK_MS } from '../concurrency-slots';
import type { Engine } from '../engine';
import type { Clock, Invoker, Waker } from '../ports';
import { runIdFor } from '../run-ids';
import type { RunRecord } from '../run-record';
import { kickNewRun } from './kick-new-run';
import { scheduleBufferKey, startIfClear } from './schedule-buffer';
import { decideOverlap, type ScheduleFiringEvent, scheduleRunKey } from './schedule-events';
import { nameScheduleRuns, readScheduleRuns, scheduleGate } from './schedule-register';

/** How often a firing decides again after another firing of its schedule wrote the register first. */
const ATTEMPTS = 10;

/** `{ buffered: true }` for a run waiting behind its schedule's run. */
function bufferedMark(run: RunRecord): { buffered?: true } {
  return run.status === 'QUEUED' ? { buffered: true } : {};
}

/** The answer to a firing: the run it started (or buffered) or found, or why it started none. */
export type ScheduleFiringResponse =
  | { schedule: string; runId: string; created: boolean; cancelled: string[]; buffered?: true }
  | { schedule: string; skipped: true; running: string[] };

/** What a {@link ScheduleReceiver} reads and starts runs through. */
export interface ScheduleReceiverOptions {
  engine: Pick<Engine, 'startRun' | 'cancelRun' | 'store'>;
  invoker?: Invoker;
  waker: Waker;
  clock: Clock;
  report?(error: unknown): void;
  /** How long a buffered run waits before the reconciler re-checks it, ms. Default 15 minutes. */
  queueRecheckMs?: number;
}

/**
 * Starts the run of a schedule's firing, keyed by the function, the schedule's name and the
 * firing's time (a duplicate firing finds its run and starts nothing), after deciding its overlap
 * policy against the schedule's runs still RUNNING or waiting, which the schedule's register names
 * (`schedule-register.ts`: one read, one per live run, one write per firing that starts a run,
 * however many runs the function has): `skip` starts nothing while one runs; `cancelPrevious`
 * cancels them first; `bufferOne` starts its run QUEUED behind them, at most one
 * (`schedule-buffer.ts`); `allowAll` starts regardless, and reads and records nothing (runs it
 * started are not seen by a policy the schedule is changed to later).
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
    const request = { functionName, ...(input === undefined ? {} : { input }), runKey };
    // `allowAll` decides nothing on the runs: it reads and records none (a duplicate firing finds
    // its run by its key).
    if (overlap === 'allowAll') return this.start(request, name, []);
    const { store } = this.options.engine;
    const gate = scheduleGate(functionName, name);
    const ownId = runIdFor(runKey);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const { version, live } = await readScheduleRuns(store, gate);
      const own = live.find((r) => r.runId === ownId);
      // A duplicate firing: its run is there, started or buffered.
      if (own) return { schedule: name, runId: own.runId, created: false, cancelled: [], ...bufferedMark(own) };
      const running = live.filter((r) => r.status === 'RUNNING');
      const waiting = live.filter((r) => r.status === 'QUEUED').length;
      const decision = decideOverlap(
        overlap,
        running.map((r) => r.runId),
        waiting,
      );
      if (decision.action === 'skip') return { schedule: name, skipped: true, running: running.map((r) => r.runId) };
      const cancelled = decision.action === 'start' ? await this.cancel(decision.cancel, name, runKey) : [];
      const kept = live.filter((r) => !cancelled.includes(r.runId)).map((r) => r.runId);
      // Named before it starts: a crash in between leaves a name of no run, never a run unseen.
      if (!(await nameScheduleRuns(store, gate, version, [...kept, ownId], this.options.clock.now()))) continue;
      if (decision.action === 'buffer') return this.buffer(request, name, running);
      return this.start(request, name, cancelled);
    }
    throw new Error(
      `durable-lambda: schedule ${JSON.stringify(name)} is fired too often at once to decide its overlap`,
    );
  }

  /** Cancels the schedule's runs `runIds` (`cancelPrevious`), idempotent by the firing; those ended meanwhile are left. */
  private async cancel(runIds: readonly string[], name: string, runKey: string): Promise<string[]> {
    const cancelled: string[] = [];
    for (const runId of runIds) {
      try {
        await this.options.engine.cancelRun(runId, { actor: `schedule:${name}`, actionId: runKey });
        cancelled.push(runId);
      } catch (error) {
        // Ended meanwhile: nothing to cancel.
        this.options.report?.(error);
      }
    }
    return cancelled;
  }

  /** Starts (or finds) the firing's run and gets it going. */
  private async start(
    request: { functionName: string; input?: string; runKey: string },
    name: string,
    cancelled: string[],
  ): Promise<ScheduleFiringResponse> {
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
    const recheckAt = queuedAt + (this.options.queueRecheckMs ?? DEFAULT_QUEUE_RECHECK_MS);
    const started = await engine.startRun({ ...request, buffered: { key, behind, queuedAt, recheckAt } });
    if (started.run.status === 'QUEUED') await startIfClear(this.queueDeps(), started.run);
    return { schedule: name, runId: started.run.runId, created: started.created, cancelled: [], buffered: true };
  }

  private queueDeps(): QueueDeps {
    return { store: this.options.engine.store, clock: this.options.clock, wake: (run) => this.kick(run) };
  }

  private kick(run: RunRecord): Promise<void> {
    return kickNewRun(this.options, run);
  }
}
