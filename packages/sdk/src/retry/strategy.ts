import { type Duration, describe, durationToMs, ONE_DAY_MS } from '../duration';
import { findInChain, InvalidArgumentError, NonRetriableError, RetryAfterError } from '../errors';
import type {
  CommonRetryConfig,
  ErrorClass,
  LinearRetryStrategyConfig,
  RetryStrategy,
  RetryStrategyConfig,
} from '../types/retry';
import { applyJitter, isJitterStrategy, JitterStrategy } from './jitter';

export type {
  ErrorClass,
  LinearRetryStrategyConfig,
  RetryDecision,
  RetryStrategy,
  RetryStrategyConfig,
} from '../types/retry';

const DEFAULT_MAX_DELAY: Duration = { minutes: 5 };

/**
 * Builds an exponential-backoff strategy: before retry n the delay is
 * `min(initialDelay × backoffRate^(n−1), maxDelay)`, jittered, in whole seconds, at least 1 s.
 * Every field is validated here, so a bad config fails where it is written, not at the first error.
 * @throws InvalidArgumentError naming the bad field.
 */
export function createRetryStrategy(config: RetryStrategyConfig = {}): RetryStrategy {
  const common = parseCommon(config, 3, { seconds: 5 });
  const backoffRate = config.backoffRate ?? 2;
  if (typeof backoffRate !== 'number' || !Number.isFinite(backoffRate) || backoffRate < 1) {
    throw new InvalidArgumentError('backoffRate', `must be a finite number >= 1, got ${describe(backoffRate)}`);
  }
  return buildStrategy(common, (attemptCount) =>
    exponentialDelayMs(common.initialMs, backoffRate, common.maxMs, attemptCount),
  );
}

/**
 * Builds a linear-backoff strategy: before retry n the delay is
 * `min(initialDelay + increment × (n−1), maxDelay)`, jittered, in whole seconds, at least 1 s.
 * @throws InvalidArgumentError naming the bad field.
 */
export function createLinearRetryStrategy(config: LinearRetryStrategyConfig = {}): RetryStrategy {
  const common = parseCommon(config, 6, { seconds: 1 });
  // Zero is allowed so a linear strategy can also express a constant interval.
  const incrementMs = durationToMs(config.increment ?? { seconds: 1 }, 'increment', {
    allowZero: true,
    maxMs: ONE_DAY_MS,
  });
  return buildStrategy(common, (attemptCount) =>
    Math.min(common.initialMs + incrementMs * (attemptCount - 1), common.maxMs),
  );
}

/**
 * `min(initialMs × rate^(attempt−1), maxMs)`, guarded against overflow: a huge exponent gives
 * Infinity, and 0 × Infinity would be NaN rather than 0.
 * @internal shared with the plain retry policy.
 */
export function exponentialDelayMs(initialMs: number, rate: number, maxMs: number, attempt: number): number {
  if (initialMs === 0) return 0;
  return Math.min(initialMs * rate ** (attempt - 1), maxMs);
}

/**
 * Whether an error passes the message/type filters. Neither filter set means every error passes;
 * an explicitly empty list matches nothing (as in AWS's SDK).
 * @internal
 */
export function matchesFilters(
  error: Error,
  retryableErrors: ReadonlyArray<string | RegExp> | undefined,
  retryableErrorTypes: ReadonlyArray<ErrorClass> | undefined,
): boolean {
  // A RetryAfterError asks for a retry explicitly, so no filter should veto it.
  if (findInChain(error, RetryAfterError)) return true;
  if (retryableErrors === undefined && retryableErrorTypes === undefined) return true;
  const message = typeof error?.message === 'string' ? error.message : '';
  // search() ignores lastIndex, so a /g or /y pattern gives the same answer on every call (test() would not).
  const byMessage = (retryableErrors ?? []).some((p) =>
    typeof p === 'string' ? message.includes(p) : message.search(p) !== -1,
  );
  return byMessage || (retryableErrorTypes ?? []).some((type) => error instanceof type);
}

