import type { DurableBackend } from '@durable-lambda/protocol';
import type { Duration } from './duration';
import type { LogSink } from './logger';
import type { DurableInstrumentationPlugin } from './plugin';
import type { StepDefaults } from './step';

/** Configuration of `withDurableExecution`. */
export interface DurableExecutionConfig extends StepDefaults {
  /**
   * Where runs live. Left out, the registered backend: `import '@durable-lambda/aws/register'`
   * in the function's entry registers the production backend (DynamoDB, EventBridge Scheduler,
   * Lambda, configured from the environment), and a `DurableFunction` construct's bundle does so
   * by itself. With neither, an invocation fails with an `InvalidArgumentError` naming this field.
   */
  backend?: DurableBackend;
  /** Waits and backoffs due within this many ms sleep in-process instead of suspending. Default 5000. */
  inProcessWaitMs?: number;
  /**
   * Opt-in, trading a guarantee for a write: an at-least-once step's START is written only once
   * the attempt has run this long (ms). Left out (the default), every attempt's START is durable
   * before its code runs, so an invocation lost inside any step is a failed attempt of that step
   * (`invocation_lost`) and the next attempt gets a new number and idempotency key. With
   * `lazyStartMs`, a crash inside a step shorter than it re-runs the same attempt with the same
   * key and spends no retry budget (once per run: after a lost invocation, starts are eager).
   * The default costs no extra write request per step on DynamoDB (a step's outcome rides with
   * the next step's START), only the START's item in that transaction.
   */
  lazyStartMs?: number;
  /** Largest serialized result of a step, context or run, in bytes. Default 6 MiB. */
  maxPayloadBytes?: number;
  /** Where log entries go; one JSON line per entry on stdout by default. */
  logSink?: LogSink;
  /**
   * Instrumentation plugins (AWS's API), in order; those named in `DURABLE_EXECUTION_PLUGINS`
   * are loaded and follow them.
   */
  plugins?: DurableInstrumentationPlugin[];
  /** Accepted for AWS compatibility (`childOperationsDepth`); children are always kept here. */
  pluginsConfig?: { childOperationsDepth?: number };
  /**
   * Flow control per key: at most `limit` runs of one key run at once; the others wait, durably,
   * as `QUEUED`, and start by `priority` (higher first), then oldest first, as slots free. `key`
   * is a function of the run's input (a tenant, a customer, a resource), asked before the handler
   * runs. Needs a backend that admits runs (ours: memory, SQLite, DynamoDB).
   */
  concurrency?: KeyConcurrencyConfig;
  /**
   * At most `limit` runs of a key start per `period`; later ones wait, durably, as `QUEUED`, for
   * their turn (starts are spaced `period / limit` apart; `burst` may start at once, default 1).
   */
  throttle?: ThrottleConfig;
  /**
   * At most `limit` runs of a key start in any window of `period` (exactly: a sliding window); one
   * past it ends at once, `CANCELLED` (`rate_limited`).
   */
  rateLimit?: RateLimitConfig;
  /**
   * The last run of a key in a quiet `period` runs; each earlier one ends `CANCELLED`
   * (`debounced`). Each run waits `period` after it arrives (`timeout`: at most this long after
   * the first run of the window).
   */
  debounce?: DebounceConfig;
  /**
   * One run of a key at a time, with no queue: a run arriving while another runs is skipped
   * (`mode: 'skip'`, it ends `CANCELLED`, `singleton_running`) or cancels the running one
   * (`mode: 'cancel'`). Not with `concurrency` (a singleton is a concurrency of 1).
   */
  singleton?: SingletonConfig;
}

/** A run's key under a gate, from its input: 1 to 256 characters. Left out: one key for the whole function. */
export type FlowKey = (event: unknown) => string;

/** See {@link DurableExecutionConfig.concurrency}. */
export interface KeyConcurrencyConfig {
  /** The run's key, from its input: 1 to 256 characters. */
  key: FlowKey;
  /** At most this many runs of one key at once: a whole number, 1 or more. */
  limit: number;
  /** A queued run's priority, from its input: a whole number, higher first (-1,000,000 to 1,000,000; default 0). */
  priority?: (event: unknown) => number;
}

/** See {@link DurableExecutionConfig.throttle}. */
export interface ThrottleConfig {
  key?: FlowKey;
  /** Starts per period: a whole number, 1 or more. */
  limit: number;
  /** At least 1 second, at most 7 days. */
  period: Duration;
  /** Starts that may go at once (1 to `limit`; default 1). */
  burst?: number;
}

/** See {@link DurableExecutionConfig.rateLimit}. */
export interface RateLimitConfig {
  key?: FlowKey;
  /** Starts in any window of `period`: a whole number, 1 to 1,000. */
  limit: number;
  /** At least 1 second, at most 7 days. */
  period: Duration;
}

/** See {@link DurableExecutionConfig.debounce}. */
export interface DebounceConfig {
  key?: FlowKey;
  /** The quiet window: at least 1 second, at most 7 days. */
  period: Duration;
  /** The longest a window may be extended, from its first run (at least `period`). */
  timeout?: Duration;
}

/** See {@link DurableExecutionConfig.singleton}. */
export interface SingletonConfig {
  key?: FlowKey;
  /** `skip` the new run, or `cancel` the running one. */
  mode: 'skip' | 'cancel';
}
