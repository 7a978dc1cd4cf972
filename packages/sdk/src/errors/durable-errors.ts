import type { ErrorObject } from '@durable-lambda/protocol';
import type { CompletionReason } from '../types/completion';
import { ErrorCode, withCode } from './codes';
import { DurableSdkError } from './sdk-error';

/**
 * The errors durable operations throw into handler code, with AWS's names, constructors and
 * fields (`errorType`, `cause`, `errorData`, `stackTrace`), so code and tests written for AWS's
 * SDK see the same objects. Our stable code rides along as a non-enumerable `code`.
 */

/** Base class of every durable operation error (AWS's). */
export abstract class DurableOperationError extends DurableSdkError<string> {
  /** The class of the error, e.g. `StepError` (AWS's: the class, not the original error's type). */
  abstract readonly errorType: string;
  /** The original error, rebuilt from what was stored. */
  override cause?: Error;
  /** Extra data stored with the error, if any. */
  errorData?: string;
  /** Kept for AWS's shape; never set by this SDK (stack traces are not stored). */
  stackTrace?: string[];
  /**
   * Ours: the stable code (`step_failed`, `step_timeout`, the original error's own code), or the
   * class's default for an error constructed directly. Non-enumerable, so AWS's shape is kept.
   */
  declare readonly code: string;

  constructor(message?: string, cause?: Error, errorData?: string) {
    super(message);
    this.name = new.target.name;
    this.cause = cause;
    this.errorData = errorData;
    withCode(this, ErrorCode.STEP_FAILED);
  }

  /** Rebuilds the error a stored {@link ErrorObject} stands for (AWS's rules: by `ErrorType`, else a StepError). */
  static fromErrorObject(errorObject: ErrorObject): DurableOperationError {
    const cause = new Error(errorObject.ErrorMessage);
    cause.name = errorObject.ErrorType || 'Error';
    cause.stack = errorObject.StackTrace?.join('\n');
    const message = errorObject.ErrorMessage;
    const data = errorObject.ErrorData;
    switch (errorObject.ErrorType) {
      case 'StepError':
        return new StepError(message || 'Step failed', cause, data);
      case 'CallbackError':
        return new CallbackError(message || 'Callback failed', cause, data);
      case 'CallbackExternalError':
        return new CallbackExternalError(message || 'Callback failed', cause, data);
      case 'CallbackTimeoutError':
        return new CallbackTimeoutError(message || 'Callback timed out', cause, data);
      case 'SignalTimeoutError':
        return new SignalTimeoutError(message || 'Signal wait timed out', cause, data);
      case 'CallbackSubmitterError':
        return new CallbackSubmitterError(message || 'Callback submitter failed', cause, data);
      case 'InvokeError':
        return new InvokeError(message || 'Invoke failed', cause, data);
      case 'ChildContextError':
        return new ChildContextError(message || 'Child context failed', cause, data);
      case 'WaitForConditionError':
        return new WaitForConditionError(message || 'Wait for condition failed', cause, data);
      case 'PromiseCombinatorError':
        return new PromiseCombinatorError(message || 'Promise combinator failed', cause, data);
      default:
        return new StepError(message || 'Unknown error', cause, data);
    }
  }

  /**
   * The error as stored (AWS's shape). Without `errorData` of its own, the first `errorData`
   * found along the cause chain is kept, so it survives nesting in child contexts.
   */
  toErrorObject(): ErrorObject {
    let errorData = this.errorData;
    if (errorData === undefined) {
      let node: unknown = this.cause;
      for (let i = 0; i < 10 && node; i++) {
        if (node instanceof DurableOperationError && typeof node.errorData === 'string') {
          errorData = node.errorData;
          break;
        }
        node = node instanceof Error ? node.cause : undefined;
      }
    }
    return { ErrorType: this.errorType, ErrorMessage: this.message, ErrorData: errorData, StackTrace: undefined };
  }
}

/** A step failed for good (its attempts are used up, or it could not be retried). */
export class StepError extends DurableOperationError {
  readonly errorType = 'StepError';
  constructor(message?: string, cause?: Error, errorData?: string) {
    super(message || 'Step failed', cause, errorData);
  }
}