interface ParsedCommon {
  maxAttempts: number;
  initialMs: number;
  maxMs: number;
  jitter: JitterStrategy;
  retryableErrors: ReadonlyArray<string | RegExp> | undefined;
  retryableErrorTypes: ReadonlyArray<ErrorClass> | undefined;
  random: () => number;
}

function parseCommon(config: unknown, defaultAttempts: number, defaultInitial: Duration): ParsedCommon {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw new InvalidArgumentError('config', `must be an object, got ${describe(config)}`);
  }
  const c = config as CommonRetryConfig;
  const maxAttempts = c.maxAttempts ?? defaultAttempts;
  if (typeof maxAttempts !== 'number' || !Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new InvalidArgumentError('maxAttempts', `must be a whole number >= 1, got ${describe(maxAttempts)}`);
  }
  // Delays are capped at a day, like every other step delay; the 1 s floor makes a zero start harmless.
  const initialMs = durationToMs(c.initialDelay ?? defaultInitial, 'initialDelay', {
    allowZero: true,
    maxMs: ONE_DAY_MS,
  });
  const maxMs = durationToMs(c.maxDelay ?? DEFAULT_MAX_DELAY, 'maxDelay', { maxMs: ONE_DAY_MS });
  const jitter = c.jitter ?? JitterStrategy.FULL;
  if (!isJitterStrategy(jitter)) {
    throw new InvalidArgumentError('jitter', `must be JitterStrategy.FULL, HALF or NONE, got ${describe(jitter)}`);
  }
  const retryableErrors = c.retryableErrors;
  if (retryableErrors !== undefined) {
    if (
      !Array.isArray(retryableErrors) ||
      !retryableErrors.every((p) => typeof p === 'string' || p instanceof RegExp)
    ) {
      throw new InvalidArgumentError('retryableErrors', 'must be an array of strings and RegExp patterns');
    }
  }
  const retryableErrorTypes = c.retryableErrorTypes;
  if (retryableErrorTypes !== undefined) {
    if (!Array.isArray(retryableErrorTypes) || !retryableErrorTypes.every((t) => typeof t === 'function')) {
      throw new InvalidArgumentError('retryableErrorTypes', 'must be an array of error classes');
    }
  }
  if (c.random !== undefined && typeof c.random !== 'function') {
    throw new InvalidArgumentError(
      'random',
      `must be a function returning a number in [0, 1), got ${describe(c.random)}`,
    );
  }
  return {
    maxAttempts,
    initialMs,
    maxMs,
    jitter,
    // Copies, so mutating the caller's arrays later cannot change a strategy already built.
    retryableErrors: retryableErrors === undefined ? undefined : [...retryableErrors],
    retryableErrorTypes: retryableErrorTypes === undefined ? undefined : [...retryableErrorTypes],
    // Looked up at each call rather than captured, so a test can stub Math.random for the presets.
    random: c.random ?? (() => Math.random()),
  };
}

function buildStrategy(p: ParsedCommon, baseDelayMs: (attemptCount: number) => number): RetryStrategy {
  return (error, attemptCount) => {
    if (!Number.isInteger(attemptCount) || attemptCount < 1) {
      throw new InvalidArgumentError('attemptCount', `must be a whole number >= 1, got ${describe(attemptCount)}`);
    }
    if (attemptCount >= p.maxAttempts) return { shouldRetry: false };
    // Also checked by the step runtime; repeated here so the strategy is right when called on its own.
    if (findInChain(error, NonRetriableError)) return { shouldRetry: false };
    if (!matchesFilters(error, p.retryableErrors, p.retryableErrorTypes)) return { shouldRetry: false };
    const jittered = applyJitter(baseDelayMs(attemptCount), p.jitter, p.random);
    // Durations are whole seconds; the floor keeps FULL jitter from producing an immediate retry.
    return { shouldRetry: true, delay: { seconds: Math.max(1, Math.round(jittered / 1000)) } };
  };
}
