/**
 * The local runtime's errors (embedded store, dev server, console, test runner, fault injection)
 * share one base and one list of codes. Errors the local runtime passes on from the engine keep
 * the engine's class (`FunctionNotFoundError` is the engine's `EngineError`).
 */

/**
 * The codes the local servers' request guard refuses a request with (`LocalRequestRefusedError`):
 * `forbidden_host`, a `Host` the server does not answer; `cross_origin`, a request from another
 * origin. The only local codes an HTTP answer carries: each has its status in
 * {@link LOCAL_ERROR_STATUS}.
 */
export const LOCAL_REQUEST_REFUSAL_CODES = ['forbidden_host', 'cross_origin'] as const;

/** One of {@link LOCAL_REQUEST_REFUSAL_CODES}. */
export type LocalRequestRefusalCode = (typeof LOCAL_REQUEST_REFUSAL_CODES)[number];

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
  ...LOCAL_REQUEST_REFUSAL_CODES,
] as const;

/** One of {@link LOCAL_ERROR_CODES}. */
export type LocalErrorCode = (typeof LOCAL_ERROR_CODES)[number];

/**
 * HTTP status of each local code an answer carries (the request guard's refusals). Typed against
 * {@link LocalRequestRefusalCode}: a refusal code added without a status here fails the type-check.
 */
export const LOCAL_ERROR_STATUS = {
  forbidden_host: 403,
  cross_origin: 403,
} as const satisfies Readonly<Record<LocalRequestRefusalCode, number>>;

/** Base of the local runtime's errors: each carries one stable {@link LocalErrorCode}. */
export abstract class LocalError<C extends LocalErrorCode = LocalErrorCode> extends Error {
  /** Stable code. */
  abstract readonly code: C;
}
