import type { ErrorObject } from '@durable-lambda/protocol';

/** AWS's `ErrorObject`, as AWS's `sendCallbackFailure` takes it. */
export interface AwsCallbackError {
  ErrorMessage?: string;
  ErrorType?: string;
  ErrorData?: string;
  StackTrace?: string[];
}

/** Our earlier form of a callback failure (still accepted). */
export interface CallbackFailureFields {
  errorMessage: string;
  errorType?: string;
  /** Our stable code for the failure. */
  code?: string;
}

/** What `sendCallbackFailure` accepts: AWS's `ErrorObject`, our fields, an `Error`, or nothing. */
export type CallbackFailureInput = AwsCallbackError | CallbackFailureFields | Error;

/**
 * The failure as the engine stores it. AWS's form passes through as given (no default type); a
 * missing message is stored as '' since the engine needs one, where AWS stores none. Our older
 * forms keep the engine's default type (`CallbackExternalError`).
 */
export function toCallbackError(error: CallbackFailureInput | undefined): ErrorObject & { ErrorMessage: string } {
  if (error === undefined || error === null) return { ErrorMessage: '' };
  if (typeof error !== 'object') {
    throw new TypeError('sendCallbackFailure: error must be an ErrorObject ({ ErrorMessage, ErrorType, ... })');
  }
  if (error instanceof Error) {
    return {
      ErrorMessage: error.message,
      ErrorType: error.name,
      ...(error.stack === undefined ? {} : { StackTrace: error.stack.split('\n') }),
    };
  }
  if ('errorMessage' in error) {
    return {
      ErrorMessage: error.errorMessage,
      ...(error.errorType === undefined ? {} : { ErrorType: error.errorType }),
      ...(error.code === undefined ? {} : { ErrorCode: error.code }),
    };
  }
  // AWS stores the error as given: no type when none is given, where the engine would default
  // one. An explicit undefined overrides that default.
  const out = { ErrorMessage: error.ErrorMessage ?? '', ErrorType: error.ErrorType } as ErrorObject & {
    ErrorMessage: string;
  };
  if (error.ErrorData !== undefined) out.ErrorData = error.ErrorData;
  if (error.StackTrace !== undefined) out.StackTrace = [...error.StackTrace];
  return out;
}
