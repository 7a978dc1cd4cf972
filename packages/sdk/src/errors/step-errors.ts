import { durationToMs } from '../duration';
import type { Duration } from '../types/duration';
import { ErrorCode } from './codes';
import { InvalidArgumentError } from './invalid-argument';
import { DurableSdkError } from './sdk-error';

const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/** Thrown inside a step: fail the step at once, whatever its retry strategy says. */
export class NonRetriableError extends DurableSdkError<string> {
  /** Stable code. */
  readonly code: string = ErrorCode.NON_RETRIABLE;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NonRetriableError';
  }
}

/**
 * Thrown inside a step: retry after exactly `delay` (ms or a Duration, 0 to 24 h), e.g. the
 * `Retry-After` of an HTTP 429. The step's attempt budget still applies.
 */
export class RetryAfterError extends DurableSdkError<string> {
  /** Stable code. */
  readonly code: string = ErrorCode.RETRY_AFTER;
  /** The requested delay before the next attempt, in ms. */
  readonly delayMs: number;
  constructor(message: string, delay: number | Duration, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RetryAfterError';
    const ms = typeof delay === 'number' ? delay : durationToMs(delay, 'delay', { allowZero: true });
    if (!Number.isFinite(ms) || ms < 0 || ms > MAX_RETRY_AFTER_MS) {
      throw new InvalidArgumentError('delay', `RetryAfterError delay must be 0 to 24 hours, got ${String(delay)}`);
    }
    this.delayMs = ms;
  }
}

/**
 * A step attempt was started but its invocation ended before the outcome was stored (AWS's
 * class and message). It is what a lost attempt is recorded as (code `invocation_lost`); a
 * step whose last attempt was lost fails with a `StepError` caused by it, as in AWS's SDK.
 */
export class StepInterruptedError extends Error {
  constructor(_stepId: string, _stepName?: string) {
    super('The step execution process was initiated but failed to reach completion due to an interruption.');
    this.name = 'StepInterruptedError';
  }
}
