import { describe, durationToMs, ONE_YEAR_MS } from '../duration';
import { ErrorCode, withCode } from '../errors/codes';
import { InvalidArgumentError } from '../errors/invalid-argument';
import { DurableSdkError } from '../errors/sdk-error';
import { applyJitter, isJitterStrategy, JitterStrategy } from '../retry/jitter';
import { exponentialDelayMs } from '../retry/strategy';
import type { WaitForConditionDecision, WaitStrategyConfig } from '../types/wait-condition';

export type {
  WaitForConditionDecision,
  WaitForConditionWaitStrategyFunc,
  WaitStrategy,
  WaitStrategyConfig,
} from '../types/wait-condition';

/** AWS's defaults for {@link createWaitStrategy}. */
export const DEFAULT_WAIT_STRATEGY_CONFIG = Object.freeze({
  maxAttempts: 60,
  initialDelay: Object.freeze({ seconds: 5 }),
  maxDelay: Object.freeze({ seconds: 300 }),
  backoffRate: 1.5,
  jitter: JitterStrategy.FULL,
});

const CONFIG_KEYS = [
  'shouldContinuePolling',
  'maxAttempts',
  'initialDelay',
  'maxDelay',
  'backoffRate',
  'jitter',
  'timeoutSeconds',
  'random',
] as const;

/**
 * Thrown when a waitForCondition's `timeoutSeconds` would be passed by its next check; the
 * waitForCondition fails with it as the cause (code `wait_for_condition_exhausted`). Used-up
 * `maxAttempts` throw AWS's plain `Error` instead, with the same code.
 */
export class WaitForConditionExhaustedError extends DurableSdkError<string> {
  /** Stable code (non-enumerable, so the error compares equal to one without it). */
  declare readonly code: string;
  constructor(message: string) {
    super(message);
    this.name = 'WaitForConditionExhaustedError';
    withCode(this, ErrorCode.WAIT_FOR_CONDITION_EXHAUSTED);
  }
}

/** Where a strategy of {@link createWaitStrategy} keeps its `timeoutSeconds` (in ms) for the runtime. */
export const WAIT_STRATEGY_TIMEOUT_MS: unique symbol = Symbol('durable-lambda.waitStrategyTimeoutMs');

/**
 * The `timeoutSeconds` of a strategy built by {@link createWaitStrategy}, in ms; undefined for
 * other strategies and when none was set.
 * @internal
 */
export function waitStrategyTimeoutMs(strategy: unknown): number | undefined {
  const value = (strategy as { [WAIT_STRATEGY_TIMEOUT_MS]?: unknown })[WAIT_STRATEGY_TIMEOUT_MS];
  return typeof value === 'number' ? value : undefined;
}

/**
 * Builds a polling strategy for `waitForCondition` (compat with AWS's SDK): stop as soon as
 * `shouldContinuePolling(state)` is false; otherwise check again after
 * `min(initialDelay × backoffRate^(attempt−1), maxDelay)`, jittered, in whole seconds, at least
 * 1 s. After `maxAttempts` checks it throws {@link WaitForConditionExhaustedError}, which fails
 * the waitForCondition with code `wait_for_condition_exhausted`.
 * Every field is validated here, so a bad config fails where it is written.
 * @throws InvalidArgumentError naming the bad field.
 */
export function createWaitStrategy<T>(
  config: WaitStrategyConfig<T>,
): (result: T, attemptsMade: number) => WaitForConditionDecision {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw new InvalidArgumentError('config', `must be an object with shouldContinuePolling, got ${describe(config)}`);
  }
  for (const key of Object.keys(config)) {
    if (!(CONFIG_KEYS as readonly string[]).includes(key)) {
      throw new InvalidArgumentError(key, `unknown option (allowed: ${CONFIG_KEYS.join(', ')})`);
    }
  }
  const { shouldContinuePolling } = config;
  if (typeof shouldContinuePolling !== 'function') {
    throw new InvalidArgumentError(
      'shouldContinuePolling',
      `must be a function (state) => boolean, got ${describe(shouldContinuePolling)}`,
    );
  }
  const maxAttempts = config.maxAttempts ?? DEFAULT_WAIT_STRATEGY_CONFIG.maxAttempts;
  if (typeof maxAttempts !== 'number' || !Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new InvalidArgumentError('maxAttempts', `must be a whole number >= 1, got ${describe(maxAttempts)}`);
  }
  // Zero is accepted as a start, as in createRetryStrategy: the 1 s floor applies anyway.
  const initialMs = durationToMs(config.initialDelay ?? DEFAULT_WAIT_STRATEGY_CONFIG.initialDelay, 'initialDelay', {
    allowZero: true,
    maxMs: ONE_YEAR_MS,
  });
  const maxMs = durationToMs(config.maxDelay ?? DEFAULT_WAIT_STRATEGY_CONFIG.maxDelay, 'maxDelay', {
    maxMs: ONE_YEAR_MS,
  });
  const backoffRate = config.backoffRate ?? DEFAULT_WAIT_STRATEGY_CONFIG.backoffRate;
  if (typeof backoffRate !== 'number' || !Number.isFinite(backoffRate) || backoffRate < 1) {
    throw new InvalidArgumentError('backoffRate', `must be a finite number >= 1, got ${describe(backoffRate)}`);
  }
  const jitter = config.jitter ?? DEFAULT_WAIT_STRATEGY_CONFIG.jitter;
  if (!isJitterStrategy(jitter)) {
    throw new InvalidArgumentError('jitter', `must be JitterStrategy.FULL, HALF or NONE, got ${describe(jitter)}`);
  }
  const { timeoutSeconds } = config;
  if (
    timeoutSeconds !== undefined &&
    (typeof timeoutSeconds !== 'number' ||
      !Number.isFinite(timeoutSeconds) ||
      timeoutSeconds <= 0 ||
      timeoutSeconds * 1000 > ONE_YEAR_MS)
  ) {
    throw new InvalidArgumentError(
      'timeoutSeconds',
      `must be a number above 0 and at most one year, got ${describe(timeoutSeconds)}`,
    );
  }
  if (config.random !== undefined && typeof config.random !== 'function') {
    throw new InvalidArgumentError(
      'random',
      `must be a function returning a number in [0, 1), got ${describe(config.random)}`,
    );
  }
  // Looked up at each call rather than captured, so a test can stub Math.random.
  const random = config.random ?? (() => Math.random());

  const strategy = (result: T, attemptsMade: number): WaitForConditionDecision => {
    if (!Number.isInteger(attemptsMade) || attemptsMade < 1) {
      throw new InvalidArgumentError('attemptsMade', `must be a whole number >= 1, got ${describe(attemptsMade)}`);
    }
    if (!shouldContinuePolling(result)) return { shouldContinue: false };
    if (attemptsMade >= maxAttempts) {
      // AWS's error: a plain Error with AWS's message (stored as ErrorType "Error"), so logs,
      // alerts and tests written against it keep matching; our code rides along unseen.
      throw withCode(
        new Error(`waitForCondition exceeded maximum attempts (${maxAttempts})`),
        ErrorCode.WAIT_FOR_CONDITION_EXHAUSTED,
      );
    }
    const jittered = applyJitter(exponentialDelayMs(initialMs, backoffRate, maxMs, attemptsMade), jitter, random);
    return { shouldContinue: true, delay: { seconds: Math.max(1, Math.round(jittered / 1000)) } };
  };
  if (timeoutSeconds !== undefined) {
    Object.defineProperty(strategy, WAIT_STRATEGY_TIMEOUT_MS, { value: timeoutSeconds * 1000 });
  }
  return strategy;
}
