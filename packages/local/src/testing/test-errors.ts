import type { ErrorObject } from '@durable-lambda/protocol';

/** An error as AWS's testing package shows it: exactly these four fields (compat). */
export interface TestResultError {
  errorMessage: string | undefined;
  errorType: string | undefined;
  errorData: string | undefined;
  stackTrace: string[] | undefined;
}

/**
 * A {@link TestResultError} that also carries our stable `code`. The code is a non-enumerable
 * property, so `toEqual` against AWS's four fields passes while `error.code` and
 * `toMatchObject({ code })` still see it.
 */
export interface TestError extends TestResultError {
  /** Our stable error code (`step_failed`, `callback_timeout`...), when the error has one. */
  readonly code: string | undefined;
  /**
   * The stack our SDK recorded where the error was thrown (the dashboard, API and CLI show it).
   * `stackTrace` itself stays undefined, as AWS's SDK records none, so assertions written for
   * AWS's runner hold.
   */
  readonly recordedStackTrace: string[] | undefined;
}

/**
 * Defines `extras` on `target` as non-enumerable (and writable) properties: our additions to
 * AWS's shapes stay readable without breaking strict equality with AWS's objects.
 */
export function withHidden<T extends object, E extends object>(target: T, extras: E): T & E {
  for (const [key, value] of Object.entries(extras)) {
    Object.defineProperty(target, key, { value, enumerable: false, writable: true, configurable: true });
  }
  return target as T & E;
}

/**
 * A stored error in the shape tests assert on: AWS's fields with AWS's values (no stack trace:
 * AWS's SDK records none; `keepStack` where AWS shows one, an invoked function's failure), our
 * code and recorded stack hidden beside them.
 */
export function toTestError(
  error: ErrorObject | undefined,
  options: { keepStack?: boolean } = {},
): TestError | undefined {
  if (!error) return undefined;
  const stack = error.StackTrace === undefined ? undefined : [...error.StackTrace];
  return withHidden(
    {
      errorMessage: error.ErrorMessage,
      errorType: error.ErrorType,
      errorData: error.ErrorData,
      stackTrace: options.keepStack ? stack : undefined,
    },
    { code: error.ErrorCode, recordedStackTrace: stack },
  );
}
