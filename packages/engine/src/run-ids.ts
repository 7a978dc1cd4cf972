import { createHash, randomBytes, randomUUID } from 'node:crypto';

/**
 * The run id for a start. With a key (a run key, or the Lambda request id of a plain event)
 * it is derived from the key alone, so a duplicate delivery lands on the same run and a key is
 * unique across the functions sharing a store (reusing it for another function is a conflict);
 * without one it is random. Ids use `[0-9a-z]` only: they appear in idempotency keys
 * (`<runId>:<stepId>:<attempt>`), schedule names and URLs.
 */
export function runIdFor(key: string | undefined): string {
  if (key === undefined) return `r${randomUUID().replaceAll('-', '')}`;
  const digest = createHash('sha256').update(key).digest('hex');
  return `k${digest.slice(0, 32)}`;
}

/**
 * A fresh incarnation for a run started with a key (see `RunRecord.incarnation`): 64 random bits
 * as 16 hex digits, so two creations of one run id never share one, whatever the store still
 * remembers of the old run (DynamoDB's TTL deletes its item in the end, and with it its fences).
 */
export function newIncarnation(): string {
  return randomBytes(8).toString('hex');
}
