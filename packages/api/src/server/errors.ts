import { type ApiResponse, errorResponse } from './http';

/** An error the control API answers as `{ error: { code, message } }` with an HTTP status. */
export class ApiError extends Error {
  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** The stable, machine-readable code. */
    readonly code: string,
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
export function invalidArgument(field: string, message: string): ApiError {
  return new ApiError(400, 'invalid_argument', `${field}: ${message}`);
}

/** HTTP status of each stable engine error code the API passes on. */
export const ENGINE_ERROR_STATUS: Readonly<Record<string, number>> = {
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
  payload_too_large: 413,
};

/**
 * Every error code the control API answers, with its HTTP status: the engine's codes it passes
 * on and its own. A code never changes its meaning or status.
 */
export const API_ERROR_STATUS: Readonly<Record<string, number>> = {
  ...ENGINE_ERROR_STATUS,
  invalid_json: 400,
  bad_request: 400,
  payload_not_found: 404,
  request_headers_too_large: 431,
  not_found: 404,
  method_not_allowed: 405,
  unsupported_media_type: 415,
  idempotency_in_progress: 409,
  idempotency_key_reused: 422,
  internal_error: 500,
};

/**
 * The {@link ApiError} for a thrown error: itself, or an engine error mapped by its stable
 * `code`. Undefined for anything else (an internal error).
 */
export function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return undefined;
  const status = ENGINE_ERROR_STATUS[code];
  return status === undefined ? undefined : new ApiError(status, code, error.message);
}
