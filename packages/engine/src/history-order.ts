/**
 * The run's history as a record (issue 23): every history event gets its place in the run's order
 * when it happens, instead of an order inferred afterwards from timestamps.
 *
 * The run counts the events its invocations record (`RunRecord.historySeq`, carried by the writes
 * that record them: each checkpoint's and each end's run patch); each operation keeps where its own
 * events stand (`Operation.HistoryOrder`, one number per event, oldest first), and each ended
 * invocation where its end stands (`RunRecord.historyInvocations`). An event written from outside
 * the run's invocations (a callback completed, a child run ended, an operator's revision) does not
 * count: it stands at `n + 0.5`, after the `n` events recorded when it was written and before
 * whatever the run records next. So nothing is written that the write of the event did not
 * already write: no item, no request, a few bytes.
 *
 * A run created before this (no `historySeq`) is never given positions: its history keeps the
 * inferred order.
 */

import { isTerminal, type Operation } from '@durable-lambda/protocol';

/** An ended invocation of a run, where its end stands in the run's history. */
export interface HistoryInvocation {
  /** When it took the lease (epoch ms). */
  startedAt: number;
  /** When it released it (epoch ms). */
  endedAt: number;
  /** Its `InvocationCompleted` event's place in the run's order. */
  order: number;
}

/**
 * How many ended invocations a run keeps (the latest): each is a few bytes of the run record that
 * every write pays for, so a run woken every minute for a year keeps only its recent ones (the
 * older ones' `InvocationCompleted` events are left out of its history, as before).
 */
export const MAX_HISTORY_INVOCATIONS = 20;

/** The first event of every run, its `ExecutionStarted`. */
export const FIRST_HISTORY_ORDER = 1;

/**
 * How many history events an operation stands for, as `toAwsHistoryEvents` builds them
 * (`aws-history-drafts.ts`): what the engine numbers when an update adds some.
 */
export function historyEventCount(op: Operation): number {
  switch (op.Type) {
    case 'EXECUTION':
      return op.Status === 'STARTED' || op.Status === 'PENDING' || op.Status === 'READY' ? 1 : 2;
    case 'STEP': {
      const { count, last } = failureCount(op);
      const attempt = op.StepDetails?.Attempt ?? 1;
      const running = op.Status === 'SUCCEEDED' || (op.Status === 'STARTED' && attempt > last) ? 1 : 0;
      return 2 * count + running + (op.Status === 'SUCCEEDED' ? 1 : 0);
    }
    case 'WAIT':
      return op.Status === 'SUCCEEDED' || op.Status === 'CANCELLED' ? 2 : 1;
    case 'CALLBACK':
      return op.Status === 'SUCCEEDED' || op.Status === 'FAILED' || op.Status === 'TIMED_OUT' ? 2 : 1;
    case 'CHAINED_INVOKE':
      return isTerminal(op.Status) ? 2 : 1;
    case 'CONTEXT':
      return op.Status === 'SUCCEEDED' || op.Status === 'FAILED' ? 2 : 1;
    default:
      return 0;
  }
}

/**
 * How many failed attempts `failedAttempts(op)` lists, and the latest one's number, without the
 * sorted copy it makes: counted twice for every update a checkpoint writes (the hot path).
 */
function failureCount(op: Operation): { count: number; last: number } {
  const details = op.StepDetails;
  const kept = details?.FailedAttempts;
  if (kept && kept.length > 0) {
    let last = 0;
    for (const f of kept) if (f.Attempt > last) last = f.Attempt;
    return { count: kept.length, last };
  }
  const failing = op.Status === 'FAILED' || op.Status === 'PENDING' || op.Status === 'READY';
  return failing && details?.Error ? { count: 1, last: details.Attempt ?? 0 } : { count: 0, last: 0 };
}

/**
 * `after` (the operation `before` became) with the places of its events: those `before` had, and
 * one from `place()` for each event the change added. A change that takes events away (an
 * operator's retry reopens an operation) keeps the places of the events left.
 */
export function withHistoryOrder(before: Operation | undefined, after: Operation, place: () => number): Operation {
  const had = before?.HistoryOrder ?? [];
  const count = historyEventCount(after);
  const added = count - (before ? historyEventCount(before) : 0);
  const order = added > 0 ? [...had] : had.slice(0, count);
  for (let i = 0; i < added; i += 1) order.push(place());
  return { ...after, HistoryOrder: order };
}

