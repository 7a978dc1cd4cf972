import {
  type Clock,
  type OverlapPolicy,
  type ScheduleFiringEvent,
  type ScheduleFiringResponse,
  type Store,
  scheduleKeyPrefix,
} from '@durable-lambda/engine';

/** A schedule the dev server fires with timers (the same entry as the CDK's, `rate` in ms). */
export interface DevSchedule {
  name: string;
  /** Every this many ms, at whole multiples of it since the epoch. */
  rateMs: number;
  /** The run's input (a JSON value). */
  input?: unknown;
  /** Default `skip`. */
  overlap?: OverlapPolicy;
  /**
   * After downtime: `true` fires every firing missed since the schedule's last run (at most
   * {@link MAX_CATCH_UP}); `false` (default) fires none and waits for the next.
   */
  catchUp?: boolean;
}

/** Most missed firings one catch-up fires. */
export const MAX_CATCH_UP = 100;

/** How the timers wait (the dev server's: `setTimeout`; a test's: its virtual clock). */
export interface TimerPort {
  set(callback: () => void, ms: number): { cancel(): void };
}

/** What the timers need: the clock, the timers, the store (for the last firing), the firing's receiver. */
export interface ScheduleTimerDeps {
  clock: Clock;
  timers: TimerPort;
  store: Pick<Store, 'listRuns'>;
  fire(functionName: string, event: ScheduleFiringEvent): Promise<ScheduleFiringResponse>;
  onError?(error: unknown): void;
}

/** The firing times of `rateMs` in `(after, upTo]`, oldest first. */
export function firingsBetween(rateMs: number, after: number, upTo: number): number[] {
  const out: number[] = [];
  for (let t = Math.floor(after / rateMs) * rateMs + rateMs; t <= upTo; t += rateMs) out.push(t);
  return out;
}

/**
 * Fires a function's schedules with timers: each firing is the same event Scheduler delivers in
 * production (keyed by name and fire time: a firing repeated after a restart is the same run).
 * The last firing is read from the store (the newest run key of the schedule), so no state is
 * kept beside the runs; `catchUp` decides whether the firings missed while stopped are fired.
 */
export class ScheduleTimers {
  private readonly deps: ScheduleTimerDeps;
  private readonly pending = new Set<{ cancel(): void }>();
  private stopped = false;

  constructor(deps: ScheduleTimerDeps) {
    this.deps = deps;
  }

  /** Starts the timers of `schedules` of `functionName`, after catching up where asked. */
  async start(functionName: string, schedules: readonly DevSchedule[]): Promise<void> {
    for (const schedule of schedules) {
      if (!(Number.isInteger(schedule.rateMs) && schedule.rateMs >= 1_000)) {
        throw new Error(
          `schedule ${JSON.stringify(schedule.name)}: rateMs must be a whole number of ms, at least 1000`,
        );
      }
      const now = this.deps.clock.now();
      if (schedule.catchUp) {
        const last = await this.lastFiring(functionName, schedule.name);
        if (last !== undefined) {
          for (const at of firingsBetween(schedule.rateMs, last, now).slice(-MAX_CATCH_UP)) {
            await this.fireAt(functionName, schedule, at);
          }
        }
      }
      this.arm(functionName, schedule, now);
    }
  }

  /** Cancels every timer. */
  stop(): void {
    this.stopped = true;
    for (const timer of this.pending) timer.cancel();
    this.pending.clear();
  }

  private arm(functionName: string, schedule: DevSchedule, after: number): void {
    if (this.stopped) return;
    const [next] = firingsBetween(schedule.rateMs, after, after + schedule.rateMs);
    const at = next as number;
    const timer = this.deps.timers.set(
      () => {
        this.pending.delete(timer);
        this.fireAt(functionName, schedule, at)
          .catch((error: unknown) => this.deps.onError?.(error))
          .finally(() => this.arm(functionName, schedule, at));
      },
      Math.max(0, at - this.deps.clock.now()),
    );
    this.pending.add(timer);
  }

  private fireAt(functionName: string, schedule: DevSchedule, at: number): Promise<ScheduleFiringResponse> {
    return this.deps.fire(functionName, {
      durableLambda: {
        action: 'schedule',
        name: schedule.name,
        scheduledTime: new Date(at).toISOString(),
        overlap: schedule.overlap ?? 'skip',
        ...(schedule.input === undefined ? {} : { input: JSON.stringify(schedule.input) }),
      },
    });
  }

  private async lastFiring(functionName: string, name: string): Promise<number | undefined> {
    const prefix = scheduleKeyPrefix(name);
    let last: number | undefined;
    let cursor: string | undefined;
    do {
      const page = await this.deps.store.listRuns({ functionName, limit: 100, ...(cursor ? { cursor } : {}) });
      for (const run of page.runs) {
        if (!run.runKey?.startsWith(prefix)) continue;
        const at = Date.parse(run.runKey.slice(prefix.length));
        if (Number.isFinite(at) && (last === undefined || at > last)) last = at;
      }
      cursor = page.cursor;
    } while (cursor);
    return last;
  }
}
