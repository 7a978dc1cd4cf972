import {
  encodeRunCursor,
  functionBaseName,
  type QueuedRunEntry,
  type RunQuery,
  type RunRecord,
  runIdFor,
  runMatchesSearch,
  runOfFunction,
} from '@durable-lambda/engine';
import type { RunListWire, RunWire } from '../wire';
import type { RouteDeps } from './deps';
import { PAGE_BUDGET_BYTES, travelBytes } from './page-budget';
import { runInList } from './payload-page-routes';
import { waitingFor } from './run-history';
import { searcherOf } from './run-journal';
import type { RunListExtras } from './run-query';

/** Running runs whose operations are read at once for `waitingFor`. */
const READ_CONCURRENCY = 8;
/** Most entries of one run's `waitingFor` (soonest first): a map of thousands waits on each. */
const MAX_WAITING_FOR = 50;

function matches(run: RunRecord, query: RunQuery): boolean {
  return (
    (query.functionName === undefined || runOfFunction(run.functionName, query.functionName)) &&
    (query.status === undefined || run.status === query.status) &&
    (query.createdAfter === undefined || run.createdAt >= query.createdAfter) &&
    (query.createdBefore === undefined || run.createdAt < query.createdBefore) &&
    runMatchesSearch(run, query)
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

/** Runs one `contains` request reads at most (newest first, within the other filters). */
export const CONTAINS_SCAN_LIMIT = 1000;
/** Runs read per store page while scanning for `contains`. */
const SCAN_PAGE = 100;

/** Whether the run's input, result or error holds `needle` (already lower case). */
function holds(run: RunRecord, needle: string): boolean {
  const texts = [run.input, run.result, run.error?.ErrorType, run.error?.ErrorCode, run.error?.ErrorMessage];
  const data = run.error?.ErrorData;
  if (data !== undefined) texts.push(data);
  return texts.some((text) => text?.toLowerCase().includes(needle) === true);
}

/**
 * A page of the runs `keep` accepts: the newest runs within the query's filters are read (at most
 * {@link CONTAINS_SCAN_LIMIT} per call, the store's own pages) until the page is full. The cursor
 * continues after the last run read, so a scan that found fewer keeps paging.
 */
async function runsMatching(
  deps: RouteDeps,
  query: RunQuery,
  keep: (run: RunRecord) => boolean,
): Promise<RunPageSlice> {
  const limit = query.limit ?? 20;
  const found: RunRecord[] = [];
  let cursor = query.cursor;
  let scanned = 0;
  while (scanned < CONTAINS_SCAN_LIMIT) {
    const page = await deps.engine.listRuns({
      ...query,
      limit: SCAN_PAGE,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const run of page.runs) {
      scanned += 1;
      if (!keep(run)) continue;
      found.push(run);
      // Full: the next page starts after this run (the rest of this store page is read again then).
      if (found.length === limit) return { runs: found, cursor: encodeRunCursor(run) };
    }
    if (page.cursor === undefined) return { runs: found };
    cursor = page.cursor;
  }
  return { runs: found, cursor };
}

/** Queue entries one request reads at most (stale ones included) before it answers. */
export const QUEUE_SCAN_LIMIT = 1000;

/**
 * The QUEUED runs of one function's concurrency key, in queue order with their positions: the
 * key's queue read a page at a time (its own partition on DynamoDB: no listing index, no scan),
 * each entry's run read to drop the stale ones. One page (`limit`), no cursor; the position counts
 * the entries before, stale ones too, as `Engine.getRun`'s does.
 */
async function queuedRunsOfKey(deps: RouteDeps, query: RunQuery, key: string): Promise<RunRecord[]> {
  const { store } = deps.engine;
  if (!store.listQueuedRuns || query.functionName === undefined) return [];
  const slot = { functionName: functionBaseName(query.functionName), key };
  const limit = query.limit ?? 20;
  const found: RunRecord[] = [];
  let position = 0;
  let after: QueuedRunEntry | undefined;
  while (found.length < limit && position < QUEUE_SCAN_LIMIT) {
    const entries = await store.listQueuedRuns.call(store, slot, limit, after);
    const runs: Array<RunRecord | undefined> = [];
    for (let start = 0; start < entries.length; start += READ_CONCURRENCY) {
      runs.push(
        ...(await Promise.all(entries.slice(start, start + READ_CONCURRENCY).map((e) => store.getRun(e.runId)))),
      );
    }
    for (const [i, entry] of entries.entries()) {
      position += 1;
      const run = runs[i];
      const waits = run?.status === 'QUEUED' && run.concurrencyKey === key && run.queuedAt === entry.queuedAt;
      if (waits && matches(run, query) && found.length < limit) found.push({ ...run, queuePosition: position });
    }
    if (entries.length < limit) break;
    after = entries[entries.length - 1];
  }
  return found;
}

interface RunPageSlice {
  runs: RunRecord[];
  cursor?: string | undefined;
}

/**
 * `GET /v1/runs`: a page of runs, the runs a search finds, or those whose content holds a text,
 * with what the running ones wait for.
 */
export async function listRuns(deps: RouteDeps, query: RunQuery, extras: RunListExtras): Promise<RunListWire> {
  let runs: RunRecord[];
  let cursor: string | undefined;
  // A search and a key's queue are one page: no cursor, even when cut at the byte budget.
  let onePage = extras.search !== undefined;
  if (extras.search !== undefined) {
    runs = await searchRuns(deps, query, extras.search);
  } else if (extras.contains !== undefined) {
    const needle = extras.contains.toLowerCase();
    ({ runs, cursor } = await runsMatching(deps, query, (run) => holds(run, needle)));
  } else if (extras.concurrencyKey !== undefined) {
    const key = extras.concurrencyKey;
    onePage = query.status === 'QUEUED' && query.functionName !== undefined;
    if (onePage) runs = await queuedRunsOfKey(deps, query, key);
    else ({ runs, cursor } = await runsMatching(deps, query, (run) => run.concurrencyKey === key));
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
    return { runs: wire.slice(0, kept), ...(onePage ? {} : { nextCursor: encodeRunCursor(last) }) };
  }
  return { runs: wire, ...(cursor === undefined ? {} : { nextCursor: cursor }) };
}
