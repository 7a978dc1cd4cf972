/**
 * `Store.listRuns` with search filters on DynamoDB: by tags through the tag index (`tag-index.ts`),
 * and by error code over the listing. Both read the candidate runs whole (BatchGetItem, strongly
 * consistent) and keep those that match every filter, so stale index entries never show; a page
 * stops after {@link MAX_EXAMINED} candidates with a cursor where it stopped (a short page).
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
import { Expressions } from './expressions';
import { PK, RUN_SK, runPk, SK } from './layout';
import type { Item, TableAccess } from './table-access';
import { createdAtKey, tagPks, tagSk } from './tag-index';

/** Candidates one page examines at most before it answers (short, with a cursor). */
export const MAX_EXAMINED = 500;
/** Runs read per listing page while filtering on the error code alone. */
const CODE_SCAN_PAGE = 100;

/** A tag index entry: where its run sorts. */
interface Entry {
  runId: string;
  createdAt: number;
  sk: string;
}

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

/** `listRuns` with `tags` and `errorCode`; a query with neither goes to the listing as it is. */
export async function searchRuns(deps: SearchDeps, query: RunQuery): Promise<RunPage> {
  checkRunSearch(query);
  const tags = Object.entries(query.tags ?? {});
  if (tags.length > 0) return byTags(deps, query, tags[0] as [string, string]);
  if (query.errorCode !== undefined) return byErrorCode(deps, query, query.errorCode);
  return deps.list(query);
}

/** The listing's pages, keeping the runs with the error code. */
async function byErrorCode(deps: SearchDeps, query: RunQuery, code: string): Promise<RunPage> {
  const limit = runQueryLimit(query.limit);
  const { errorCode: _, ...rest } = query;
  const found: RunRecord[] = [];
  let cursor = query.cursor;
  for (let examined = 0; examined < MAX_EXAMINED; ) {
    const page = await deps.list({ ...rest, limit: CODE_SCAN_PAGE, ...(cursor === undefined ? {} : { cursor }) });
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
 * The runs carrying `first` (and every other tag of the query), newest first: the tag's 16 shards
 * queried in parallel within the query's time range and cursor, merged by sort key, the candidates
 * read a page at a time and filtered on the run items.
 */
async function byTags(deps: SearchDeps, query: RunQuery, first: [string, string]): Promise<RunPage> {
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
  const stream = new MergedShards(deps.access, tagPks(...first), lower, upper, limit + 1);
  const found: RunRecord[] = [];
  let examined = 0;
  let last: Entry | undefined;
  while (examined < MAX_EXAMINED) {
    const batch = await stream.take(limit - found.length);
    if (batch.length === 0) return { runs: found };
    const items = await deps.access.batchGet(batch.map((e) => ({ [PK]: runPk(e.runId), [SK]: RUN_SK })));
    const byId = new Map(items.map((item) => [String(item.runId), item]));
    for (const entry of batch) {
      examined += 1;
      last = entry;
      const item = byId.get(entry.runId);
      if (!item || !candidate(deps, item, entry, query)) continue;
      const run = await deps.runOf(item);
      if (!runMatchesSearch(run, query)) continue;
      found.push(run);
      if (found.length === limit) {
        return (await stream.exhausted()) ? { runs: found } : { runs: found, cursor: encodeRunCursor(entry) };
      }
    }
  }
  return last ? { runs: found, cursor: encodeRunCursor(last) } : { runs: found };
}

/** Whether a run item matches what it holds unchunked: retention, the entry's creation, tags, status, function. */
function candidate(deps: SearchDeps, item: Item, entry: Entry, query: RunQuery): boolean {
  if (!deps.live(item) || Number(item.createdAt) !== entry.createdAt) return false;
  const tags = (item.tags ?? {}) as Record<string, unknown>;
  if (!Object.entries(query.tags ?? {}).every(([key, value]) => tags[key] === value)) return false;
  if (query.status !== undefined && item.status !== query.status) return false;
  return query.functionName === undefined || runOfFunction(String(item.functionName), query.functionName);
}

/** One shard's Query, read a page at a time, newest first. */
class Shard {
  private readonly pages: AsyncGenerator<Item[]>;
  private readonly upper: string | undefined;
  buffer: Entry[] = [];
  done = false;

  constructor(access: TableAccess, pk: string, lower: string | undefined, upper: string | undefined, size: number) {
    const e = new Expressions();
    const conditions = [`${e.name(PK)} = ${e.value(pk)}`];
    if (lower !== undefined && upper !== undefined) {
      conditions.push(`${e.name(SK)} BETWEEN ${e.value(lower)} AND ${e.value(upper)}`);
    } else if (lower !== undefined) conditions.push(`${e.name(SK)} >= ${e.value(lower)}`);
    else if (upper !== undefined) conditions.push(`${e.name(SK)} < ${e.value(upper)}`);
    this.pages = access.queryPages({
      KeyConditionExpression: conditions.join(' AND '),
      ScanIndexForward: false,
      Limit: size,
      ...e.attributes(),
    });
    this.upper = upper;
  }

  /** Reads the next page when the buffer is empty and more may follow. */
  async fill(): Promise<void> {
    while (this.buffer.length === 0 && !this.done) {
      const next = await this.pages.next();
      if (next.done) {
        this.done = true;
        return;
      }
      for (const item of next.value) {
        const sk = String(item[SK]);
        // BETWEEN includes its upper bound: the cursor's own entry is not after it.
        if (this.upper !== undefined && sk >= this.upper) continue;
        this.buffer.push({ runId: String(item.runId), createdAt: Number(item.createdAt), sk });
      }
    }
  }
}

/** The shards of a tag merged newest first (by sort key, descending). */
class MergedShards {
  private readonly shards: Shard[];

  constructor(access: TableAccess, pks: string[], lower: string | undefined, upper: string | undefined, size: number) {
    this.shards = pks.map((pk) => new Shard(access, pk, lower, upper, size));
  }

  /** The next `count` entries (fewer at the end). */
  async take(count: number): Promise<Entry[]> {
    const out: Entry[] = [];
    while (out.length < count) {
      await Promise.all(this.shards.map((shard) => shard.fill()));
      let best: Shard | undefined;
      for (const shard of this.shards) {
        const head = shard.buffer[0];
        if (head && (!best || head.sk > (best.buffer[0] as Entry).sk)) best = shard;
      }
      if (!best) break;
      out.push(best.buffer.shift() as Entry);
    }
    return out;
  }

  /** Whether no entry is left (every shard read to its end and taken). */
  async exhausted(): Promise<boolean> {
    await Promise.all(this.shards.map((shard) => shard.fill()));
    return this.shards.every((shard) => shard.done && shard.buffer.length === 0);
  }
}
