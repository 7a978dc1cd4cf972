import { timingSafeEqual } from 'node:crypto';
import { parseCallbackId, type RunRecord } from '@durable-lambda/engine';
import type { ErrorObject } from '@durable-lambda/protocol';
import type { RouteDeps } from './deps';
import { toApiError } from './errors';

/**
 * Runs an engine call made of one durable write and best-effort steps after it (a wake-up, a
 * parent's notification). When it fails with an unexpected error, `landed` reads the store: if
 * the write is there, the request did what it was asked, so its success is answered (and kept
 * by its Idempotency-Key) rather than a 5xx that would release the key and make the retry fail
 * on its own earlier success. The step that failed is left to the reconciler: the write leaves
 * the run due. Expected (coded) errors and failed reads rethrow as they are.
 */
export async function afterDurableWrite<T>(
  deps: RouteDeps,
  call: () => Promise<T>,
  landed: () => Promise<T | undefined>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (toApiError(error)) throw error;
    const found = await landed().catch(() => undefined);
    if (found === undefined) throw error;
    deps.report(error);
    return found;
  }
}

/** What a callback completion stores: its status and its result or error. */
export type CallbackCompletion = { status: 'SUCCEEDED'; result?: string } | { status: 'FAILED'; error: ErrorObject };

/**
 * True when the callback `callbackId` is stored as completed the way `completion` says: its
 * status, and its result or its error's message and code. Undefined otherwise.
 */
export async function callbackCompletedAs(
  deps: RouteDeps,
  callbackId: string,
  completion: CallbackCompletion,
): Promise<true | undefined> {
  const { runId, operationId } = parseCallbackId(callbackId);
  const op = await deps.engine.store.getOperation(runId, operationId);
  const details = op?.CallbackDetails;
  if (op?.Type !== 'CALLBACK' || !details?.CallbackId || !sameSecret(details.CallbackId, callbackId)) return undefined;
  if (op.Status !== completion.status) return undefined;
  if (completion.status === 'SUCCEEDED') return details.Result === completion.result ? true : undefined;
  const stored = details.Error;
  const same =
    stored?.ErrorMessage === completion.error.ErrorMessage &&
    (completion.error.ErrorCode === undefined || stored?.ErrorCode === completion.error.ErrorCode);
  return same ? true : undefined;
}

/**
 * The run, when it moved from the status `before` had to `status` since `before` was read (its
 * fence grew: someone's write, this request's or one just like it, landed). Undefined otherwise.
 */
export async function runMovedTo(
  deps: RouteDeps,
  before: RunRecord,
  status: RunRecord['status'],
): Promise<RunRecord | undefined> {
  const after = await deps.engine.getRun(before.runId);
  return after && after.status === status && after.fence > before.fence ? after : undefined;
}

/** Compares callback ids in constant time: they carry the secret that completes the callback. */
function sameSecret(stored: string, given: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
