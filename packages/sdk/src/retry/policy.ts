import { describe, durationToMs, ONE_DAY_MS, ONE_YEAR_MS } from '../duration';
import { findInChain, InvalidArgumentError, NonRetriableError, RetryAfterError } from '../errors';
import type { RetryPolicy, RetryStrategy } from '../types/retry';
import { applyJitter, isJitterStrategy } from './jitter';
import { DEFAULT_RETRY_CONFIG, DEFAULT_RETRY_STRATEGY } from './presets';
import { createRetryStrategy, exponentialDelayMs } from './strategy';

export type { RetryPolicy } from '../types/retry';

/** What to do after a failed attempt: stop, or retry after `delayMs`. */
export type RetryVerdict = { retry: false } | { retry: true; delayMs: number };

/** Decides a failed attempt's fate; `attempt` is the 1-based number of the attempt that just failed. */
export type ResolvedRetry = (error: unknown, attempt: number) => RetryVerdict;

/** The retry settings of one level (a step, or a function's defaults for its steps). */
export interface RetrySettings {
  /** A compat strategy function. */
  retryStrategy?: RetryStrategy;
  /** Ours: a plain policy object. */
  retry?: RetryPolicy;
}

const POLICY_KEYS = ['maxAttempts', 'initialMs', 'maxMs', 'multiplier', 'jitter'] as const;
const MAX_POLICY_ATTEMPTS = 100;
const MAX_MULTIPLIER = 10;
/** A retry with no delay given waits this long, as AWS's SDK does. */
const DEFAULT_DECISION_DELAY_MS = 1000;

/**
 * Validates a plain policy and fills left-out fields from the default strategy.
 * `field` prefixes error fields, e.g. `retry` gives `retry.maxAttempts`.
 * @throws InvalidArgumentError for a non-object, an unknown key or an out-of-range value.
 */
export function validateRetryPolicy(policy: unknown, field: string): Required<RetryPolicy> {
  if (policy === null || typeof policy !== 'object' || Array.isArray(policy)) {
    throw new InvalidArgumentError(field, `must be an object like { maxAttempts: 3 }, got ${describe(policy)}`);
  }
  for (const key of Object.keys(policy)) {
    if (!(POLICY_KEYS as readonly string[]).includes(key)) {
      throw new InvalidArgumentError(`${field}.${key}`, `unknown option (allowed: ${POLICY_KEYS.join(', ')})`);
    }
  }
  const p = policy as RetryPolicy;
  const maxAttempts = p.maxAttempts ?? DEFAULT_RETRY_CONFIG.maxAttempts;
  if (!isNumberIn(maxAttempts, 1, MAX_POLICY_ATTEMPTS) || !Number.isInteger(maxAttempts)) {
    throw new InvalidArgumentError(
      `${field}.maxAttempts`,
      `must be a whole number from 1 to ${MAX_POLICY_ATTEMPTS}, got ${describe(maxAttempts)}`,
    );
  }
  const initialMs = p.initialMs ?? durationToMs(DEFAULT_RETRY_CONFIG.initialDelay, 'initialDelay');
  if (!isNumberIn(initialMs, 0, Number.MAX_VALUE)) {
    throw new InvalidArgumentError(`${field}.initialMs`, `must be a finite number >= 0, got ${describe(initialMs)}`);
  }
  const maxMs = p.maxMs ?? durationToMs(DEFAULT_RETRY_CONFIG.maxDelay, 'maxDelay');
  if (!isNumberIn(maxMs, 0, ONE_DAY_MS)) {
    throw new InvalidArgumentError(`${field}.maxMs`, `must be 0 to ${ONE_DAY_MS} (24 hours), got ${describe(maxMs)}`);
  }
  const multiplier = p.multiplier ?? DEFAULT_RETRY_CONFIG.backoffRate;
  if (!isNumberIn(multiplier, 1, MAX_MULTIPLIER)) {
    throw new InvalidArgumentError(
      `${field}.multiplier`,
      `must be a number from 1 to ${MAX_MULTIPLIER}, got ${describe(multiplier)}`,
    );
  }
  const jitter = p.jitter ?? DEFAULT_RETRY_CONFIG.jitter;
  if (!isJitterStrategy(jitter)) {
    throw new InvalidArgumentError(`${field}.jitter`, `must be one of FULL, HALF, NONE, got ${describe(jitter)}`);
  }
  return { maxAttempts, initialMs, maxMs, multiplier, jitter };
}

/**
 * Validates and merges: step-level settings win over function-level ones; neither →
 * DEFAULT_RETRY_STRATEGY. A level wins as soon as it sets `retryStrategy` or `retry`; a `retry`
 * policy's left-out fields come from the default strategy, not from the other level.
 * `random` (default `Math.random`) feeds the jitter of policies and of the default strategy.
 * @throws InvalidArgumentError when a level sets both `retryStrategy` and `retry`, or either is invalid.
 */
