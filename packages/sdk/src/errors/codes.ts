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
  /** A `waitForSignal` reached its timeout with no signal of its name. */
  SIGNAL_TIMEOUT: 'signal_timeout',
  INVOKE_FAILED: 'invoke_failed',
  FUNCTION_NOT_FOUND: 'function_not_found',
  WAIT_FOR_CONDITION_EXHAUSTED: 'wait_for_condition_exhausted',
  WAIT_FOR_CONDITION_FAILED: 'wait_for_condition_failed',
  PROMISE_COMBINATOR_FAILED: 'promise_combinator_failed',
  BATCH_FAILED: 'batch_failed',
  /** A context was used where another one is current (a parent context inside a child, a step or a check). */
  CONTEXT_MISUSE: 'context_misuse',
  /** A plugin named in `DURABLE_EXECUTION_PLUGINS` could not be loaded. */
  PLUGIN_LOAD_FAILED: 'plugin_load_failed',
  /** The backend refused a checkpoint as invalid (the protocol's `checkpoint_rejected`): the run fails. */
  CHECKPOINT_REJECTED: 'checkpoint_rejected',
  /** A checkpoint failed for another reason: the invocation ends, the run resumes in a new one. */
  INVOCATION_FAULTED: 'invocation_faulted',
} as const;
/** One of {@link ErrorCode}'s values: the union of the SDK's own codes. */
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * Sets an error's stable `code` as a non-enumerable property: readable as `error.code`, yet
 * invisible to `toEqual`, spreads and `JSON.stringify`, so errors compare equal to AWS's.
 */
export function withCode<E extends object>(error: E, code: string | undefined): E {
  if (code !== undefined) {
    Object.defineProperty(error, 'code', { value: code, enumerable: false, writable: true, configurable: true });
  }
  return error;
}

/** The `code` an error carries (own, inherited or non-enumerable), if it is a non-empty string. */
export function codeOf(error: unknown): string | undefined {
  if (error === null || (typeof error !== 'object' && typeof error !== 'function')) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.length > 0 ? code : undefined;
}
