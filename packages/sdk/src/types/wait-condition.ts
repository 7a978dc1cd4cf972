import type { Duration } from './duration';
import type { DurableLogger } from './logger';
import type { JitterStrategy } from './retry';
import type { Serdes } from './serdes';

/** What a waitForCondition's check receives (compat with AWS's SDK). */
export interface WaitForConditionContext {
  /** Logs with the operation's id and the check's attempt. */
  readonly logger: DurableLogger;
  /** The number of this check, 1-based. */
  readonly attempt: number;
}

/** Checks the condition: gets the current state, returns the new one (compat with AWS's SDK). */
export type WaitForConditionCheck<T> = (state: T, context: WaitForConditionContext) => Promise<T> | T;

/** Compat alias of {@link WaitForConditionCheck} (AWS's name). */
export type WaitForConditionCheckFunc<T, _Logger = unknown> = WaitForConditionCheck<T>;

/**
 * What a wait strategy decided after a check (compat with AWS's SDK): poll again after `delay`,
 * or stop and return the state.
 */
export type WaitForConditionDecision = { shouldContinue: true; delay: Duration } | { shouldContinue: false };

/**
 * Decides, after each check of a `waitForCondition`, whether to check again and after how long.
 * `attempt` is 1-based: the number of checks made so far. A continue without a `delay` waits
 * 1 second; a delay must be 1 second to 1 year, like a wait. A strategy that throws fails the
 * waitForCondition with that error as the cause.
 */
export type WaitStrategy<T> = (state: T, attempt: number) => { shouldContinue: boolean; delay?: Duration };

/** Compat alias of {@link WaitStrategy} (AWS's name). */
export type WaitForConditionWaitStrategyFunc<T> = WaitStrategy<T>;

/** Configuration of `context.waitForCondition` (compat with AWS's SDK). */
export interface WaitForConditionConfig<T> {
  /** Decides after each check whether to check again and when (see `createWaitStrategy`). */
  waitStrategy: WaitStrategy<T>;
  /** The state the first check receives (required; `undefined` is refused, as in AWS's SDK). */
  initialState: T;
  /** How the state is stored between checks and as the result; JSON by default. */
  serdes?: Serdes<T>;
}

/** Configuration of `createWaitStrategy` (compat with AWS's SDK, same names and defaults). */
export interface WaitStrategyConfig<T> {
  /** True while the condition is not met yet, i.e. while polling should go on. */
  shouldContinuePolling: (result: T) => boolean;
  /** Total checks including the first one. Default 60. */
  maxAttempts?: number;
  /** Delay before the second check. Default `{ seconds: 5 }`. */
  initialDelay?: Duration;
  /** Longest delay between checks. Default `{ seconds: 300 }`. */
  maxDelay?: Duration;
  /** Factor applied to the delay after each check, at least 1. Default 1.5. */
  backoffRate?: number;
  /** How the computed delay is randomized. Default `JitterStrategy.FULL`. */
  jitter?: JitterStrategy;
  /**
   * No check is scheduled later than this many seconds after the first one; the
   * waitForCondition then fails with code `wait_for_condition_exhausted`. Default: no limit.
   * (AWS's SDK declares this field but does not enforce it.)
   */
  timeoutSeconds?: number;
  /** Ours: the source of randomness for jitter, in [0, 1). Default `Math.random`. */
  random?: () => number;
}
