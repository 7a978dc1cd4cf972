import { type Duration, durationToMs, ONE_DAY_MS } from '../duration';
import { JitterStrategy } from './jitter';
import {
  createLinearRetryStrategy,
  createRetryStrategy,
  type RetryStrategy,
  type RetryStrategyConfig,
} from './strategy';

/**
 * The configuration behind {@link retryPresets}.default. The plain `retry` policy takes its
 * left-out fields from here, so the two cannot drift apart.
 */
export const DEFAULT_RETRY_CONFIG = Object.freeze({
  maxAttempts: 6,
  initialDelay: Object.freeze({ seconds: 5 }),
  maxDelay: Object.freeze({ seconds: 60 }),
  backoffRate: 2,
  jitter: JitterStrategy.FULL,
}) satisfies RetryStrategyConfig;

const FIXED_ATTEMPTS = 5;

/**
 * A strategy of 5 attempts with the same `interval` (1 s to 24 h, default 5 s) before each
 * retry and no jitter.
 * @throws InvalidArgumentError (field `interval`) for a bad interval.
 */
function fixed(interval: Duration = { seconds: 5 }): RetryStrategy {
  // Validated here so an error names `interval`, not a field of the config built from it.
  durationToMs(interval, 'interval', { maxMs: ONE_DAY_MS });
  return createRetryStrategy({
    maxAttempts: FIXED_ATTEMPTS,
    initialDelay: interval,
    maxDelay: interval,
    backoffRate: 1,
    jitter: JitterStrategy.NONE,
  });
}

/** Ready-made strategies (compat: `default`, `linear`, `noRetry`; the rest follow AWS's Python SDK). */
export const retryPresets: Readonly<{
  /** 6 attempts, 5 s first delay, 60 s at most, ×2, FULL jitter. Used when a step configures nothing. */
  default: RetryStrategy;
  /** 6 attempts with delays of 1, 2, 3, 4, 5 s, no jitter. */
  linear: RetryStrategy;
  /** 1 attempt: the first error fails the step. */
  noRetry: RetryStrategy;
  /** 3 attempts, 5 s first delay, 5 min at most, ×2, HALF jitter: for brief blips. */
  transient: RetryStrategy;
  /** 5 attempts, 5 s first delay, 5 min at most, ×2, FULL jitter: for a resource that is not ready yet. */
  resourceAvailability: RetryStrategy;
  /** 10 attempts, 1 s first delay, 60 s at most, ×1.5, no jitter. */
  critical: RetryStrategy;
  /** 5 attempts at a constant `interval` (default 5 s), no jitter. */
  fixed: (interval?: Duration) => RetryStrategy;
}> = Object.freeze({
  default: createRetryStrategy(DEFAULT_RETRY_CONFIG),
  linear: createLinearRetryStrategy({
    maxAttempts: 6,
    initialDelay: { seconds: 1 },
    increment: { seconds: 1 },
    jitter: JitterStrategy.NONE,
  }),
  noRetry: createRetryStrategy({ maxAttempts: 1 }),
  transient: createRetryStrategy({ maxAttempts: 3, backoffRate: 2, jitter: JitterStrategy.HALF }),
  resourceAvailability: createRetryStrategy({
    maxAttempts: 5,
    initialDelay: { seconds: 5 },
    maxDelay: { minutes: 5 },
    backoffRate: 2,
  }),
  critical: createRetryStrategy({
    maxAttempts: 10,
    initialDelay: { seconds: 1 },
    maxDelay: { seconds: 60 },
    backoffRate: 1.5,
    jitter: JitterStrategy.NONE,
  }),
  fixed,
});

/** The strategy a step uses when neither it nor its function configures retries. */
export const DEFAULT_RETRY_STRATEGY: RetryStrategy = retryPresets.default;
