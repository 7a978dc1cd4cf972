import type { ControlApiErrorCode } from '../error-codes';

/**
 * What the control API's client throws and how it reads an answer's body: kept apart from the
 * client's calls (client.ts), which use them on every request.
 */

/**
 * The code of a {@link DurableApiError}: one the control API answers with (each has its status in
 * `API_ERROR_STATUS`), the client's own (`invalid_response`, `http_<status>` for an answer without
 * a code), or a code this client does not know yet (a newer server's), kept as it came.
 */
export type DurableApiErrorCode = ControlApiErrorCode | 'invalid_response' | `http_${number}` | (string & {});

/** The API answered with an error status. */
export class DurableApiError extends Error {
  constructor(
    /** The HTTP status. */
    readonly status: number,
    /**
     * The stable error code (`run_not_found`, …); `http_<status>` when the answer had none.
     * `isControlApiErrorCode(error.code)` narrows it to the codes the API declares.
     */
    readonly code: DurableApiErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DurableApiError';
  }
}

/** The API could not be reached (after the retries). */
export class DurableConnectionError extends Error {
  constructor(
    /** The URL that could not be reached. */
    readonly url: string,
    options: { cause: unknown },
  ) {
    const reason = options.cause instanceof Error ? describeCause(options.cause) : String(options.cause);
    super(`cannot reach ${url}: ${reason}`, options);
    this.name = 'DurableConnectionError';
  }
}

function describeCause(error: Error): string {
  const inner = (error as { cause?: unknown }).cause;
  const code = (inner as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return `${error.message} (${code})`;
  return inner instanceof Error ? `${error.message} (${inner.message})` : error.message;
}

/** The body as JSON; undefined when it is empty or not JSON. */
export function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The stable error code of an error answer's body, if it has one. */
export function errorCode(value: unknown): string | undefined {
  const code = (value as { error?: { code?: unknown } } | undefined)?.error?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The message of an error answer's body, if it has one. */
export function errorMessage(value: unknown): string | undefined {
  const message = (value as { error?: { message?: unknown } } | undefined)?.error?.message;
  return typeof message === 'string' ? message : undefined;
}
