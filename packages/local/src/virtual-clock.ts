import { performance } from 'node:perf_hooks';
import type { Clock } from '@durable-lambda/engine';

// Taken at load, so fake timers installed later (they patch `performance.now`) cannot move it.
const realNow: () => number = performance.now.bind(performance);

/**
 * A clock that only moves when told to. The test runner jumps it to each wake-up, so a
 * one-hour wait takes no real time, and nothing global (timers, `Date`) is touched.
 *
 * It can also follow real time for a while ({@link follow}): the test runner does so in real-time
 * mode (AWS's `skipTime: false`) and while a callback the test is handling waits on its deadline.
 */
export class VirtualClock implements Clock {
  private current: number;
  /** `realNow()` when the clock began following real time; undefined while it is still. */
  private anchor: number | undefined;

  constructor(start: number = Date.now()) {
    this.current = start;
  }

  now(): number {
    // The one branch the virtual path pays: a still clock reads a field.
    if (this.anchor === undefined) return this.current;
    return this.current + Math.floor(realNow() - this.anchor);
  }

  /** True while the clock follows real time. */
  get following(): boolean {
    return this.anchor !== undefined;
  }

  /** Starts following real time from the current reading (no-op when it already does). */
  follow(): void {
    if (this.anchor === undefined) this.anchor = realNow();
  }

  /** Stops following real time, holding the current reading. */
  hold(): void {
    if (this.anchor === undefined) return;
    this.current = this.now();
    this.anchor = undefined;
  }

  /** Moves to `time` if it is later than now. */
  advanceTo(time: number): void {
    const following = this.following;
    this.hold();
    if (time > this.current) this.current = time;
    if (following) this.follow();
  }

  /** Moves forward by `ms`. */
  advanceBy(ms: number): void {
    this.advanceTo(this.now() + Math.max(0, ms));
  }
}
