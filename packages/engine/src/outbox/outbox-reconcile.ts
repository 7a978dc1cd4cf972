/**
 * The reconciler's share of the outbox: a run found in the due index with events recorded and not
 * known published, and no live lease (its invocation died, or its publish failed as it ended), has
 * them published here, and the accepted ones taken off the run by a revision conditioned on the
 * fence it was read at (an invocation that took the run meanwhile keeps them, and publishes them
 * itself: a repeat, with the same id).
 */
import type { RunRecord } from '../run-record';
import type { Store } from '../store';
import type { OutboxPublisher } from './outbox-port';

/** Publishes `run`'s unsent events; the run as revised, or undefined when it was not. */
export async function publishUnsent(
  store: Store,
  publisher: OutboxPublisher,
  run: RunRecord,
  report: { outboxPublished?: string[] },
): Promise<RunRecord | undefined> {
  const pending = run.outbox ?? [];
  let accepted: string[];
  try {
    accepted = await publisher.publish(pending);
  } catch {
    return undefined;
  }
  if (accepted.length === 0) return undefined;
  const done = new Set(accepted);
  const left = pending.filter((e) => !done.has(e.id));
  const revised = await store.reviseRun(run.runId, run.status, { outbox: left.length > 0 ? left : null }, [], {
    fence: run.fence,
  });
  if (revised) {
    report.outboxPublished ??= [];
    report.outboxPublished.push(...accepted);
  }
  return revised;
}
