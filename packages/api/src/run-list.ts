import { encodeRunCursor, type RunQuery, type RunRecord, runIdFor, runOfFunction } from '@durable-lambda/engine';
import type { RouteDeps } from './deps';
import { PAGE_BUDGET_BYTES, travelBytes } from './page-budget';
import { runInList } from './payload-page-routes';
import { waitingFor } from './run-history';
import { searcherOf } from './run-journal';
import type { RunListExtras } from './run-query';
import type { RunListWire, RunWire } from './wire';

/** Running runs whose operations are read at once for `waitingFor`. */
const READ_CONCURRENCY = 8;
/** Most entries of one run's `waitingFor` (soonest first): a map of thousands waits on each. */
const MAX_WAITING_FOR = 50;

function matches(run: RunRecord, query: RunQuery): boolean {
  return (
    (query.functionName === undefined || runOfFunction(run.functionName, query.functionName)) &&
    (query.status === undefined || run.status === query.status) &&
    (query.createdAfter === undefined || run.createdAt >= query.createdAfter) &&
    (query.createdBefore === undefined || run.createdAt < query.createdBefore)
  );
}

/**
 * Runs found by `search`, newest first, within the query's other filters: the run with that id,
 * the run that key names (a run key gives its id), and, when the store can search, every run
 * whose id or key contains the text. One page: a search has no cursor.
 */
async function searchRuns(deps: RouteDeps, query: RunQuery, search: string): Promise<RunRecord[]> {
  const limit = query.limit ?? 20;
  const found = new Map<string, RunRecord>();
  for (const id of [search, runIdFor(search)]) {
    const run = await deps.engine.getRun(id);
    if (run) found.set(run.runId, run);
  }
  const searcher = searcherOf(deps.engine.store);
  if (searcher) for (const run of await searcher.searchRuns(search, 100)) found.set(run.runId, run);
  return [...found.values()]
    .filter((run) => matches(run, query))
    .sort((a, b) => b.createdAt - a.createdAt || (a.runId < b.runId ? 1 : -1))
    .slice(0, limit);
}

/** `GET /v1/runs`: a page of runs, or the runs a search finds, with what the running ones wait for. */
export async function listRuns(deps: RouteDeps, query: RunQuery, extras: RunListExtras): Promise<RunListWire> {
  let runs: RunRecord[];
  let cursor: string | undefined;
  if (extras.search !== undefined) {
    runs = await searchRuns(deps, query, extras.search);
  } else {
    const page = await deps.engine.listRuns(query);
    runs = page.runs;
    cursor = page.cursor;
  }
  const wire: RunWire[] = runs.map(runInList);
  if (extras.waitingFor) {
    const now = deps.clock.now();
    const running = runs.map((run, i) => [run, i] as const).filter(([run]) => run.status === 'RUNNING');
    for (let start = 0; start < running.length; start += READ_CONCURRENCY) {
      await Promise.all(
        running.slice(start, start + READ_CONCURRENCY).map(async ([run, i]) => {
          const ops = await deps.engine.getOperations(run.runId);
          (wire[i] as RunWire).waitingFor = waitingFor(run, ops, now).slice(0, MAX_WAITING_FOR);
        }),
      );
    }
  }
  // Cut short at the byte budget: the next page starts after the last run kept.
  let used = 512;
  let kept = 0;
  for (const run of wire) {
    const bytes = travelBytes(run) + 1;
    if (kept > 0 && used + bytes > PAGE_BUDGET_BYTES) break;
    used += bytes;
    kept += 1;
  }
  if (kept < wire.length) {
    const last = runs[kept - 1] as RunRecord;
    return { runs: wire.slice(0, kept), ...(extras.search === undefined ? { nextCursor: encodeRunCursor(last) } : {}) };
  }
  return { runs: wire, ...(cursor === undefined ? {} : { nextCursor: cursor }) };
}