/** Base of the errors a callback can end with. */
export class CallbackError extends DurableOperationError {
  readonly errorType: string = 'CallbackError';
  constructor(message?: string, cause?: Error, errorData?: string) {
    super(message || 'Callback failed', cause, errorData);
    withCode(this, ErrorCode.CALLBACK_FAILED);
  }
}

/** The outside system failed the callback. */
export class CallbackExternalError extends CallbackError {
  override readonly errorType = 'CallbackExternalError';
  constructor(message?: string, cause?: Error, errorData?: string) {
    super(message || 'Callback failed', cause, errorData);
    withCode(this, ErrorCode.CALLBACK_FAILED);
  }
}

/** A callback's timeout or heartbeat deadline passed (code `callback_timeout`). */
export class CallbackTimeoutError extends CallbackError {
  override readonly errorType = 'CallbackTimeoutError';
  constructor(message?: string, cause?: Error, errorData?: string) {
    super(message || 'Callback timed out', cause, errorData);
    withCode(this, ErrorCode.CALLBACK_TIMEOUT);
  }
}

/**
 * Ours: a `ctx.waitForSignal` reached its timeout before a signal of its name arrived (code
 * `signal_timeout`), reported the way {@link CallbackTimeoutError} reports a callback's: a
 * `CallbackError` (a signal wait is a callback operation named after its signal) whose message
 * names the signal. The signal's name is on `signalName` when known.
 */
export class SignalTimeoutError extends CallbackError {
  override readonly errorType = 'SignalTimeoutError';
  constructor(
    message?: string,
    cause?: Error,
    errorData?: string,
    /** The name of the signal the wait was for. */
    readonly signalName?: string,
  ) {
    super(message || 'Signal wait timed out', cause, errorData);
    withCode(this, ErrorCode.SIGNAL_TIMEOUT);
  }
}

/** A waitForCallback submitter used up its retries (code `callback_submitter_failed`). */
export class CallbackSubmitterError extends CallbackError {
  override readonly errorType = 'CallbackSubmitterError';
  constructor(message?: string, cause?: Error, errorData?: string) {
    super(message || 'Callback submitter failed', cause, errorData);
    withCode(this, ErrorCode.CALLBACK_SUBMITTER_FAILED);
  }
}

/** A chained invoke's child run failed. */
export class InvokeError extends DurableOperationError {
  readonly errorType = 'InvokeError';
  constructor(message?: string, cause?: Error, errorData?: string) {
    super(message || 'Invoke failed', cause, errorData);
    withCode(this, ErrorCode.INVOKE_FAILED);
  }
}

/** A child context's function threw. */
export class ChildContextError extends DurableOperationError {
  readonly errorType = 'ChildContextError';
  constructor(message?: string, cause?: Error, errorData?: string) {
    super(message || 'Child context failed', cause, errorData);
    withCode(this, ErrorCode.CHILD_CONTEXT_FAILED);
  }
}

/** A durable combinator (`context.promise.all`, `any`, `race`) rejected. */
export class PromiseCombinatorError extends DurableOperationError {
  readonly errorType = 'PromiseCombinatorError';
  constructor(message?: string, cause?: Error, errorData?: string) {
    super(message || 'Promise combinator failed', cause, errorData);
    withCode(this, ErrorCode.PROMISE_COMBINATOR_FAILED);
  }
}

/** A waitForCondition failed (AWS's class; its check failures surface as the stored error's class). */
export class WaitForConditionError extends DurableOperationError {
  readonly errorType = 'WaitForConditionError';
  constructor(message?: string, cause?: Error, errorData?: string) {
    super(message || 'Wait for condition failed', cause, errorData);
    withCode(this, ErrorCode.WAIT_FOR_CONDITION_FAILED);
  }
}

/** Thrown by `BatchResult.throwIfError` when a custom completion decided the batch failed. */
export class BatchCompletionError extends DurableOperationError {
  readonly errorType = 'BatchCompletionError';
  constructor(
    /** The completion reason that made the batch fail. */
    readonly completionReason: CompletionReason,
    message?: string,
    cause?: Error,
    errorData?: string,
  ) {
    super(message || `Batch completed as failed by shouldComplete (${completionReason})`, cause, errorData);
    withCode(this, ErrorCode.BATCH_FAILED);
  }
}
