import { type OperationPage, type OperationPageRequest, replaysChildren } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import type { RunStatements } from './sqlite-run-statements';

/**
 * What an invocation replays from (`Store.loadReplayOperations`): the top level and, depth first,
 * the children of each context the replay needs, one query each through the `parent_id` index.
 * The caller checks the run is live, in the same transaction.
 */
export function replayOperations(sql: RunStatements, runId: string): Operation[] {
  const out: Operation[] = [];
  const visit = (parentId: string | null) => {
    for (const row of sql.childOperations.all(runId, parentId)) {
      const op = JSON.parse(row.body) as Operation;
      out.push(op);
      if (replaysChildren(op)) visit(op.Id);
    }
  };
  visit(null);
  return out;
}

/** One page of a run's operations in creation order (`Store.loadOperationPage`); the caller checks the run is live. */
export function operationPage(sql: RunStatements, runId: string, request: OperationPageRequest): OperationPage {
  // One row past the page tells whether more follow.
  const rows =
    request.after === undefined
      ? sql.firstOperations.all(runId, request.limit + 1)
      : sql.operationsAfter.all(runId, runId, request.after, request.limit + 1);
  const page = rows.slice(0, request.limit);
  const operations = page.map((row) => JSON.parse(row.body) as Operation);
  const last = page.at(-1);
  return rows.length > request.limit && last ? { operations, after: last.operation_id } : { operations };
}
