/**
 * Lambda's REST-JSON conventions for the Lambda-shaped routes: timestamps as epoch seconds,
 * errors named by `x-amzn-errortype` (the names AWS's SDKs classify on), bodies without nulls.
 */

import type { ControlApiErrorCode } from '../error-codes';
import type { RouteDeps } from '../server/deps';
import { ApiError, callerErrorStatus } from '../server/errors';
import type { ApiResponse } from '../server/http';
import type { Route, RouteCall } from '../server/router';

/**
 * The Lambda exceptions the Lambda-shaped routes answer with, and the control API's code each
 * stands for (an `AwsRouteError`'s `code` when none is given). Typed against both unions: a new
 * exception without a code fails the type-check.
 */
const EXCEPTION_CODES: Readonly<Record<LambdaExceptionName, ControlApiErrorCode>> = {
  InvalidParameterValueException: 'invalid_argument',
  InvalidRequestContentException: 'invalid_json',
  RequestTooLargeException: 'payload_too_large',
  UnsupportedMediaTypeException: 'unsupported_media_type',
  ResourceNotFoundException: 'not_found',
  ResourceConflictException: 'run_state_conflict',
  DurableExecutionAlreadyStartedException: 'run_key_conflict',
  // A checkpoint sent again while its first sending is still in progress.
  TooManyRequestsException: 'idempotency_in_progress',
  ServiceException: 'internal_error',
};

/** The Lambda exception names the Lambda-shaped routes answer with. */
export type LambdaExceptionName =
  | 'InvalidParameterValueException'
  | 'InvalidRequestContentException'
  | 'RequestTooLargeException'
  | 'UnsupportedMediaTypeException'
  | 'ResourceNotFoundException'
  | 'ResourceConflictException'
  | 'DurableExecutionAlreadyStartedException'
  | 'TooManyRequestsException'
  | 'ServiceException';

/**
 * An error answered the way Lambda answers it: an HTTP status and an exception name (its `name`).
 * An {@link ApiError}: its `code` is the control API's code it stands for, given (the code of the
 * error it was mapped from) or that of its exception; only the status and the name are answered.
 */
export class AwsRouteError extends ApiError {
  constructor(
    status: number,
    /** Lambda's exception name, e.g. `InvalidParameterValueException`. */
    readonly type: string,
    message: string,
    code: ControlApiErrorCode = codeOfException(type, status),
  ) {
    super(status, code, message);
    this.name = type;
  }

  /** This error as Lambda answers it. */
  override toResponse(): ApiResponse {
    return awsErrorResponse(this);
  }
}

/** The code an exception name stands for; `bad_request` or `internal_error` by status for another name. */
function codeOfException(type: string, status: number): ControlApiErrorCode {
  if (Object.hasOwn(EXCEPTION_CODES, type)) return EXCEPTION_CODES[type as LambdaExceptionName];
  return status >= 500 ? 'internal_error' : 'bad_request';
}

/** Dates become epoch seconds (Lambda's REST-JSON timestamp format); undefined fields are left out. */
export function toAwsJson(value: unknown): unknown {
  if (value instanceof Date) return value.getTime() / 1000;
  if (Array.isArray(value)) return value.map(toAwsJson);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) if (field !== undefined) out[key] = toAwsJson(field);
    return out;
  }
  return value;
}

/** A Lambda-shaped JSON answer. */
export function awsJson(status: number, value: unknown): ApiResponse {
  return {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    body: JSON.stringify(toAwsJson(value)),
  };
}

/** A Lambda-shaped error answer: AWS's SDKs read the type from the header and the message from the body. */
export function awsErrorResponse(error: AwsRouteError): ApiResponse {
  return {
    status: error.status,
    headers: { 'content-type': 'application/json', 'x-amzn-errortype': error.type, 'cache-control': 'no-store' },
    body: JSON.stringify({ Type: error.status < 500 ? 'User' : 'Service', message: error.message }),
  };
}

/** Our engine's and API's stable error codes as Lambda's exception names and statuses. */
const BY_CODE: Readonly<Partial<Record<ControlApiErrorCode, [number, LambdaExceptionName]>>> = {
  invalid_argument: [400, 'InvalidParameterValueException'],
  invalid_callback_id: [400, 'InvalidParameterValueException'],
  invalid_json: [400, 'InvalidRequestContentException'],
  payload_too_large: [413, 'RequestTooLargeException'],
  unsupported_media_type: [415, 'UnsupportedMediaTypeException'],
  run_not_found: [404, 'ResourceNotFoundException'],
  callback_not_found: [404, 'ResourceNotFoundException'],
  function_not_found: [404, 'ResourceNotFoundException'],
  callback_already_completed: [409, 'ResourceConflictException'],
  run_state_conflict: [409, 'ResourceConflictException'],
  run_busy: [409, 'ResourceConflictException'],
  // Lambda's answer to an execution name that names another execution (Invoke's run key).
  run_key_conflict: [409, 'DurableExecutionAlreadyStartedException'],
  operation_not_found: [404, 'ResourceNotFoundException'],
};

/** Lambda's exception for an engine code not named above, by its status. */
const BY_STATUS: Readonly<Partial<Record<number, LambdaExceptionName>>> = {
  400: 'InvalidParameterValueException',
  404: 'ResourceNotFoundException',
  409: 'ResourceConflictException',
  413: 'RequestTooLargeException',
};

/** The Lambda-shaped error for a thrown error; undefined for an unexpected one (a 500). */
export function toAwsRouteError(error: unknown): AwsRouteError | undefined {
  if (error instanceof AwsRouteError) return error;
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return undefined;
  // A stable code that is the caller's doing answers as Lambda's would: by name, else by status.
  // The engine's codes that are never the caller's (status 500 in the map) stay unexpected here.
  const status = callerErrorStatus(code);
  const known =
    (Object.hasOwn(BY_CODE, code) ? BY_CODE[code as ControlApiErrorCode] : undefined) ??
    (status === undefined ? undefined : ([status, BY_STATUS[status]] as const));
  return known?.[1] ? new AwsRouteError(known[0], known[1], error.message, code as ControlApiErrorCode) : undefined;
}

/** A JSON object body (or `{}` when there is none). */
export function awsObjectBody(body: string | undefined): Record<string, unknown> {
  if (body === undefined || body.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new AwsRouteError(400, 'InvalidRequestContentException', 'body: not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new AwsRouteError(400, 'InvalidRequestContentException', 'body: must be a JSON object');
  }
  return value as Record<string, unknown>;
}

/** Where the Lambda-shaped routes live (Lambda's API version). */
export const AWS_ROUTE_PREFIX = '/2025-12-01';

/** Runs a Lambda-shaped route: its errors answer as Lambda's do, unexpected ones as a 500 Lambda's SDKs retry. */
export function awsRoute(
  deps: Pick<RouteDeps, 'report'>,
  method: Route['method'],
  pattern: string,
  handle: (call: RouteCall) => Promise<ApiResponse>,
): Route {
  return {
    method,
    pattern,
    // AWS's SDKs are these routes' clients: what they send is taken (see `refusedBodyType`).
    accepts: 'aws',
    handle: async (call) => {
      try {
        return await handle(call);
      } catch (error) {
        const known = toAwsRouteError(error);
        if (known) return awsErrorResponse(known);
        deps.report(error);
        return awsErrorResponse(new AwsRouteError(500, 'ServiceException', 'internal error'));
      }
    },
  };
}
