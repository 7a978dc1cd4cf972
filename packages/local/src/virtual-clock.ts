import type { Clock } from '@durable-lambda/engine';

/**
 * A clock that only moves when told to. The test runner jumps it to each wake-up, so a
 * one-hour wait takes no real time, and nothing global (timers, `Date`) is touched.
 */
export class VirtualClock implements Clock {
  private current: number;

  constructor(start: number = Date.now()) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  /** Moves to `time` if it is later than now. */
  advanceTo(time: number): void {
    if (time > this.current) this.current = time;
  }

  /** Moves forward by `ms`. */
  advanceBy(ms: number): void {
    this.current += Math.max(0, ms);
  }
}
