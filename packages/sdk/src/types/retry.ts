import type { Duration } from './duration';

/**
 * How a computed retry delay is randomized (compat with AWS's SDK). Randomizing spreads the
 * retries of many runs that failed together, so they do not all hit a recovering service at once.
 */
export const JitterStrategy = {
  /** Uniform between 0 and the computed delay. */
  FULL: 'FULL',
  /** Uniform between half the computed delay and the computed delay. */
  HALF: 'HALF',
  /** Exactly the computed delay. */
  NONE: 'NONE',
} as const;
/** One of {@link JitterStrategy}'s values. */
export type JitterStrategy = (typeof JitterStrategy)[keyof typeof JitterStrategy];

/** What a {@link RetryStrategy} decided after a failed attempt (compat with AWS's SDK). */
export interface RetryDecision {
  /** Whether to run another attempt. */
  shouldRetry: boolean;
  /** How long to wait before that attempt; left out on a retry, 1 second. */
  delay?: Duration;
}

/**
 * Decides whether a failed attempt is retried and after how long (compat with AWS's SDK).
 * `attemptCount` is 1-based: the number of attempts made so far, i.e. the one that just failed.
 */
export type RetryStrategy = (error: Error, attemptCount: number) => RetryDecision;

/** An error class, matched with `instanceof`; any constructor signature is accepted. */
export type ErrorClass = abstract new (...args: never[]) => Error;

/** Settings shared by `createRetryStrategy` and `createLinearRetryStrategy`. */
export interface CommonRetryConfig {
  /** Total attempts including the first one. */
  maxAttempts?: number;
  /** Delay before the first retry. */
  initialDelay?: Duration;
  /** Longest delay between attempts. Default `{ minutes: 5 }`. */
  maxDelay?: Duration;
  /** How the computed delay is randomized. Default {@link JitterStrategy.FULL}. */
  jitter?: JitterStrategy;
  /** Retry errors whose message contains one of these strings or matches one of these patterns. */
  retryableErrors?: ReadonlyArray<string | RegExp>;
  /** Retry errors that are instances of one of these classes. */
  retryableErrorTypes?: ReadonlyArray<ErrorClass>;
  /** Ours: the source of randomness for jitter, in [0, 1). Default `Math.random`; pass a seeded one in tests. */
  random?: () => number;
}

/** Configuration of `createRetryStrategy` (compat with AWS's SDK). */
export interface RetryStrategyConfig extends CommonRetryConfig {
  /** Total attempts including the first one. Default 3. */
  maxAttempts?: number;
  /** Delay before the first retry. Default `{ seconds: 5 }`. */
  initialDelay?: Duration;
  /** Factor applied to the delay after each retry, at least 1. Default 2. */
  backoffRate?: number;
}

/** Configuration of `createLinearRetryStrategy` (compat with AWS's SDK). */
export interface LinearRetryStrategyConfig extends CommonRetryConfig {
  /** Total attempts including the first one. Default 6. */
  maxAttempts?: number;
  /** Delay before the first retry. Default `{ seconds: 1 }`. */
  initialDelay?: Duration;
  /** Added to the delay after each retry. Default `{ seconds: 1 }`. */
  increment?: Duration;
}

/**
 * Ours: a plain retry policy object (seed 000). Fields left out keep the default strategy's
 * values: 6 attempts, 5000 ms first delay, 60000 ms at most, ×2, FULL jitter.
 */
export interface RetryPolicy {
  /** Total attempts including the first one, 1 to 100. */
  maxAttempts?: number;
  /** Delay before the first retry in ms, 0 or more. */
  initialMs?: number;
  /** Longest delay between attempts in ms, 0 to 24 hours. */
  maxMs?: number;
  /** Factor applied to the delay after each retry, 1 to 10. */
  multiplier?: number;
  /** How the computed delay is randomized. */
  jitter?: JitterStrategy;
}
