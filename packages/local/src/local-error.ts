/**
 * The local runtime's errors (embedded store, dev server, console, test runner, fault injection)
 * share one base and one list of codes. Errors the local runtime passes on from the engine keep
 * the engine's class (`FunctionNotFoundError` is the engine's `EngineError`).
 */

/** Every stable code a {@link LocalError} carries. A code never changes its meaning. */
export const LOCAL_ERROR_CODES = [
  'port_in_use',
  'database_in_use',
  'database_hard_linked',
  'sqlite_unavailable',
  'invalid_recorded_run',
  'unsupported_recorded_run_version',
  'run_stranded',
  'run_runaway',
  'run_stuck',
  // Fault injection's: a throttled call, a write whose response was lost.
  'throttled',
  'lost_response',
] as const;

/** One of {@link LOCAL_ERROR_CODES}. */
export type LocalErrorCode = (typeof LOCAL_ERROR_CODES)[number];

/** Base of the local runtime's errors: each carries one stable {@link LocalErrorCode}. */
export abstract class LocalError<C extends LocalErrorCode = LocalErrorCode> extends Error {
  /** Stable code. */
  abstract readonly code: C;
}
