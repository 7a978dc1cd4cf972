import type { DurableInvocation } from '@durable-lambda/protocol';
import type { Waiter } from './waiters';

/** Real time an invocation keeps in hand after an in-process sleep. */
export const SLEEP_MARGIN_MS = 2_000;

/**
 * Real time the other code must have run before a skipping clock skips to a wait beside it: code
 * that ends sooner (a quick step, a serdes) leaves the wait to end the invocation, as before.
 */
export const BUSY_GRACE_MS = 500;

/** What to do for the waits of a handler whose other code still runs. */
export type BusyStep = { skipTo: number } | { timerMs: number } | 'unpark' | undefined;

/**
 * Parts of the handler waiting for a time (a wait, a retry's backoff) while its other code still
 * runs (a long step) need not wait for that code to end, nor for a later invocation (AWS's force
 * checkpointing: a branch that blocks does not keep the others from finishing). The earliest
 * one due within the invocation's time ends in-process when due: where the backend's clock can
 * skip ahead (`skipTo`: the test runner's virtual clock) once the other code has run for
 * {@link BUSY_GRACE_MS}, else after a real timer.
 * A START still parked for a suspension is written first (the wait's due time is set by it).
 */
export function busyStep(waiters: Iterable<Waiter>, invocation: DurableInvocation, hasParked: boolean): BusyStep {
  let earliest: number | undefined;
  for (const w of waiters) {
    if (w.dueAt === undefined || (w.demand && !w.demand.awaited)) continue;
    if (earliest === undefined || w.dueAt < earliest) earliest = w.dueAt;
  }
  if (earliest === undefined) return undefined;
  if (hasParked) return 'unpark';
  const delay = Math.max(0, earliest - invocation.now());
  if (invocation.remainingTimeMs() - delay <= SLEEP_MARGIN_MS) return undefined;
  return invocation.skipTo ? { skipTo: earliest } : { timerMs: delay };
}
