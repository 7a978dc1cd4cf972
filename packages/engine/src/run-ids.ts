import { createHash, randomUUID } from 'node:crypto';

/**
 * The run id for a start. With a key (a run key, or the Lambda request id of a plain event)
 * it is derived from the function and the key, so a duplicate delivery lands on the same run;
 * without one it is random. Ids use `[0-9a-z]` only: they appear in idempotency keys
 * (`<runId>:<stepId>:<attempt>`), schedule names and URLs.
 */
export function runIdFor(functionName: string, key: string | undefined): string {
  if (key === undefined) return `r${randomUUID().replaceAll('-', '')}`;
  const digest = createHash('sha256').update(functionName).update('\u0000').update(key).digest('hex');
  return `k${digest.slice(0, 32)}`;
}
