/**
 * How a `DurableClient` talks to the control API: each request sent with its headers (an
 * `Idempotency-Key` on every POST, the same on each retry), a `429`, a `503`, a
 * `409 idempotency_in_progress` or a network error retried with exponential backoff (at least a
 * given `Retry-After`), other errors thrown as `DurableApiError`, an API that stays unreachable as
 * `DurableConnectionError`.
 */
import { DurableApiError, DurableConnectionError, errorCode, errorMessage, parseJson } from './client-errors';

/** Options of a `DurableClient` (`client.ts`), all about how it reaches the API. */
export interface DurableClientOptions {
  /** Where the control API is, for example `http://localhost:3000`. */
  baseUrl: string;
  /**
   * The fetch to use. Default: the global `fetch`. For the deployed API (a Function URL with IAM
   * auth), `createSignedFetch({ region })` of `@durable-lambda/aws` signs each request (each
   * retry anew) with SigV4, its `Idempotency-Key` included.
   */
  fetch?: typeof fetch;
  /** How many times a request is retried after a 429, a 503 or a network error. Default 3. */
  retries?: number;
  /** The first retry's delay, ms; it doubles at each retry (capped at 10 s). Default 200. */
  backoffMs?: number;
  /** Headers sent with every request (for example an authorization header). */
  headers?: Record<string, string>;
}

const MAX_BACKOFF_MS = 10_000;

/** An answer of the API: its status, headers and JSON value. */
export interface RawAnswer {
  status: number;
  headers: Headers;
  value: unknown;
}

/** Sends the requests of one `DurableClient`, with its options. */
export class ClientTransport {
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly headers: Record<string, string>;

  constructor(options: DurableClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.retries = Math.max(0, Math.floor(options.retries ?? 3));
    this.backoffMs = Math.max(0, options.backoffMs ?? 200);
    this.headers = options.headers ?? {};
  }

  /** `method path`, retried as the client's options say; the answer of a 2xx with a JSON body. */
  async request(
    method: 'GET' | 'POST',
    path: string,
    options: { body?: unknown; idempotencyKey?: string; actor?: string } = {},
  ): Promise<RawAnswer> {
    const url = `${this.baseUrl}${path}`;
    const headers: Record<string, string> = { accept: 'application/json', ...this.headers };
    if (options.actor !== undefined) headers['x-durable-actor'] = options.actor;
    let body: string | undefined;
    if (method === 'POST') {
      headers['idempotency-key'] = options.idempotencyKey ?? globalThis.crypto.randomUUID();
      // Every POST, a bodyless one too: the API refuses a state-changing request of any other type.
      headers['content-type'] = 'application/json';
      if (options.body !== undefined) body = JSON.stringify(options.body);
    }
    for (let attempt = 0; ; attempt++) {
      let status: number;
      let responseHeaders: Headers;
      let text: string;
      try {
        const response = await this.fetchImpl(url, { method, headers, ...(body === undefined ? {} : { body }) });
        status = response.status;
        responseHeaders = response.headers;
        text = await response.text();
      } catch (error) {
        // A signing fetch that found no credentials will not find them by retrying.
        if ((error as { code?: unknown } | null)?.code === 'no_aws_credentials') throw error;
        if (attempt < this.retries) {
          await sleep(this.delay(attempt, undefined));
          continue;
        }
        throw new DurableConnectionError(url, { cause: error });
      }
      const value = parseJson(text);
      const code = errorCode(value);
      const retryable = status === 429 || status === 503 || (status === 409 && code === 'idempotency_in_progress');
      if (retryable && attempt < this.retries) {
        await sleep(this.delay(attempt, responseHeaders.get('retry-after')));
        continue;
      }
      if (status >= 200 && status < 300) {
        if (value === undefined)
          throw new DurableApiError(status, 'invalid_response', `${method} ${path}: the answer is not JSON`);
        return { status, headers: responseHeaders, value };
      }
      throw new DurableApiError(
        status,
        code ?? `http_${status}`,
        errorMessage(value) ?? (text.slice(0, 200) || `HTTP ${status}`),
      );
    }
  }

  /** Backoff before retry `attempt + 1`: doubling with jitter, at least a given `Retry-After`. */
  private delay(attempt: number, retryAfter: string | null | undefined): number {
    const base = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2 ** attempt);
    const jittered = base / 2 + (Math.random() * base) / 2;
    const seconds = retryAfter ? Number(retryAfter) : Number.NaN;
    return Number.isFinite(seconds) && seconds >= 0
      ? Math.max(jittered, Math.min(seconds * 1000, MAX_BACKOFF_MS))
      : jittered;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
