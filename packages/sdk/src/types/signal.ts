import type { Duration } from './duration';
import type { Serdes } from './serdes';

/** Options of `ctx.waitForSignal` (ours). */
export interface WaitForSignalOptions<T = unknown> {
  /**
   * The longest the wait lasts (up to a year); past it the wait rejects with `SignalTimeoutError`
   * (code `signal_timeout`). Without it the wait lasts as long as the run.
   */
  timeout?: Duration;
  /** Reads the signal's payload (JSON text, or undefined when it carried none); by default `JSON.parse`. */
  serdes?: Pick<Serdes<T>, 'deserialize'>;
}
