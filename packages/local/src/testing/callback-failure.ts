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
 * The failure as the engine stores it. AWS's form passes through as given: no default type, and
 * no message when none is given (nothing at all for `undefined`), as AWS stores it. Our older
 * forms keep the engine's default type (`CallbackExternalError`).
 */
export function toCallbackError(error: CallbackFailureInput | undefined): ErrorObject {
  // An explicit undefined type overrides the engine's default one.
  if (error === undefined || error === null) return { ErrorType: undefined } as ErrorObject;
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
  const out = { ErrorType: error.ErrorType } as ErrorObject;
  if (error.ErrorMessage !== undefined) out.ErrorMessage = error.ErrorMessage;
  if (error.ErrorData !== undefined) out.ErrorData = error.ErrorData;
  if (error.StackTrace !== undefined) out.StackTrace = [...error.StackTrace];
  return out;
}
