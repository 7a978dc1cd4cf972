import type { ErrorCodeValue } from './codes';

/**
 * Base of every error the SDK raises with a code of its own: the operation errors handler code
 * catches (AWS's `DurableOperationError` family, whose code stays non-enumerable so they compare
 * equal to AWS's), the step signals (`NonRetriableError`, `RetryAfterError`), argument errors and
 * the runtime's own faults. `C` is one of {@link ErrorCodeValue} for a class whose code is fixed;
 * `string` for one that carries a stored or user error's code along (a `StepError` rebuilt from
 * the record keeps the original error's code). AWS's classes without a code of ours
 * (`StepInterruptedError`, `DurableExecutionClientError`, `PluginLoadError`) keep AWS's shape.
 */
export abstract class DurableSdkError<C extends string = ErrorCodeValue> extends Error {
  /** Stable code. */
  abstract readonly code: C;
}
