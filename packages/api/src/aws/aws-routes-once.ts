/**
 * Each checkpoint token writes once, as on Lambda, with no memory in the API container: the
 * first checkpoint with a token claims a record keyed by the token in the store (the control
 * API's idempotency records). A repeat with the same body (AWS's Lambda client retrying after a
 * lost response) finds it and is answered without writing again; a repeat with another body is
 * an invalid token. Without this, a retried checkpoint would apply its updates twice, and the
 * engine would refuse the second as an illegal transition, failing the run.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Clock, Store } from '@durable-lambda/engine';
import { AwsRouteError } from './aws-routes-wire';

/** How long a token's record is kept: longer than any lease it can be used under. */
const RECORD_TTL_MS = 60 * 60_000;
/** How long a claim in progress holds the token (a request that died frees it soon). */
const IN_PROGRESS_MS = 60_000;

/** What the once-per-token rule needs. */
export interface OnceDeps {
  store: Pick<Store, 'claimIdempotencyKey' | 'completeIdempotencyKey' | 'releaseIdempotencyKey'>;
  clock: Clock;
  report(error: unknown): void;
}

/**
 * Runs `apply` once per checkpoint token: `applied` the first time, `replayed` for a repeat of
 * the same checkpoint (whose writes are already stored). A repeat with other updates is an
 * invalid checkpoint token; one while the first is still running is a throttle to retry.
 */
export async function oncePerToken(
  deps: OnceDeps,
  token: string,
  body: string,
  apply: () => Promise<void>,
): Promise<'applied' | 'replayed'> {
  const key = `aws-checkpoint ${createHash('sha256').update(token).digest('hex')}`;
  const requestHash = createHash('sha256').update(body).digest('hex');
  const now = deps.clock.now();
  const claimToken = randomUUID();
  const claim = await deps.store.claimIdempotencyKey({
    key,
    requestHash,
    state: 'IN_PROGRESS',
    claimToken,
    createdAt: now,
    expiresAt: now + IN_PROGRESS_MS,
  });
  if (!claim.claimed) {
    if (claim.existing.requestHash !== requestHash) {
      throw new AwsRouteError(
        400,
        'InvalidParameterValueException',
        'Invalid Checkpoint Token: already used for another checkpoint',
      );
    }
    if (claim.existing.state !== 'COMPLETED') {
      throw new AwsRouteError(429, 'TooManyRequestsException', 'a checkpoint with this token is still in progress');
    }
    return 'replayed';
  }
  try {
    await apply();
  } catch (error) {
    // Nothing was written (or the write was refused): a retry may try again.
    await deps.store.releaseIdempotencyKey(key, claimToken).catch(deps.report);
    throw error;
  }
  await deps.store
    .completeIdempotencyKey(key, { status: 200, body: '' }, { claimToken, expiresAt: now + RECORD_TTL_MS })
    .catch(deps.report);
  return 'applied';
}
