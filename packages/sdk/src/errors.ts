import type { ErrorObject } from '@durable-lambda/protocol';
import type { Duration } from './duration';
import { durationToMs } from './duration';

/** Stable codes carried by errors that durable-lambda raises or stores. */
export const ErrorCode = {
  STEP_FAILED: 'step_failed',
  STEP_TIMEOUT: 'step_timeout',
  INVOCATION_LOST: 'invocation_lost',
  NON_RETRIABLE: 'non_retriable',
  NON_DETERMINISTIC: 'non_deterministic',
  PAYLOAD_TOO_LARGE: 'payload_too_large',
  SERDES_FAILED: 'serdes_failed',
  INVALID_ARGUMENT: 'invalid_argument',
  CHILD_CONTEXT_FAILED: 'child_context_failed',
  HANDLER_FAILED: 'handler_failed',
  RETRY_AFTER: 'retry_after',
  CALLBACK_TIMEOUT: 'callback_timeout',
  CALLBACK_FAILED: 'callback_failed',
  CALLBACK_SUBMITTER_FAILED: 'callback_submitter_failed',
  INVOKE_FAILED: 'invoke_failed',
  FUNCTION_NOT_FOUND: 'function_not_found',
  WAIT_FOR_CONDITION_EXHAUSTED: 'wait_for_condition_exhausted',
  WAIT_FOR_CONDITION_FAILED: 'wait_for_condition_failed',
  PROMISE_COMBINATOR_FAILED: 'promise_combinator_failed',
  BATCH_FAILED: 'batch_failed',
} as const;
/** One of {@link ErrorCode}'s values, or a code carried by a user's own error. */
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/** Thrown inside a step: fail the step at once, whatever its retry strategy says. */
export class NonRetriableError extends Error {
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
export class RetryAfterError extends Error {
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

/** A call received bad arguments or configuration. `field` names the offending one. */
export class InvalidArgumentError extends Error {
  /** Stable code. */
  readonly code = ErrorCode.INVALID_ARGUMENT;
  constructor(
    /** The argument or configuration field at fault, e.g. `retry.maxAttempts`. */
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'InvalidArgumentError';
  }
}

/** Base of errors thrown into handler code by durable operations (compat: AWS's names). */
export class DurableOperationError extends Error {
  /** The type (class name) of the original error. */
  readonly errorType: string;
  /** Stable code, e.g. `step_timeout`, `invocation_lost`, or the original error's own code. */
  readonly code: string;
  /** Extra data stored with the error, if any. */
  readonly errorData: string | undefined;
  constructor(message: string, init: { errorType: string; code: string; cause?: unknown; errorData?: string }) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'DurableOperationError';
    this.errorType = init.errorType;
    this.code = init.code;
    this.errorData = init.errorData;
  }
}

/** A step failed for good (its attempts are used up, or it could not be retried). */
export class StepError extends DurableOperationError {
  constructor(message: string, init: { errorType: string; code: string; cause?: unknown; errorData?: string }) {
    super(message, init);
    this.name = 'StepError';
  }
}

/** A step's last attempt was lost with its invocation (code `invocation_lost`). */
export class StepInterruptedError extends StepError {
  constructor(message: string, init: { errorType: string; code: string; cause?: unknown; errorData?: string }) {
    super(message, init);
    this.name = 'StepInterruptedError';
  }
}

/** A child context's function threw. */
export class ChildContextError extends DurableOperationError {
  constructor(message: string, init: { errorType: string; code: string; cause?: unknown; errorData?: string }) {
    super(message, init);
    this.name = 'ChildContextError';
  }
}

/** Base of the errors a callback can end with. */
export class CallbackError extends DurableOperationError {
  constructor(message: string, init: { errorType: string; code: string; cause?: unknown; errorData?: string }) {
    super(message, init);
    this.name = 'CallbackError';
  }
}

/** A callback's timeout or heartbeat deadline passed (code `callback_timeout`). */
export class CallbackTimeoutError extends CallbackError {
  constructor(message: string, init: { errorType: string; code: string; cause?: unknown; errorData?: string }) {
    super(message, init);
    this.name = 'CallbackTimeoutError';
  }
}

/** The outside system failed the callback (code `callback_failed` unless it gave one). */
export class CallbackExternalError extends CallbackError {
  constructor(message: string, init: { errorType: string; code: string; cause?: unknown; errorData?: string }) {
    super(message, init);
    this.name = 'CallbackExternalError';
  }
}

/** A waitForCallback submitter used up its retries (code `callback_submitter_failed`). */
export class CallbackSubmitterError extends CallbackError {
  constructor(message: string, init: { errorType: string; code: string; cause?: unknown; errorData?: string }) {
    super(message, init);
    this.name = 'CallbackSubmitterError';
  }
}

/** A map or parallel ended beyond its tolerated failures (`throwIfError`). */
export class BatchCompletionError extends DurableOperationError {
  constructor(message: string, init: { errorType: string; code: string; cause?: unknown; errorData?: string }) {
    super(message, init);
    this.name = 'BatchCompletionError';
  }
}

/** A chained invoke's child run failed. */
export class InvokeError extends DurableOperationError {
  constructor(message: string, init: { errorType: string; code: string; cause?: unknown; errorData?: string }) {
    super(message, init);
    this.name = 'InvokeError';
  }
}

/** A waitForCondition ran out of attempts. */
export class WaitForConditionError extends DurableOperationError {
  constructor(message: string, init: { errorType: string; code: string; cause?: unknown; errorData?: string }) {
    super(message, init);
    this.name = 'WaitForConditionError';
  }
}

/**
 * A fault of the runtime itself, not of user code: non-determinism, a rejected checkpoint.
 * It ends the invocation with an explicit result; handler code never catches it.
 */
export class DurableRuntimeFault extends Error {
  constructor(
    /** Stable code. */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = code === ErrorCode.NON_DETERMINISTIC ? 'NonDeterministicError' : 'DurableRuntimeFault';
  }
}

/** What users see as the type of an attempt failure of ours, by code. */
const ATTEMPT_FAILURE_NAMES: Readonly<Record<string, string>> = {
  [ErrorCode.STEP_TIMEOUT]: 'StepTimeoutError',
  [ErrorCode.SERDES_FAILED]: 'SerdesError',
  [ErrorCode.PAYLOAD_TOO_LARGE]: 'PayloadTooLargeError',
  [ErrorCode.INVOCATION_LOST]: 'InvocationLostError',
};

/** Internal failure of an attempt with a code of ours (timeout, serdes, size). */
export class AttemptFailure extends Error {
  constructor(
    /** Stable code. */
    readonly code: string,
    message: string,
    /** Whether the retry policy may retry it. */
    readonly retriable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = ATTEMPT_FAILURE_NAMES[code] ?? 'AttemptFailure';
  }
}

/** Walks an error and its `cause` chain (bounded, cycle-safe). */
export function* causeChain(error: unknown): Generator<unknown> {
  const seen = new Set<unknown>();
  let current: unknown = error;
  for (let depth = 0; depth < 16 && current !== undefined && current !== null && !seen.has(current); depth++) {
    seen.add(current);
    yield current;
    current = (current as { cause?: unknown }).cause;
  }
}

/** The first error of the given class in the chain, if any. */
export function findInChain<T>(error: unknown, ctor: abstract new (...args: never[]) => T): T | undefined {
  for (const e of causeChain(error)) if (e instanceof ctor) return e;
  return undefined;
}

function codeOf(error: unknown, fallback: string): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.length > 0 ? code : fallback;
}

