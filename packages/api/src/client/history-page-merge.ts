/**
 * Joining the pages of a run's history (`GET /v1/runs/{runId}/operations`) back into one answer,
 * as the typed client's `history()` and the CLI read it: the operations of every page in order,
 * the journal of the first, and each batch's `items` counted across pages (a page leaves them out
 * when the run does not fit one).
 */
import type { BatchItemsWire, OperationListWire, OperationWire } from '../wire';

const BATCH_SUBTYPES = new Set(['Map', 'Parallel']);

/** The items of each batch in `operations`, by status (an abandoned one as `ABANDONED`). */
export function countBatchItems(operations: readonly OperationWire[]): Map<string, BatchItemsWire> {
  const batches = new Set(operations.filter((op) => BATCH_SUBTYPES.has(op.subType ?? '')).map((op) => op.id));
  const counts = new Map<string, BatchItemsWire>();
  for (const op of operations) {
    if (op.parentId === undefined || !batches.has(op.parentId)) continue;
    const count = counts.get(op.parentId) ?? { total: 0, byStatus: {} };
    const status = op.abandoned ? 'ABANDONED' : op.status;
    count.total += 1;
    count.byStatus[status] = (count.byStatus[status] ?? 0) + 1;
    counts.set(op.parentId, count);
  }
  return counts;
}

/** The pages of one run's history, first to last, as one answer (without `nextCursor`). */
export function mergeHistoryPages(pages: readonly OperationListWire[]): OperationListWire {
  const first = pages[0];
  if (!first) throw new Error('mergeHistoryPages: no pages');
  const { nextCursor: _next, ...head } = first;
  const operations = pages.flatMap((page) => page.operations);
  const counts = countBatchItems(operations);
  return {
    ...head,
    operations: operations.map((op) => {
      if (op.items || !BATCH_SUBTYPES.has(op.subType ?? '')) return op;
      return { ...op, items: counts.get(op.id) ?? { total: 0, byStatus: {} } };
    }),
  };
}
