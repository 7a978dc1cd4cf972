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

/** The codes of `CostEstimateError` (`durable cost`): a bad option, no such function, no metered run. */
export const COST_ESTIMATE_ERROR_CODES = ['invalid_option', 'unknown_function', 'no_metered_runs'] as const;

/** One of {@link COST_ESTIMATE_ERROR_CODES}. */
export type CostEstimateErrorCode = (typeof COST_ESTIMATE_ERROR_CODES)[number];

/**
 * The codes of the client side's own errors (the client's, and `durable cost`'s arithmetic over
 * what it reads): none of them is an answer of the control API, so none has an HTTP status.
 * A code never changes its meaning.
 */
export const CLIENT_ERROR_CODES = [
  // DurableApiError: an answer that is not JSON.
  'invalid_response',
  // DurableConnectionError: the API could not be reached.
  'unreachable',
  ...COST_ESTIMATE_ERROR_CODES,
] as const;

/** One of {@link CLIENT_ERROR_CODES}. */
export type ClientErrorCode = (typeof CLIENT_ERROR_CODES)[number];

/**
 * Base of the errors of the control API's client side (its client, `estimateCost`): each carries
 * one stable code, its own ({@link ClientErrorCode}) or, for {@link DurableApiError}, the one the
 * API answered with (open: a newer server's codes are kept as they came).
 */
export abstract class DurableClientError<
  C extends ClientErrorCode | DurableApiErrorCode = ClientErrorCode | DurableApiErrorCode,
> extends Error {
  /** Stable code. */
  abstract readonly code: C;
}

/** The API answered with an error status. */
export class DurableApiError extends DurableClientError<DurableApiErrorCode> {
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

/** The API could not be reached (after the retries): code `unreachable`. */
export class DurableConnectionError extends DurableClientError<'unreachable'> {
  /** Stable code. */
  readonly code = 'unreachable';
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
