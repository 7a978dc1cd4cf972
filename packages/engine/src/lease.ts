import { randomBytes } from 'node:crypto';
import type { RunRecord } from './ports';

/**
 * The lease rule every store applies, in place: a RUNNING run whose lease is free or lapsed at
 * `now` gets a new fence and a lease until `leaseExpiresAt` held by `leaseToken`; a lapsed lease counts as a lost
 * invocation. Returns whether the previous lease was lost, or undefined when the lease is held
 * (or the run is not RUNNING) and nothing changed. Stores that can only express it as a
 * conditional write (DynamoDB) implement the same rule in their condition.
 */
export function takeLease(
  run: RunRecord,
  now: number,
  leaseExpiresAt: number,
  leaseToken: string,
): { previousLost: boolean } | undefined {
  if (run.status !== 'RUNNING') return undefined;
  if (run.leaseExpiresAt !== undefined && run.leaseExpiresAt > now) return undefined;
  const previousLost = run.leaseExpiresAt !== undefined;
  run.fence += 1;
  run.leaseExpiresAt = leaseExpiresAt;
  run.leaseToken = leaseToken;
  run.invocations += 1;
  if (previousLost) run.lostInvocations += 1;
  run.updatedAt = now;
  return { previousLost };
}

/**
 * A new lease token: 96 random bits as 16 base64url characters. Only equality is ever asked of
 * it, and it is stored in the run item that every checkpoint rewrites, so it is kept short (a
 * UUID's 36 characters cost 20 bytes more per write).
 */
export function newLeaseToken(): string {
  return randomBytes(12).toString('base64url');
}
