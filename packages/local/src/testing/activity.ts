import * as timers from 'node:timers';
import type { VirtualClock } from '../virtual-clock';

// Taken at load, so a test that fakes timers later (as AWS's runner does with skipTime) cannot
// stall the driver's real-time waits.
const { setTimeout: realSetTimeout, clearTimeout: realClearTimeout } = timers;

/**
 * Signs of outside activity (a wake-up asked, a callback sent, a write) the driver waits on
 * when nothing is due, and its real-time sleeps, which such activity cuts short.
 */
export class Activity {
  /** Grows at every sign of outside activity. */
  count = 0;
  private kick: (() => void) | undefined;

  /** Resolves at the next sign of outside activity. */
  next(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.kick = resolve;
    });
  }

  /** Signals activity to whoever waits. */
  signal(): void {
    this.count += 1;
    const kick = this.kick;
    this.kick = undefined;
    kick?.();
  }

  /** Sleeps in real time (node:timers) until `clock` reads `at`, or until the next activity. */
  async sleepUntil(clock: VirtualClock, at: number): Promise<void> {
    const ms = at - clock.now();
    if (ms <= 0) return;
    let timer: ReturnType<typeof realSetTimeout> | undefined;
    await Promise.race([
      this.next(),
      new Promise<void>((resolve) => {
        timer = realSetTimeout(resolve, ms);
      }),
    ]);
    realClearTimeout(timer);
  }
}
