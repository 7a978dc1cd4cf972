/**
 * The engine's errors share one base and one list of codes, so the control API's status map is
 * typed against that list: a code added here without a status there fails the type-check.
 */

/**
 * Every stable code an {@link EngineError} carries. These are the codes users see (in the
 * control API's answers, in a run's stored error): a code never changes its meaning.
 */
export const ENGINE_ERROR_CODES = [
  'invalid_argument',
  'invalid_callback_id',
  'run_not_found',
  'callback_not_found',
  'function_not_found',
  'operation_not_found',
  'run_key_conflict',
  'run_state_conflict',
  'callback_already_completed',
  'nothing_to_wake',
  'operation_state_conflict',
  'run_busy',
  'payload_too_large',
  'invalid_meter',
  // A signal sent to a run that has ended (`signals.ts`).
  'run_ended',
  // The AWS transport's (AwsTransportError), read by AWS's SDK running on this engine.
  'stale_checkpoint_token',
  'checkpoint_rejected',
  'backend_fault',
] as const;

/** One of {@link ENGINE_ERROR_CODES}. */
export type EngineErrorCode = (typeof ENGINE_ERROR_CODES)[number];

/**
 * Base of the engine's errors (and of the errors its ports' implementations throw for the
 * engine to read, like {@link FunctionNotFoundError}): each carries one stable code.
 * `error instanceof EngineError` tells an engine refusal from a fault; `error.code` then
 * narrows to {@link EngineErrorCode}.
 */
export abstract class EngineError<C extends EngineErrorCode = EngineErrorCode> extends Error {
  /** Stable code. */
  abstract readonly code: C;
}

/** Whether `code` is one of the engine's stable codes. */
export function isEngineErrorCode(code: unknown): code is EngineErrorCode {
  return typeof code === 'string' && (ENGINE_ERROR_CODES as readonly string[]).includes(code);
}
