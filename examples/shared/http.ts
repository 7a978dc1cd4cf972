/**
 * A tiny JSON-over-HTTP helper for the examples' production wiring. Workflows receive an
 * {@link ApiResponse} and decide themselves what a status means (retry, give up, succeed), so
 * the same decision code runs against the fakes in tests.
 */

/** An HTTP answer reduced to what a workflow needs. */
export interface ApiResponse<T> {
  status: number;
  /** The `Retry-After` header, when the server sent one. */
  retryAfter?: string;
  /** The parsed JSON body, when there was one. */
  body?: T;
}

/** Options of one call. */
export interface CallOptions {
  /** Sent as the `Idempotency-Key` header. */
  idempotencyKey?: string;
  /** Aborts the request (pass the step's `signal`). */
  signal?: AbortSignal;
}

/** The value of an environment variable the production wiring needs; a clear error when it is missing. */
export function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`environment variable ${name} is not set`);
  return value;
}

/** Sends `body` as JSON to `baseUrl + path` and returns the status, `Retry-After` and JSON body. */
export async function callJson<T>(
  baseUrl: string,
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  body: unknown,
  options: CallOptions = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  const response = await fetch(new URL(path, baseUrl), {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const text = await response.text();
  const retryAfter = response.headers.get('retry-after');
  return {
    status: response.status,
    ...(retryAfter === null ? {} : { retryAfter }),
    ...(text ? { body: JSON.parse(text) as T } : {}),
  };
}

/** Throws unless the response is a 2xx; returns its body. */
export function expectOk<T>(response: ApiResponse<T>, what: string): T {
  if (response.status < 200 || response.status > 299) {
    throw new Error(`${what}: HTTP ${response.status}`);
  }
  return response.body as T;
}