export function resolveRetry(
  step: RetrySettings | undefined,
  fallback: RetrySettings | undefined,
  field: string,
  random?: () => number,
): ResolvedRetry {
  if (random !== undefined && typeof random !== 'function') {
    throw new InvalidArgumentError('random', `must be a function, got ${describe(random)}`);
  }
  // Both levels are checked, so a bad function-level default surfaces even where a step overrides it.
  // Field names are the same at both levels; messages of the function level say so.
  const stepLevel = parseLevel(step, field, '');
  const fallbackLevel = parseLevel(fallback, field, ' (in the function-level default)');
  const chosen = stepLevel ?? fallbackLevel;
  if (chosen?.kind === 'policy') return policyRetry(chosen.policy, random);
  if (chosen?.kind === 'strategy') return strategyRetry(chosen.strategy, join(field, 'retryStrategy'));
  // Rebuilt only for a given random, so seeded runs are deterministic; otherwise the shared preset.
  const strategy =
    random === undefined ? DEFAULT_RETRY_STRATEGY : createRetryStrategy({ ...DEFAULT_RETRY_CONFIG, random });
  return strategyRetry(strategy, join(field, 'retryStrategy'));
}

type Level = { kind: 'strategy'; strategy: RetryStrategy } | { kind: 'policy'; policy: Required<RetryPolicy> };

function parseLevel(settings: RetrySettings | undefined, field: string, where: string): Level | undefined {
  if (settings === undefined || settings === null) return undefined;
  if (typeof settings !== 'object') {
    throw new InvalidArgumentError(field || 'config', `must be an object${where}, got ${describe(settings)}`);
  }
  const { retryStrategy, retry } = settings;
  if (retryStrategy !== undefined && retry !== undefined) {
    throw new InvalidArgumentError(join(field, 'retry'), `give either retryStrategy or retry, not both${where}`);
  }
  if (retryStrategy !== undefined) {
    if (typeof retryStrategy !== 'function') {
      throw new InvalidArgumentError(
        join(field, 'retryStrategy'),
        `must be a function (error, attemptCount) => RetryDecision${where}, got ${describe(retryStrategy)}`,
      );
    }
    return { kind: 'strategy', strategy: retryStrategy };
  }
  if (retry !== undefined) {
    try {
      return { kind: 'policy', policy: validateRetryPolicy(retry, join(field, 'retry')) };
    } catch (error) {
      // The field names are the same at both levels, so the message says which level is at fault.
      if (error instanceof InvalidArgumentError) error.message += where;
      throw error;
    }
  }
  return undefined;
}

function policyRetry(policy: Required<RetryPolicy>, random: (() => number) | undefined): ResolvedRetry {
  return (error, attempt) => {
    checkAttempt(attempt);
    if (findInChain(error, NonRetriableError)) return { retry: false };
    if (attempt >= policy.maxAttempts) return { retry: false };
    const retryAfter = findInChain(error, RetryAfterError);
    if (retryAfter) return { retry: true, delayMs: retryAfter.delayMs };
    const base = exponentialDelayMs(policy.initialMs, policy.multiplier, policy.maxMs, attempt);
    // Lazily looked up so a stubbed Math.random is honoured.
    return { retry: true, delayMs: applyJitter(base, policy.jitter, random ?? (() => Math.random())) };
  };
}

function strategyRetry(strategy: RetryStrategy, field: string): ResolvedRetry {
  return (error, attempt) => {
    checkAttempt(attempt);
    if (findInChain(error, NonRetriableError)) return { retry: false };
    let decision: unknown;
    try {
      decision = strategy(toError(error), attempt);
    } catch (thrown) {
      // A broken strategy is a configuration bug; failing loudly beats silently never retrying.
      const message = thrown instanceof Error ? thrown.message : describe(thrown);
      throw new InvalidArgumentError(field, `the retry strategy threw: ${message}`);
    }
    if (
      decision === null ||
      typeof decision !== 'object' ||
      typeof (decision as { shouldRetry?: unknown }).shouldRetry !== 'boolean'
    ) {
      throw new InvalidArgumentError(
        field,
        `must return { shouldRetry: boolean, delay?: Duration }, returned ${describe(decision)}`,
      );
    }
    const { shouldRetry, delay } = decision as { shouldRetry: boolean; delay?: unknown };
    if (!shouldRetry) return { retry: false };
    // Validated even when a RetryAfterError overrides it, so a bad strategy cannot hide behind one.
    // Capped at a year, the longest durable wait; AWS's SDK sets no smaller bound.
    const strategyMs =
      delay === undefined
        ? DEFAULT_DECISION_DELAY_MS
        : durationToMs(delay, field, { allowZero: true, maxMs: ONE_YEAR_MS });
    const retryAfter = findInChain(error, RetryAfterError);
    return { retry: true, delayMs: retryAfter ? retryAfter.delayMs : strategyMs };
  };
}

/** Strategies are typed to receive an Error; a thrown string or object is wrapped, keeping it as `cause`. */
function toError(value: unknown): Error {
  if (value instanceof Error) return value;
  const message =
    typeof value === 'string'
      ? value
      : typeof (value as { message?: unknown } | null)?.message === 'string'
        ? (value as { message: string }).message
        : describe(value);
  return new Error(message, { cause: value });
}

function checkAttempt(attempt: number): void {
  if (!Number.isInteger(attempt) || attempt < 1) {
    throw new InvalidArgumentError('attempt', `must be a whole number >= 1, got ${describe(attempt)}`);
  }
}

function isNumberIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max;
}

/** Joins a field prefix and a name; an empty prefix gives the bare name. */
function join(prefix: string, name: string): string {
  return prefix ? `${prefix}.${name}` : name;
}
