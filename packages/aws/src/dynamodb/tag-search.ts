/**
 * `Store.listRuns` with search filters on DynamoDB: by tags through the tag index (`tag-index.ts`),
 * and by error code over the listing. Both read the candidate runs whole (BatchGetItem, strongly
 * consistent) and keep those that match every filter, so stale index entries never show; a page
 * stops after {@link MAX_EXAMINED} index entries or {@link MAX_RUNS_READ} runs with a cursor where
 * it stopped (a short page: page on until there is no cursor).
 */
import {
  checkRunSearch,
  decodeRunCursor,
  encodeRunCursor,
  type RunPage,
  type RunQuery,
  type RunRecord,
  runMatchesSearch,
  runOfFunction,
  runQueryLimit,
} from '@durable-lambda/engine';
import { PK, RUN_SK, runPk, SK } from './layout';
import type { Item, TableAccess } from './table-access';
import { createdAtKey, tagSk } from './tag-index';
import { type TagEntry, TagIntersection } from './tag-streams';

/**
 * Index entries one page reads at most before it answers (short, with a cursor where it stopped):
 * ~60 bytes each, so ~40 RRU of Queries besides the runs it reads.
 */
export const MAX_EXAMINED = 2_000;
/**
 * Runs one page reads at most (each at least 1 RRU) before it answers, short, with a cursor: the
 * runs of a tag that fail the other filters (status, function, error code), or the runs of the
 * listing searched for an error code alone.
 */
export const MAX_RUNS_READ = 500;
/** Runs read per listing page while filtering on the error code alone. */
const CODE_SCAN_PAGE = 100;

/** What the search needs of the store. */
export interface SearchDeps {
  access: TableAccess;
  now: number;
  /** Whether a run item is within its retention. */
  live(item: Item): boolean;
  /** The run record of a run item (its chunked fields read). */
  runOf(item: Item): Promise<RunRecord>;
  /** The store's listing without search filters. */
  list(query: RunQuery): Promise<RunPage>;
}

/** How much one page reads at most (the defaults; a test passes smaller ones to page past them). */
export interface SearchCaps {
  /** Index entries: {@link MAX_EXAMINED}. */
  entries: number;
  /** Run items: {@link MAX_RUNS_READ}. */
  runs: number;
}

/** `listRuns` with `tags` and `errorCode`; a query with neither goes to the listing as it is. */
export async function searchRuns(
  deps: SearchDeps,
  query: RunQuery,
  caps: SearchCaps = { entries: MAX_EXAMINED, runs: MAX_RUNS_READ },
): Promise<RunPage> {
  checkRunSearch(query);
  const tags = Object.entries(query.tags ?? {});
  if (tags.length > 0) return byTags(deps, query, tags, caps);
  if (query.errorCode !== undefined) return byErrorCode(deps, query, query.errorCode, caps);
  return deps.list(query);
}

/** The listing's pages, keeping the runs with the error code. */
async function byErrorCode(deps: SearchDeps, query: RunQuery, code: string, caps: SearchCaps): Promise<RunPage> {
  const limit = runQueryLimit(query.limit);
  const { errorCode: _, ...rest } = query;
  const found: RunRecord[] = [];
  let cursor = query.cursor;
  for (let examined = 0; examined < caps.runs; ) {
    const size = Math.min(CODE_SCAN_PAGE, caps.runs - examined);
    const page = await deps.list({ ...rest, limit: size, ...(cursor === undefined ? {} : { cursor }) });
    for (const run of page.runs) {
      examined += 1;
      if (run.error?.ErrorCode !== code) continue;
      found.push(run);
      // Full: the next page starts after this run.
      if (found.length === limit) return { runs: found, cursor: encodeRunCursor(run) };
    }
    if (page.cursor === undefined) return { runs: found };
    cursor = page.cursor;
  }
  return cursor === undefined ? { runs: found } : { runs: found, cursor };
}

/**
 * The runs carrying every tag of the query, newest first: each tag's 16 shards queried in parallel
 * within the query's time range and cursor, the tags intersected on their entries
 * (`tag-streams.ts`), the runs found read a page at a time and filtered on the run items.
 */
async function byTags(
  deps: SearchDeps,
  query: RunQuery,
  tags: Array<[string, string]>,
  caps: SearchCaps,
): Promise<RunPage> {
  const limit = runQueryLimit(query.limit);
  const after = query.cursor === undefined ? undefined : decodeRunCursor(query.cursor);
  // Entries sort below `upper` (exclusive) and at or above `lower`.
  const bounds = [
    after ? tagSk(after.createdAt, after.runId) : undefined,
    query.createdBefore === undefined ? undefined : createdAtKey(query.createdBefore),
  ].filter((b): b is string => b !== undefined);
  const upper = bounds.sort()[0];
  const lower = query.createdAfter === undefined ? undefined : createdAtKey(query.createdAfter);
  if (upper !== undefined && lower !== undefined && lower >= upper) return { runs: [] };
  const entries = new TagIntersection(deps.access, tags, { lower, upper }, limit + 1, caps.entries);
  const found: RunRecord[] = [];
  let runsRead = 0;
  for (;;) {
    if (runsRead >= caps.runs) {
      // Read as many runs as a page may: the next page goes on after the last one read.
      return entries.lastTaken ? { runs: found, cursor: encodeRunCursor(entries.lastTaken) } : { runs: found };
    }
    const batch: TagEntry[] = [];
    while (batch.length < Math.min(limit - found.length, caps.runs - runsRead)) {
      const entry = await entries.next();
      if (!entry) break;
      batch.push(entry);
    }
    if (batch.length === 0) {
      // Passed over as many entries as a page may read: the next page goes on from there.
      const decided = entries.decided;
      return entries.capped && decided ? { runs: found, cursor: encodeRunCursor(decided) } : { runs: found };
    }
    const items = await deps.access.batchGet(batch.map((e) => ({ [PK]: runPk(e.runId), [SK]: RUN_SK })));
    runsRead += batch.length;
    const byId = new Map(items.map((item) => [String(item.runId), item]));
    for (const entry of batch) {
      const item = byId.get(entry.runId);
      if (!item || !candidate(deps, item, entry, query)) continue;
      const run = await deps.runOf(item);
      if (!runMatchesSearch(run, query)) continue;
      found.push(run);
      if (found.length === limit) {
        const more = (await entries.next()) !== undefined || entries.capped;
        return more ? { runs: found, cursor: encodeRunCursor(entry) } : { runs: found };
      }
    }
  }
}

/** Whether a run item matches what it holds unchunked: retention, the entry's creation, tags, status, function. */
function candidate(deps: SearchDeps, item: Item, entry: TagEntry, query: RunQuery): boolean {
  if (!deps.live(item) || Number(item.createdAt) !== entry.createdAt) return false;
  const tags = (item.tags ?? {}) as Record<string, unknown>;
  if (!Object.entries(query.tags ?? {}).every(([key, value]) => tags[key] === value)) return false;
  if (query.status !== undefined && item.status !== query.status) return false;
  return query.functionName === undefined || runOfFunction(String(item.functionName), query.functionName);
}
