/**
 * The invocations of a run's history page with where each one's end stands in the run's recorded
 * history (issue 23, `RunRecord.historyInvocations`), so a reader of the page (the cloud test
 * runner) lists `InvocationCompleted` events in the run's own order.
 */
import type { RunRecord } from '@durable-lambda/engine';
import type { InvocationWire } from '../wire';

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * `invocations` (the store's journal, when it keeps one) with their places: both the journal and
 * the run record note each invocation that released the run, in order, so the latest ended ones
 * pair up from the end (the record keeps only the latest few). Without a journal (DynamoDB), the
 * recorded invocations themselves. Unchanged for a run that recorded none.
 */
export function withRecordedInvocations(
  invocations: InvocationWire[] | undefined,
  run: Pick<RunRecord, 'historyInvocations'>,
): InvocationWire[] | undefined {
  const recorded = run.historyInvocations;
  if (!recorded) return invocations;
  if (!invocations) {
    return recorded.map((inv, index) => ({
      number: index + 1,
      startedAt: iso(inv.startedAt),
      endedAt: iso(inv.endedAt),
      historyOrder: inv.order,
    }));
  }
  const ended = invocations.filter((inv) => inv.endedAt !== undefined && !inv.lost);
  const out = invocations.map((inv) => ({ ...inv }));
  const byNumber = new Map(out.map((inv) => [inv.number, inv]));
  for (let i = 1; i <= Math.min(ended.length, recorded.length); i += 1) {
    const target = byNumber.get(ended[ended.length - i]?.number ?? -1);
    const place = recorded[recorded.length - i]?.order;
    if (target && place !== undefined) target.historyOrder = place;
  }
  return out;
}
