import { describe } from '../../duration';
import { InvalidArgumentError } from '../../errors/invalid-argument';
import {
  type CompletionDecision,
  type CompletionItemStatus,
  CompletionOutcome,
  type CompletionReason,
  type CompletionStatus,
} from '../../types/completion';

const COMPLETION_KEYS = ['minSuccessful', 'toleratedFailureCount', 'toleratedFailurePercentage', 'shouldComplete'];

/** Progress of a running batch. */
export interface Progress {
  successCount: number;
  failureCount: number;
  completedCount: number;
  totalCount: number;
  /** Every item's status by index (built only when a custom predicate asks). */
  items: () => readonly CompletionItemStatus[];
}

/**
 * When a batch stops starting items and completes, following AWS's SDK: without criteria it
 * fails fast; `toleratedFailureCount` / `toleratedFailurePercentage` bound the failures (a
 * batch with only `minSuccessful` tolerates any number); `minSuccessful` completes early.
 */
export interface CompletionPolicy {
  /** May another item start? */
  shouldContinue(progress: Progress): boolean;
  /** Is the batch done (after an item finished)? */
  isComplete(progress: Progress): boolean;
  /** The reason, once the batch stops. */
  reason(progress: Progress): CompletionReason;
}

/** Validates `completionConfig` and returns its policy. */
export function parseCompletion(value: unknown, field: string): CompletionPolicy {
  if (value !== undefined && (value === null || typeof value !== 'object' || Array.isArray(value))) {
    throw new InvalidArgumentError(field, `must be an object, got ${describe(value)}`);
  }
  const c = (value ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(c)) {
    if (!COMPLETION_KEYS.includes(key)) {
      throw new InvalidArgumentError(`${field}.${key}`, `unknown option (allowed: ${COMPLETION_KEYS.join(', ')})`);
    }
  }
  const minSuccessful = count(c.minSuccessful, `${field}.minSuccessful`);
  const toleratedCount = count(c.toleratedFailureCount, `${field}.toleratedFailureCount`);
  const toleratedPercentage = percentage(c.toleratedFailurePercentage, `${field}.toleratedFailurePercentage`);
  if (c.shouldComplete !== undefined) {
    if (typeof c.shouldComplete !== 'function') {
      throw new InvalidArgumentError(
        `${field}.shouldComplete`,
        `must be a function, got ${describe(c.shouldComplete)}`,
      );
    }
    if (minSuccessful !== undefined || toleratedCount !== undefined || toleratedPercentage !== undefined) {
      throw new InvalidArgumentError(
        `${field}.shouldComplete`,
        'cannot be combined with minSuccessful, toleratedFailureCount or toleratedFailurePercentage',
      );
    }
    return customPolicy(c.shouldComplete as (status: CompletionStatus) => CompletionDecision, field);
  }

  const failFast = minSuccessful === undefined && toleratedCount === undefined && toleratedPercentage === undefined;
  const exceeded = (p: Progress): boolean => {
    if (failFast) return p.failureCount > 0;
    if (toleratedCount !== undefined && p.failureCount > toleratedCount) return true;
    if (toleratedPercentage !== undefined && p.totalCount > 0) {
      return (p.failureCount / p.totalCount) * 100 > toleratedPercentage;
    }
    return false;
  };
  return {
    shouldContinue: (p) => !exceeded(p),
    isComplete: (p) =>
      p.completedCount === p.totalCount || (minSuccessful !== undefined && p.successCount >= minSuccessful),
    reason: (p) => {
      if (exceeded(p)) return 'FAILURE_TOLERANCE_EXCEEDED';
      if (p.completedCount === p.totalCount) return 'ALL_COMPLETED';
      if (minSuccessful !== undefined && p.successCount >= minSuccessful) return 'MIN_SUCCESSFUL_REACHED';
      return 'ALL_COMPLETED';
    },
  };
}

function customPolicy(
  shouldComplete: (status: CompletionStatus) => CompletionDecision,
  field: string,
): CompletionPolicy {
  const decide = (p: Progress): CompletionDecision => {
    const decision = shouldComplete({
      successCount: p.successCount,
      failureCount: p.failureCount,
      completedCount: p.completedCount,
      totalCount: p.totalCount,
      items: p.items(),
    });
    if (decision === null || typeof decision !== 'object' || typeof decision.complete !== 'boolean') {
      throw new InvalidArgumentError(
        `${field}.shouldComplete`,
        `must return continueBatch() or completeBatch(outcome), got ${describe(decision)}`,
      );
    }
    return decision;
  };
  return {
    shouldContinue: (p) => !decide(p).complete,
    isComplete: (p) => p.completedCount === p.totalCount || decide(p).complete,
    reason: (p) => {
      const decision = decide(p);
      if (!decision.complete) return 'ALL_COMPLETED';
      return decision.outcome === CompletionOutcome.FAILED ? 'CUSTOM_COMPLETION_FAILED' : 'CUSTOM_COMPLETION_SUCCEEDED';
    },
  };
}

function count(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new InvalidArgumentError(field, `must be an integer >= 0, got ${describe(value)}`);
  }
  return value;
}

function percentage(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 100) {
    throw new InvalidArgumentError(field, `must be a number from 0 to 100, got ${describe(value)}`);
  }
  return value;
}

/** Validates `maxConcurrency`: a positive integer, or undefined for unbounded. */
export function parseMaxConcurrency(value: unknown, field: string): number {
  if (value === undefined) return Number.POSITIVE_INFINITY;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new InvalidArgumentError(field, `must be a positive integer, got ${describe(value)}`);
  }
  return value;
}