/**
 * The place of an event written from outside the run's invocations when its count is `count`:
 * `count + 0.5`, or, written while an invocation holds the run (`held`), `count + 0.75`: after that
 * invocation's end, which the reader knows ({@link effectivePlace}). An invocation does not see
 * what lands while it runs (it replays from what it read), so the event comes after it, as AWS's
 * service lists a callback completed while the invocation that suspended on it was ending.
 */
export function outsidePlace(count: number, held: boolean): () => number {
  return () => count + (held ? HELD : 0.5);
}

/** The fraction of a place written while an invocation held the run. */
const HELD = 0.75;

/** Whether `place` was written while an invocation held the run (see {@link outsidePlace}). */
export function isHeldPlace(place: number): boolean {
  return place - Math.floor(place) === HELD;
}

/**
 * Where an event placed while an invocation held the run stands: just after the end of the first
 * invocation that ended past its place and had started by the event's time `at` (the one that held
 * the run); where it was written when no such end is recorded (the invocation still runs, or was lost).
 */
export function effectivePlace(place: number, at: number, invocations: readonly HistoryInvocation[]): number {
  if (!isHeldPlace(place)) return place;
  const holder = invocations.find((inv) => inv.order > place && inv.startedAt <= at);
  return holder ? holder.order + 0.5 : place;
}

/** Whether an invocation holds `run` at `now` (its lease has not lapsed). */
export function heldAt(run: { leaseExpiresAt?: number }, now: number): boolean {
  return run.leaseExpiresAt !== undefined && run.leaseExpiresAt > now;
}

/**
 * `next` (an outside writer's change to `op`) with the places of the events it adds, when the run
 * keeps its history's order (`historySeq` set); unchanged otherwise. `held`: another invocation
 * holds the run as it is written (see {@link outsidePlace}); false for writes by the lease holder.
 */
export function outsideHistoryOrder(
  run: { historySeq?: number },
  op: Operation | undefined,
  next: Operation,
  held = false,
): Operation {
  return run.historySeq === undefined ? next : withHistoryOrder(op, next, outsidePlace(run.historySeq, held));
}

/** The run's ended invocations with one more, the latest {@link MAX_HISTORY_INVOCATIONS} kept. */
export function withInvocation(
  kept: readonly HistoryInvocation[] | undefined,
  ended: HistoryInvocation,
): HistoryInvocation[] {
  return [...(kept ?? []), ended].slice(-MAX_HISTORY_INVOCATIONS);
}

/**
 * An invocation's count of its run's history events: each event it records takes the next
 * place, and every write it makes carries the count reached ({@link HistoryCounter.patch}). Does
 * nothing for a run that keeps no order (created before it was kept).
 */
export class HistoryCounter {
  private written: number | undefined;

  constructor(private count: number | undefined) {
    this.written = count;
  }

  /** The next place in the run's order. */
  next(): number {
    this.count = (this.count ?? 0) + 1;
    return this.count;
  }

  /** `after` (what `before` became in this invocation) with the places of the events it adds. */
  place(before: Operation | undefined, after: Operation): Operation {
    return this.count === undefined ? after : withHistoryOrder(before, after, () => this.next());
  }

  /**
   * An operation this invocation read back while it ran (an outside event it saw: AWS's SDK asks
   * for changes mid-invocation), whose latest event was placed after the end of the invocation
   * holding the run: it stands where this invocation saw it instead, before what it did with it.
   * Undefined when nothing is to change.
   */
  seen(op: Operation): Operation | undefined {
    const order = op.HistoryOrder;
    const last = order?.at(-1);
    if (this.count === undefined || !order || last === undefined || !isHeldPlace(last)) return undefined;
    return { ...op, HistoryOrder: [...order.slice(0, -1), this.count + 0.5] };
  }

  /** The ended invocation with its `InvocationCompleted` placed, or undefined for a run that keeps no order. */
  ended(startedAt: number, endedAt: number): HistoryInvocation | undefined {
    return this.count === undefined ? undefined : { startedAt, endedAt, order: this.next() };
  }

  /** What a write must add to the run patch: the count, when it moved since the last write. */
  patch(): { historySeq?: number } {
    if (this.count === this.written || this.count === undefined) return {};
    this.written = this.count;
    return { historySeq: this.count };
  }
}
