import {
  type Clock,
  CronError,
  type CronExpression,
  cronFiringsBetween,
  isTimeZone,
  nextCronFiring,
  type OverlapPolicy,
  parseCron,
  type ScheduleFiringEvent,
  type ScheduleFiringResponse,
  type Store,
  scheduleKeyPrefix,
} from '@durable-lambda/engine';

/**
 * A schedule the dev server fires with timers (the same entry as the CDK's, `rate` in ms).
 * Exactly one of `rateMs` and `cron`.
 */
export interface DevSchedule {
  name: string;
  /** Every this many ms, at whole multiples of it since the epoch. */
  rateMs?: number;
  /**
   * EventBridge Scheduler's six cron fields, e.g. `0 3 * * ? *` (minutes hours day-of-month month
   * day-of-week year; see `parseCron`), read in `timezone`, fired as Scheduler fires them (see
   * `nextCronFiring`, daylight saving time included).
   */
  cron?: string;
  /** The IANA time zone `cron` is read in. Default UTC. */
  timezone?: string;
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

/** The firing times of `rateMs` in `(after, upTo]`, oldest first (at most the last `limit`). */
export function firingsBetween(
  rateMs: number,
  after: number,
  upTo: number,
  limit = Number.POSITIVE_INFINITY,
): number[] {
  const out: number[] = [];
  // Only the last `limit` are wanted: start there, not at `after` (a long downtime, a short rate).
  const from = Number.isFinite(limit) ? Math.max(after, upTo - limit * rateMs) : after;
  for (let t = Math.floor(from / rateMs) * rateMs + rateMs; t <= upTo; t += rateMs) out.push(t);
  return out.slice(-limit);
}

/** Longest a Node timer waits (longer ones fire at once): a later firing is waited for in steps. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** When a schedule fires. */
interface FiringRule {
  /** Its next firing strictly after `after` (undefined: never again). */
  next(after: number): number | undefined;
  /** Its last `limit` firings in `(after, upTo]`, oldest first. */
  between(after: number, upTo: number, limit: number): number[];
}

/** The checked firing rule of `schedule` (a bad entry throws, naming it). */
function firingRule(schedule: DevSchedule): FiringRule {
  const where = `schedule ${JSON.stringify(schedule.name)}`;
  if ((schedule.rateMs === undefined) === (schedule.cron === undefined)) {
    throw new Error(`${where}: give exactly one of rateMs and cron`);
  }
  if (schedule.cron !== undefined) {
    let cron: CronExpression;
    const timezone = schedule.timezone ?? 'UTC';
    try {
      cron = parseCron(schedule.cron);
      if (!isTimeZone(timezone))
        throw new CronError('timezone', `${JSON.stringify(timezone)} is not an IANA time zone`);
    } catch (error) {
      if (error instanceof CronError) throw new Error(`${where}: ${error.message}`, { cause: error });
      throw error;
    }
    return {
      next: (after) => nextCronFiring(after, cron, timezone),
      between: (after, upTo, limit) => cronFiringsBetween(cron, after, upTo, timezone, limit),
    };
  }
  const rateMs = schedule.rateMs as number;
  if (!(Number.isInteger(rateMs) && rateMs >= 1_000)) {
    throw new Error(`${where}: rateMs must be a whole number of ms, at least 1000`);
  }
  return {
    next: (after) => Math.floor(after / rateMs) * rateMs + rateMs,
    between: (after, upTo, limit) => firingsBetween(rateMs, after, upTo, limit),
  };
}

/**
 * Fires a function's schedules (`rateMs` or `cron`) with timers: each firing is the same event
 * Scheduler delivers in production (keyed by name and fire time: a firing repeated after a
 * restart is the same run). The last firing is read from the store (the newest run key of the schedule), so no state is
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
    // Every entry checked before any fires: a bad one fails the start, naming it.
    const rules = schedules.map((schedule) => firingRule(schedule));
    for (const [i, schedule] of schedules.entries()) {
      const rule = rules[i] as FiringRule;
      const now = this.deps.clock.now();
      if (schedule.catchUp) {
        const last = await this.lastFiring(functionName, schedule.name);
        if (last !== undefined) {
          for (const at of rule.between(last, now, MAX_CATCH_UP)) await this.fireAt(functionName, schedule, at);
        }
      }
      this.arm(functionName, schedule, rule, now);
    }
  }

  /** Cancels every timer. */
  stop(): void {
    this.stopped = true;
    for (const timer of this.pending) timer.cancel();
    this.pending.clear();
  }

  private arm(functionName: string, schedule: DevSchedule, rule: FiringRule, after: number): void {
    if (this.stopped) return;
    const at = rule.next(after);
    if (at === undefined) return;
    this.waitFor(at, () =>
      this.fireAt(functionName, schedule, at)
        .catch((error: unknown) => this.deps.onError?.(error))
        .finally(() => this.arm(functionName, schedule, rule, at)),
    );
  }

  /** Runs `then` once the clock reaches `at`, in timer steps of at most {@link MAX_TIMER_MS}. */
  private waitFor(at: number, then: () => void): void {
    if (this.stopped) return;
    const timer = this.deps.timers.set(
      () => {
        this.pending.delete(timer);
        if (this.deps.clock.now() < at) this.waitFor(at, then);
        else then();
      },
      Math.min(MAX_TIMER_MS, Math.max(0, at - this.deps.clock.now())),
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
    const prefix = scheduleKeyPrefix(functionName, name);
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
