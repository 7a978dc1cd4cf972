import type { EngineErrorCode } from '@durable-lambda/engine';
import type { ProtocolErrorCode } from '@durable-lambda/protocol';
import type { ApiErrorCode, ControlApiErrorCode } from '../error-codes';
import { type ApiResponse, errorResponse } from './http';

/** An error the control API answers as `{ error: { code, message } }` with an HTTP status. */
export class ApiError<C extends ControlApiErrorCode = ControlApiErrorCode> extends Error {
  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** The stable, machine-readable code. */
    readonly code: C,
    message: string,
    /** Extra response headers (for example `allow` or `retry-after`). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** This error as an answer. */
  toResponse(): ApiResponse {
    return errorResponse(this.status, this.code, this.message, this.headers);
  }
}

/** Bad input: `400 invalid_argument`, the message starting with the field. */
export function invalidArgument(field: string, message: string): ApiError<'invalid_argument'> {
  return new ApiError(400, 'invalid_argument', `${field}: ${message}`);
}

/**
 * The status of an engine or protocol code that is never the caller's doing (a store's fault, a
 * meter a backend got wrong, the AWS transport's own codes): such an error answers
 * `500 internal_error`, its message kept from the caller.
 */
const INTERNAL = 500;

/**
 * HTTP status of each stable engine and protocol error code. Typed against their unions: a code
 * added to the engine or the protocol without a status here fails the type-check. Looked up by a
 * string read off an error, it is undefined for a code neither declares.
 */
export const ENGINE_ERROR_STATUS: Readonly<Record<EngineErrorCode | ProtocolErrorCode, number>> &
  Readonly<Partial<Record<string, number>>> = {
  invalid_argument: 400,
  invalid_callback_id: 400,
  run_not_found: 404,
  callback_not_found: 404,
  function_not_found: 404,
  operation_not_found: 404,
  callback_already_completed: 409,
  run_key_conflict: 409,
  run_state_conflict: 409,
  nothing_to_wake: 409,
  operation_state_conflict: 409,
  run_busy: 409,
  run_ended: 409,
  payload_too_large: 413,
  invalid_meter: INTERNAL,
  stale_checkpoint_token: INTERNAL,
  checkpoint_rejected: INTERNAL,
  backend_fault: INTERNAL,
  fenced: INTERNAL,
};

/** HTTP status of each of the control API's own codes. */
const OWN_ERROR_STATUS: Readonly<Record<ApiErrorCode, number>> = {
  invalid_json: 400,
  bad_request: 400,
  payload_not_found: 404,
  request_headers_too_large: 431,
  not_found: 404,
  method_not_allowed: 405,
  unsupported_media_type: 415,
  idempotency_in_progress: 409,
  idempotency_key_reused: 422,
  export_incomplete: 422,
  internal_error: 500,
};

/**
 * Every error code the control API answers, with its HTTP status: the engine's and the protocol's
 * codes it passes on and its own. A code never changes its meaning or status. Typed against
 * {@link ControlApiErrorCode}, so every code of every layer the API serves has one; looked up by
 * a code read off the wire, it is undefined for a code the API does not know.
 */
export const API_ERROR_STATUS: Readonly<Record<ControlApiErrorCode, number>> &
  Readonly<Partial<Record<string, number>>> = { ...ENGINE_ERROR_STATUS, ...OWN_ERROR_STATUS };

/**
 * The {@link ApiError} for a thrown error: itself, or an engine or protocol error mapped by its
 * stable `code`. Undefined for anything else, and for a code that is never the caller's (both
 * answer `500 internal_error`).
 */
export function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  const status = callerErrorStatus(code);
  return status === undefined
    ? undefined
    : new ApiError(status, code as EngineErrorCode | ProtocolErrorCode, error.message);
}

/**
 * The status of an engine or protocol code that is the caller's doing (a 4xx); undefined for any
 * other value, and for a code that answers `500 internal_error`.
 */
export function callerErrorStatus(code: unknown): number | undefined {
  if (typeof code !== 'string' || !Object.hasOwn(ENGINE_ERROR_STATUS, code)) return undefined;
  const status = ENGINE_ERROR_STATUS[code as EngineErrorCode | ProtocolErrorCode];
  return status >= INTERNAL ? undefined : status;
}
