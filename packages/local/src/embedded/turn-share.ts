import { setImmediate } from 'node:timers';
import { EngineInputError } from '@durable-lambda/engine';

/** Default {@link TurnShare} budget, ms. */
export const DEFAULT_TURN_BUDGET_MS = 8;
/** A window that waiting units earned by waiting lasts this many budgets at most. */
const FAIR_SHARE_CAP = 4;

/**
 * Shares the event loop between background work and everything else (HTTP requests above all).
 *
 * The embedded store's writes are synchronous (on either SQLite driver), and so is most of what an
 * invocation does around them: when hundreds of runs resume at once (a restart after a crash),
 * their steps end on the same timer tick and their checkpoints are flushed in the same
 * `setImmediate` phase, and Node runs all of that before it polls for I/O again. A request that
 * arrives meanwhile waits for the whole burst.
 *
 * `admit()` is awaited before each unit of background work (a commit, an invocation's replay). Within a window of
 * `budgetMs` of event-loop time it lets the unit go on at once; past it, units wait in the order
 * they came, and one callback per turn of the event loop (in its `setImmediate` phase, after Node
 * has polled I/O) opens a new window and lets them go one after another while it lasts, each once
 * the one before has run its first step. A request then waits for about one window of this work.
 * A window opens with the first unit let through and closes at the next `setImmediate` phase at
 * the latest. Nothing is dropped or reordered: the work is only spread over more turns.
 *
 * Nor are waiting units starved by other work: a window they waited for lasts as long as they
 * waited, when that is longer than `budgetMs`, up to four budgets (a loop kept busy by a flood of
 * requests gives them about half of its time, not `budgetMs` a turn).
 */
export class TurnShare {
  private readonly budgetMs: number;
  private readonly now: () => number;
  /** When the current window opened; undefined between windows. */
  private windowStart: number | undefined;
  /** How long the current window lasts, ms. */
  private windowMs = 0;
  /** Since when units have been waiting (the queue filled, or their last window ran out). */
  private waitingSince = 0;
  /** Counts windows, so a window's scheduled close never closes a later one. */
  private generation = 0;
  /** The callback that opens the next window is scheduled. */
  private armed = false;
  /** Units of work waiting for a window, in the order they asked. */
  private readonly waiting: Array<() => void> = [];

  /**
   * `budgetMs`: the window, ms of event-loop time (default {@link DEFAULT_TURN_BUDGET_MS});
   * `Infinity` lets every unit go on at once. `now`: the clock it is measured on (tests).
   * @throws `EngineInputError` (code `invalid_argument`, field `turnBudgetMs`, the store's option
   * that sets it) when the budget is not a number of ms, 0 or more.
   */
  constructor(options: { budgetMs?: number; now?: () => number } = {}) {
    const budget = options.budgetMs ?? DEFAULT_TURN_BUDGET_MS;
    if (typeof budget !== 'number' || !(budget >= 0)) {
      throw new EngineInputError(
        'turnBudgetMs',
        `must be a number of ms, 0 or more (Infinity: never wait), got ${budget}`,
      );
    }
    this.budgetMs = budget;
    this.now = options.now ?? (() => performance.now());
  }

  /** Units of work waiting for a later turn. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Undefined when the caller may run its unit of work now (no await needed): the current window
   * has budget left and nobody waits. Else a promise that settles when its turn comes, on a later
   * turn of the event loop, after I/O was polled.
   */
  admit(): Promise<void> | undefined {
    if (this.waiting.length === 0 && this.inWindow()) return undefined;
    return new Promise<void>((resolve) => {
      if (this.waiting.length === 0) this.waitingSince = this.now();
      this.waiting.push(resolve);
      this.arm();
    });
  }

  /** Whether a unit may run now: the open window has budget left, or none is open and one opens now. */
  private inWindow(): boolean {
    const now = this.now();
    if (this.windowStart === undefined) {
      this.open(now, this.budgetMs);
      return true;
    }
    return now - this.windowStart < this.windowMs;
  }

  private open(now: number, ms: number): void {
    this.windowStart = now;
    this.windowMs = ms;
    const generation = ++this.generation;
    // At the latest, a window closes at the next setImmediate phase.
    setImmediate(() => {
      if (this.generation === generation) this.windowStart = undefined;
    });
  }

  /** Schedules the next window: this turn's `setImmediate` phase, or the next turn's when called from it. */
  private arm(): void {
    if (this.armed) return;
    this.armed = true;
    setImmediate(this.openWindow);
  }

  private readonly openWindow = (): void => {
    this.armed = false;
    const now = this.now();
    this.open(now, Math.max(this.budgetMs, Math.min(now - this.waitingSince, FAIR_SHARE_CAP * this.budgetMs)));
    // A window lets one unit go whatever its budget (with 0, exactly one).
    this.release();
  };

  /** Lets the next unit go if the window allows, else schedules the next window. */
  private readonly releaseNext = (): void => {
    if (this.waiting.length === 0) return;
    if (this.inWindow()) this.release();
    else {
      this.waitingSince = this.now();
      this.arm();
    }
  };

  /** Lets the longest-waiting unit go, then (a microtask later) looks at the next. */
  private release(): void {
    if (this.waiting.length === 0) return;
    this.waiting.shift()?.();
    // Queued after the unit's continuation: the unit's first step (its commit) runs before the
    // window is looked at again.
    queueMicrotask(this.releaseNext);
  }
}
