/**
 * The rule every store applies as it stores a signal (`Store.appendSignal`), for the stores that
 * hold the run record in hand (memory, SQLite): a pure decision on the run as read, applied in
 * the store's own atomic write. The DynamoDB store writes the same rule as one transaction.
 */
import type { RunRecord } from './run-record';
import type { SignalAppend, SignalRecord, SignalSend } from './signals';

/** What to write: the signal and the run as changed (`signalSeq`, `eventSeq`, `updatedAt`), or the answer alone. */
export type InboxDecision = { answer: SignalAppend; write?: { signal: SignalRecord; run: RunRecord } };

/**
 * Decides `send` against `run` (live, or undefined) and its inbox (`inbox`: the signals of this
 * creation of the run). Nothing in the arguments is changed.
 */
export function decideSignal(
  run: RunRecord | undefined,
  inbox: readonly SignalRecord[],
  send: SignalSend,
  now: number,
): InboxDecision {
  if (!run) return { answer: { kind: 'not_found' } };
  if (send.dedupeKey !== undefined) {
    const same = inbox.find((s) => s.dedupeKey === send.dedupeKey);
    if (same) {
      const answer = { kind: 'stored', signal: { ...same }, created: false, status: run.status } as const;
      return { answer: { ...answer, functionName: run.functionName } };
    }
  }
  if (run.status !== 'RUNNING' && run.status !== 'QUEUED') return { answer: { kind: 'ended', status: run.status } };
  const seq = (run.signalSeq ?? 0) + 1;
  const signal: SignalRecord = {
    runId: run.runId,
    seq,
    name: send.name,
    sentAt: send.sentAt,
    ...(send.payload === undefined ? {} : { payload: send.payload }),
    ...(send.dedupeKey === undefined ? {} : { dedupeKey: send.dedupeKey }),
  };
  // A QUEUED run has not run yet: it will find the signal when it does; only a RUNNING one is due.
  const event = run.status === 'RUNNING' ? { eventSeq: run.eventSeq + 1 } : {};
  const next: RunRecord = { ...run, signalSeq: seq, ...event, updatedAt: now };
  const answer = { kind: 'stored', signal, created: true, status: run.status, functionName: run.functionName } as const;
  return { answer, write: { signal, run: next } };
}
