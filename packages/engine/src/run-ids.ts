import { createHash, randomUUID } from 'node:crypto';

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
