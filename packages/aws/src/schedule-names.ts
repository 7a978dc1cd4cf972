import { createHash } from 'node:crypto';
import type { WakeRequest } from '@durable-lambda/engine';

/** AWS's constraint on schedule and schedule group names: 1–64 of `[0-9a-zA-Z-_.]`. */
export const SCHEDULE_NAME_PATTERN = /^[0-9a-zA-Z_.-]{1,64}$/;

/** AWS's constraint on a Scheduler `ClientToken`: 1–64 of `[a-zA-Z0-9-_]`. */
export const CLIENT_TOKEN_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

// Engine run ids are `k` or `r` + 32 hex digits; anything else is hashed so names stay valid.
const PLAIN_RUN_ID = /^[0-9a-zA-Z]{1,40}$/;
// Every WakeRequest reason (`due`, `lease`, `event`, `reconcile`) is kept as it is.
const PLAIN_REASON = /^[0-9a-zA-Z]{1,9}$/;

/** The whole UTC second a wake-up is scheduled for: `at` rounded up, so it never fires early. */
export function scheduledSecond(at: number): number {
  return Math.ceil(at / 1000);
}

/** The one-time schedule expression `at(yyyy-mm-ddThh:mm:ss)` (UTC) for a wake-up at `at` (epoch ms). */
export function atExpression(at: number): string {
  return `at(${new Date(scheduledSecond(at) * 1000).toISOString().slice(0, 19)})`;
}

/**
 * The schedule name of a wake-up: `<runId>-<reason>-<epoch second>`, for example
 * `k0123…cdef-due-1767225600` (at most 54 characters for engine run ids, reason `reconcile`).
 * It is derived from the run, the reason and the scheduled second only, so asking for the same
 * wake-up again names the same schedule, and Scheduler refuses the duplicate (`ConflictException`).
 */
export function scheduleName(request: Pick<WakeRequest, 'runId' | 'at' | 'reason'>): string {
  const run = PLAIN_RUN_ID.test(request.runId) ? request.runId : `h${sha256(request.runId).slice(0, 32)}`;
  const reason = PLAIN_REASON.test(request.reason) ? request.reason : `h${sha256(request.reason).slice(0, 7)}`;
  return `${run}-${reason}-${scheduledSecond(request.at)}`;
}

/** The `ClientToken` of a schedule's creation: 64 hex digits hashed from its group and name. */
export function scheduleClientToken(groupName: string, name: string): string {
  return sha256(`${groupName}/${name}`);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
