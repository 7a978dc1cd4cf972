import { clearTimeout, setTimeout } from 'node:timers';
import { type Clock, systemClock, type WakeRequest, type Waker } from '@durable-lambda/engine';
import type { WakeUpTable } from './sqlite-wake-ups';

/** The longest delay `setTimeout` takes (about 24.8 days); longer ones are re-armed in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Options of a {@link TimerWaker}. */
export interface TimerWakerOptions {
  /** Where pending wake-ups are kept (e.g. `SqliteStore.wakeUps`), so they outlive the process. */
  wakeUps: WakeUpTable;
  /**
   * Called when a wake-up is due; the wake-up is forgotten once the returned promise settles
   * (so one cut short by a crash fires again after a restart).
   */
  fire(request: WakeRequest): void | Promise<void>;
  /** Whose time `WakeRequest.at` is in. Default: system time. */
  clock?: Clock;
  /** Where failures of `fire` or of the table go. Default: `console.error`. */
  onError?(error: unknown, request: WakeRequest): void;
}

interface Firing {
  /** The same wake-up was asked for again while firing: fire once more afterwards. */
  again: boolean;
}

/**
 * A {@link Waker} on real timers whose wake-ups are persisted: each is stored in a
 * {@link WakeUpTable} first, armed with a timer while the waker is started, and deleted once
 * fired or cancelled. `start()` re-arms every stored wake-up (past-due ones fire at once), so a
 * process stopped during a wait resumes the run when started again. The same run, time and
 * reason is stored and fired once. Timers keep the process alive until `stop()`.
 */
export class TimerWaker implements Waker {
  private readonly table: WakeUpTable;
  private readonly fire: (request: WakeRequest) => void | Promise<void>;
  private readonly clock: Clock;
  private readonly onError: (error: unknown, request: WakeRequest) => void;
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly firing = new Map<string, Firing>();
  private started = false;

  constructor(options: TimerWakerOptions) {
    this.table = options.wakeUps;
    this.fire = options.fire;
    this.clock = options.clock ?? systemClock;
    this.onError =
      options.onError ??
      ((error, request) => console.error(`durable-lambda: wake-up of run ${request.runId} failed`, error));
  }

  /** Whether timers are armed. */
  get running(): boolean {
    return this.started;
  }

  /** Stores the wake-up and, while started, arms its timer. */
  async wakeAt(request: WakeRequest): Promise<void> {
    const stored: WakeRequest = {
      runId: request.runId,
      functionName: request.functionName,
      at: request.at,
      reason: request.reason,
    };
    this.table.add(stored);
    const firing = this.firing.get(keyOf(stored));
    // Asked again while it fires: it fires once more afterwards (or stays stored if stopped).
    if (firing) firing.again = true;
    else if (this.started) this.arm(stored);
  }

  /** Withdraws a pending wake-up (no-op when it already fired or never was). */
  async cancel(request: WakeRequest): Promise<void> {
    const key = keyOf(request);
    const timer = this.timers.get(key);
    if (timer) clearTimeout(timer);
    this.timers.delete(key);
    const firing = this.firing.get(key);
    if (firing) firing.again = false;
    this.table.remove(request);
  }

  /** Arms a timer for every stored wake-up; past-due ones fire at once (on a later turn). */
  start(): void {
    if (this.started) return;
    this.started = true;
    for (const request of this.table.list()) this.arm(request);
  }

  /** Clears every timer; the wake-ups stay stored for the next `start()`. Firings under way go on. */
  stop(): void {
    this.started = false;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private arm(request: WakeRequest): void {
    const key = keyOf(request);
    const firing = this.firing.get(key);
    if (firing) {
      firing.again = true;
      return;
    }
    if (this.timers.has(key)) return;
    const delay = Math.max(0, request.at - this.clock.now());
    const timer = setTimeout(
      () => {
        this.timers.delete(key);
        // Re-read the clock: a delay beyond setTimeout's limit waits in steps, and a timer may
        // fire a millisecond early; a wake-up that arrived before its time would find nothing due.
        if (this.clock.now() < request.at) this.arm(request);
        else void this.fireNow(key, request);
      },
      Math.min(delay, MAX_TIMER_MS),
    );
    this.timers.set(key, timer);
  }

  private async fireNow(key: string, request: WakeRequest): Promise<void> {
    const state: Firing = { again: false };
    this.firing.set(key, state);
    try {
      await this.fire(request);
    } catch (error) {
      // Forgotten all the same: a run the failed firing left due is left to the reconciler.
      this.onError(error, request);
    }
    this.firing.delete(key);
    try {
      if (!state.again) this.table.remove(request);
      else if (this.started) this.arm(request);
    } catch (error) {
      this.onError(error, request);
    }
  }
}

function keyOf(request: WakeRequest): string {
  return JSON.stringify([request.runId, request.at, request.reason]);
}
