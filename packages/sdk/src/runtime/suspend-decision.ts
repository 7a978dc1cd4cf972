/**
 * The invocation's decision to suspend, from what its blocked parts wait for (see `waiters.ts`):
 * go on, sleep in-process for a wait due soon, or end PENDING. Asked every time the handler's code
 * stops running, so it allocates nothing but its answer.
 */
import { type DurableInvocation, isTerminal, type Operation } from '@durable-lambda/protocol';
import { SLEEP_MARGIN_MS } from './busy-progress';
import type { Waiter } from './waiters';

/** Nothing to do (code runs, or nothing awaited waits), sleep in-process this long, or suspend. */
export type WaitDecision = 'none' | { sleepMs: number } | 'suspend';

/**
 * What `waiters` call for now, with the handler's code all blocked: `none` when no waiter is
 * awaited, a sleep when the earliest due time is at most `inProcessWaitMs` away and fits in the
 * invocation's remaining time, else `suspend`.
 */
export function decideWaits(
  waiters: ReadonlySet<Waiter>,
  invocation: Pick<DurableInvocation, 'now' | 'remainingTimeMs'>,
  inProcessWaitMs: number,
): WaitDecision {
  const now = invocation.now();
  let earliest: number | undefined;
  let waiting = false;
  for (const w of waiters) {
    if (w.demand && !w.demand.awaited) continue;
    waiting = true;
    if (w.dueAt !== undefined && (earliest === undefined || w.dueAt < earliest)) earliest = w.dueAt;
  }
  // Only waits nobody awaits: nothing to suspend for (the handler goes on, or returns).
  if (!waiting) return 'none';
  if (earliest !== undefined) {
    const delay = Math.max(0, earliest - now);
    const fits = delay === 0 || invocation.remainingTimeMs() - delay > SLEEP_MARGIN_MS;
    if (delay <= inProcessWaitMs && fits) return { sleepMs: delay };
  }
  return 'suspend';
}

/**
 * True while a callback or a child run of the run is open among `ops`: its completion from outside
 * may land while the invocation still runs, and an update held for the end would then be stored
 * after it, though made before (the history would show a submitter step ending after its
 * callback). Updates are written as they come then; they ride with the end only when nothing can
 * overtake.
 */
export function awaitsOutside(ops: ReadonlyMap<string, Operation>): boolean {
  for (const op of ops.values()) {
    if ((op.Type === 'CALLBACK' || op.Type === 'CHAINED_INVOKE') && !isTerminal(op.Status)) return true;
  }
  return false;
}