/** Turns anything thrown into a storable {@link ErrorObject}. */
export function toErrorObject(error: unknown, fallbackCode: string = ErrorCode.STEP_FAILED): ErrorObject {
  if (error instanceof Error) {
    const type = error instanceof DurableOperationError ? error.errorType : error.name;
    const out: ErrorObject = {
      ErrorType: type || 'Error',
      ErrorMessage: error.message,
      ErrorCode: codeOf(error, fallbackCode),
    };
    if (error instanceof DurableOperationError && error.errorData !== undefined) out.ErrorData = error.errorData;
    if (error.stack) out.StackTrace = error.stack.split('\n').slice(0, 50);
    return out;
  }
  return { ErrorType: typeof error, ErrorMessage: safeString(error), ErrorCode: fallbackCode };
}

function safeString(value: unknown): string {
  try {
    return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    return String(value);
  }
}

/** Rebuilds the original error (name, message, stack) from a stored {@link ErrorObject}. */
export function fromErrorObject(stored: ErrorObject | undefined): Error {
  const error = new Error(stored?.ErrorMessage ?? 'unknown error');
  error.name = stored?.ErrorType ?? 'Error';
  if (stored?.StackTrace) error.stack = stored.StackTrace.join('\n');
  if (stored?.ErrorCode) (error as Error & { code?: string }).code = stored.ErrorCode;
  return error;
}

type OperationErrorClass = new (
  message: string,
  init: { errorType: string; code: string; cause?: unknown; errorData?: string },
) => DurableOperationError;

/** Builds the error a handler sees for a stored failure; live and replayed runs get the same. */
export function operationError(ctor: OperationErrorClass, stored: ErrorObject | undefined): DurableOperationError {
  const init: { errorType: string; code: string; cause?: unknown; errorData?: string } = {
    errorType: stored?.ErrorType ?? 'Error',
    code: stored?.ErrorCode ?? ErrorCode.STEP_FAILED,
    cause: fromErrorObject(stored),
  };
  if (stored?.ErrorData !== undefined) init.errorData = stored.ErrorData;
  return new ctor(stored?.ErrorMessage ?? 'unknown error', init);
}
