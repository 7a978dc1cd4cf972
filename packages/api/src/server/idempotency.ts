import { createHash, randomUUID } from 'node:crypto';
import type { Clock, IdempotencyRecord, Store } from '@durable-lambda/engine';
import { ApiError } from './errors';
import { type ApiRequest, type ApiResponse, errorResponse, headerValue } from './http';

/** The request header that makes a POST idempotent. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** The response header set on a replayed answer. */
export const IDEMPOTENT_REPLAYED_HEADER = 'idempotent-replayed';
/** How long an idempotency record lives by default: 24 hours. */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

const KEY_FORMAT = /^[\x20-\x7e]{1,255}$/;

/** Delays before a store call of the key's record that threw is tried again, ms. */
const RECORD_RETRY_MS = [50, 250];

/** What idempotent handling needs. */
export interface IdempotencyDeps {
  store: Pick<Store, 'claimIdempotencyKey' | 'completeIdempotencyKey' | 'releaseIdempotencyKey'>;
  clock: Clock;
  ttlMs: number;
  /** Told of errors that must not change the answer (a response that could not be stored). */
  report(error: unknown): void;
}

/**
 * The request's `Idempotency-Key`: undefined when absent; `400 invalid_argument` naming the
 * header unless it is given once with 1-255 printable ASCII characters.
 */
export function readIdempotencyKey(request: ApiRequest): string | undefined {
  const value = headerValue(request.headers, IDEMPOTENCY_KEY_HEADER);
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new ApiError(400, 'invalid_argument', 'Idempotency-Key: must be given once');
  if (!KEY_FORMAT.test(value)) {
    throw new ApiError(400, 'invalid_argument', 'Idempotency-Key: must be 1-255 printable ASCII characters');
  }
  return value;
}

/** The record key: the client's key scoped by method and path. */
export function idempotencyRecordKey(method: string, path: string, key: string): string {
  return `${method} ${path} ${key}`;
}

/** Digest of what makes two requests the same: method, path and body. */
export function requestHash(method: string, path: string, body: string | undefined): string {
  return createHash('sha256')
    .update(`${method}\n${path}\n${body ?? ''}`)
    .digest('hex');
}

/**
 * How long a claimed key is held while its request is in progress: the longest a Lambda
 * invocation may run, so a live request never loses its key, and a dead one frees it soon.
 */
export const IN_PROGRESS_MS = 15 * 60_000;

/**
 * Runs `execute` at most once per key (until the record expires). The first request claims the
 * key with a fresh `claimToken` (a claim retried after a lost response is its own); its answer
 * is stored when it is 2xx or 4xx and replayed to repeats with `idempotent-replayed: true`; on a
 * 5xx or a thrown error the key is released so a retry runs again (routes never answer 5xx for
 * work already durable: see `afterDurableWrite`). A repeat while the first is running answers
 * `409 idempotency_in_progress`; the same key with another method, path or body answers
 * `422 idempotency_key_reused`.
 */
export async function withIdempotency(
  deps: IdempotencyDeps,
  request: { method: string; path: string; body: string | undefined; key: string },
  execute: () => Promise<ApiResponse>,
): Promise<ApiResponse> {
  const key = idempotencyRecordKey(request.method, request.path, request.key);
  const hash = requestHash(request.method, request.path, request.body);
  const now = deps.clock.now();
  const record: IdempotencyRecord = {
    key,
    requestHash: hash,
    state: 'IN_PROGRESS',
    // This request's own mark: a claim the store retries after a lost response finds it and is
    // granted, instead of answering this very request `409 idempotency_in_progress`.
    claimToken: randomUUID(),
    createdAt: now,
    // In progress, the key is held only as long as a request can run (a request whose process
    // died leaves it for minutes, not the whole retention); its answer keeps it for `ttlMs`.
    expiresAt: now + Math.min(deps.ttlMs, IN_PROGRESS_MS),
  };
  const claimed = { claimToken: record.claimToken as string, expiresAt: now + deps.ttlMs };
  // Retried with the same token: a claim that landed although it threw is recognised as ours.
  const claim = await retried(deps, () => deps.store.claimIdempotencyKey(record));
  if (!claim.claimed) return answerRepeat(claim.existing, hash);

  let response: ApiResponse;
  try {
    response = await execute();
  } catch (error) {
    await deps.store.releaseIdempotencyKey(key, claimed.claimToken).catch(deps.report);
    throw error;
  }
  if (response.status >= 500) {
    await deps.store.releaseIdempotencyKey(key, claimed.claimToken).catch(deps.report);
    return response;
  }
  try {
    // Retried a few times (it only overwrites the record); after that the work is still done, so
    // it is answered, and a repeat sees the key in progress until it expires (never runs twice).
    await retried(deps, () =>
      deps.store.completeIdempotencyKey(
        key,
        { status: response.status, body: response.body, headers: response.headers },
        claimed,
      ),
    );
  } catch (error) {
    deps.report(error);
  }
  return response;
}

/** Runs `call`, trying again after {@link RECORD_RETRY_MS} when it throws. */
async function retried<T>(deps: IdempotencyDeps, call: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const delay = RECORD_RETRY_MS[attempt];
      if (delay === undefined) throw error;
      deps.report(error);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

function answerRepeat(existing: IdempotencyRecord, hash: string): ApiResponse {
  if (existing.requestHash !== hash) {
    return errorResponse(
      422,
      'idempotency_key_reused',
      'Idempotency-Key: this key was already used with a different request (method, path or body)',
    );
  }
  if (existing.state !== 'COMPLETED' || !existing.response) {
    return errorResponse(
      409,
      'idempotency_in_progress',
      'Idempotency-Key: a request with this key is still in progress; retry it after a moment',
      { 'retry-after': '1' },
    );
  }
  const stored = existing.response;
  return {
    status: stored.status,
    headers: { ...(stored.headers ?? {}), [IDEMPOTENT_REPLAYED_HEADER]: 'true' },
    body: stored.body,
  };
}
