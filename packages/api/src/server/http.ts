/**
 * The framework-free request and response the control API handles, and small helpers on them.
 */

/** Header or query values as HTTP libraries give them: one string, or several for repeats. */
export type MultiValue = string | readonly string[] | undefined;

/** A request as the control API sees it, free of any HTTP framework. */
export interface ApiRequest {
  /** HTTP method, any case. */
  method: string;
  /** The path without the query string, percent-encoded as sent (`/v1/runs/r1`). */
  path: string;
  /** Query parameters (decoded); a repeated parameter as an array. */
  query?: Record<string, MultiValue>;
  /** Headers; names are matched case-insensitively. */
  headers?: Record<string, MultiValue>;
  /** The body as text, or undefined when there is none. */
  body?: string | undefined;
  /**
   * The caller's verified identity, set by an adapter that has one (never from a header): the
   * IAM principal ARN of a Function URL with IAM auth (`requestContext.authorizer.iam.userArn`).
   * Operator actions record it as who acted.
   */
  principal?: string | undefined;
}

/** An answer of the control API. Header names are lower case. */
export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The header `name` (any case): undefined when absent, an array when it was sent several times. */
export function headerValue(headers: ApiRequest['headers'], name: string): string | readonly string[] | undefined {
  if (!headers) return undefined;
  const wanted = name.toLowerCase();
  const found: string[] = [];
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    if (typeof value === 'string') found.push(value);
    else found.push(...value);
  }
  if (found.length === 0) return undefined;
  return found.length === 1 ? found[0] : found;
}

/** A JSON answer. */
export function jsonResponse(status: number, value: unknown, headers: Record<string, string> = {}): ApiResponse {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
    body: JSON.stringify(value),
  };
}

/** An error answer: `{ error: { code, message } }`. */
export function errorResponse(
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): ApiResponse {
  return jsonResponse(status, { error: { code, message } }, headers);
}
