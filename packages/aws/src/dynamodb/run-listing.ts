import {
  decodeRunCursor,
  encodeRunCursor,
  functionBaseName,
  type RunPage,
  type RunQuery,
  type RunRecord,
  type RunStatus,
  runOfFunction,
  runQueryLimit,
} from '@durable-lambda/engine';
import { Expressions } from './expressions';
import {
  BY_FUNCTION_BASE_INDEX,
  BY_FUNCTION_INDEX,
  BY_STATUS_INDEX,
  FUNCTION_BASE,
  FUNCTIONS_PK,
  LIST_INDEX,
  LIST_KEY,
  listKeys,
  PK,
  RUN_SK,
  runPk,
  SK,
} from './layout';
import type { Item, TableAccess } from './table-access';

/** Every run status: a status added to {@link RunStatus} must be added here (the compiler says so). */
const STATUSES = Object.keys({
  RUNNING: true,
  QUEUED: true,
  SUCCEEDED: true,
  FAILED: true,
  TIMED_OUT: true,
  STOPPED: true,
  CANCELLED: true,
} satisfies Record<RunStatus, true>) as RunStatus[];

/** An index entry: where a run sorts, and whether it is still within its retention. */
interface Entry {
  runId: string;
  createdAt: number;
  expiresAt?: number;
}

/** Newest first, then by run id descending: the order of every listing (and of the memory store). */
function newestFirst(a: Entry, b: Entry): number {
  return b.createdAt - a.createdAt || (a.runId < b.runId ? 1 : a.runId > b.runId ? -1 : 0);
}

/** One index partition to read for a listing, with the filter its entries need. */
interface Source {
  index: string;
  attribute: string;
  value: string;
  /** Legacy indexes have `status` in their key; the listing index filters on it. */
  statusInKey: boolean;
}

/**
 * Where the runs of `functionName` are in the layout-1 indexes: a qualified name (`orders:7`) in
 * `byFunction` under itself; a bare one (`orders`) there too and in the sparse `byFunctionBase`.
 */
function legacySourcesOf(functionName: string): Source[] {
  const exact = { index: BY_FUNCTION_INDEX, attribute: 'functionName', value: functionName, statusInKey: true };
  if (functionBaseName(functionName) !== functionName) return [exact];
  return [exact, { index: BY_FUNCTION_BASE_INDEX, attribute: FUNCTION_BASE, value: functionName, statusInKey: true }];
}

/** The listing-index partitions of a function base name. */
function listSourcesOf(functionBase: string): Source[] {
  return listKeys(functionBase).map((value) => ({ index: LIST_INDEX, attribute: LIST_KEY, value, statusInKey: false }));
}

/** Options of {@link listRuns}. */
export interface ListingOptions {
  /** The table also has the layout-1 indexes, whose runs are listed too. */
  legacyIndexes: boolean;
}

/**
 * Lists runs, newest first. Layout 2: with a function name, the 32 listing-index partitions of its
 * base name (`listKey`), queried in parallel, newest first, filtered on the projected `status` (and
 * `functionName` for a qualified name); with none, the same for every function the table has
 * started runs of (the `FUNCTIONS` registry). With the layout-1 indexes (a table made before
 * layout 2), their runs are listed too and merged. Index entries carry keys and a few projected
 * attributes: the page's runs are then read whole by key. Indexes are eventually consistent, so a
 * run created or changed a moment ago may show late; a run whose status no longer matches when
 * read is left out.
 */
export async function listRuns(
  access: TableAccess,
  query: RunQuery,
  now: number,
  readRuns: (items: Item[]) => Promise<RunRecord[]>,
  options: ListingOptions = { legacyIndexes: false },
): Promise<RunPage> {
  const limit = runQueryLimit(query.limit);
  const after = query.cursor === undefined ? undefined : decodeRunCursor(query.cursor);
  // DynamoDB refuses an empty string as a key value; no run has an empty function name.
  if (query.functionName === '') return { runs: [] };
  const upper = Math.min(after?.createdAt ?? Number.POSITIVE_INFINITY, query.createdBefore ?? Number.POSITIVE_INFINITY);
  const lower = query.createdAfter;
  const accept = (entry: Entry) =>
    (entry.expiresAt === undefined || entry.expiresAt > now) &&
    (query.createdBefore === undefined || entry.createdAt < query.createdBefore) &&
    (lower === undefined || entry.createdAt >= lower) &&
    (after === undefined ||
      entry.createdAt < after.createdAt ||
      (entry.createdAt === after.createdAt && entry.runId < after.runId));

  const bases =
    query.functionName === undefined ? await registeredFunctions(access) : [functionBaseName(query.functionName)];
  const sources: Array<{ source: Source | undefined; status: RunStatus | undefined }> = bases.flatMap((base) =>
    listSourcesOf(base).map((source) => ({ source, status: query.status })),
  );
  if (options.legacyIndexes) {
    const statuses = query.status ? [query.status] : STATUSES;
    const legacy: Array<Source | undefined> =
      query.functionName === undefined ? [undefined] : legacySourcesOf(query.functionName);
    sources.push(...statuses.flatMap((status) => legacy.map((source) => ({ source, status }))));
  }
  const qualified =
    query.functionName !== undefined && functionBaseName(query.functionName) !== query.functionName
      ? query.functionName
      : undefined;
  const perSource = await Promise.all(
    sources.map(async ({ source, status }) => {
      const e = new Expressions();
      const conditions: string[] = [];
      const filters: string[] = [];
      if (source === undefined || source.statusInKey) {
        conditions.push(`${e.name('status')} = ${e.value(status)}`);
      } else {
        if (status !== undefined) filters.push(`${e.name('status')} = ${e.value(status)}`);
        if (qualified !== undefined) filters.push(`${e.name('functionName')} = ${e.value(qualified)}`);
      }
      if (source !== undefined) conditions.unshift(`${e.name(source.attribute)} = ${e.value(source.value)}`);
      const bounded = upper !== Number.POSITIVE_INFINITY;
      if (lower !== undefined && bounded) {
        if (lower > upper) return [];
        conditions.push(`${e.name('createdAt')} BETWEEN ${e.value(lower)} AND ${e.value(upper)}`);
      } else if (lower !== undefined) conditions.push(`${e.name('createdAt')} >= ${e.value(lower)}`);
      else if (bounded) conditions.push(`${e.name('createdAt')} <= ${e.value(upper)}`);
      const found: Entry[] = [];
      const pages = access.queryPages({
        IndexName: source === undefined ? BY_STATUS_INDEX : source.index,
        KeyConditionExpression: conditions.join(' AND '),
        ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}),
        ScanIndexForward: false,
        Limit: limit + 1,
        ...e.attributes(),
      });
      for await (const page of pages) {
        for (const item of page) {
          const entry: Entry = {
            runId: String(item.runId),
            createdAt: Number(item.createdAt),
            ...(typeof item.expiresAt === 'number' ? { expiresAt: item.expiresAt } : {}),
          };
          if (accept(entry)) found.push(entry);
        }
        if (found.length > limit) break;
      }
      return found;
    }),
  );
  // A run may be in a legacy index and the listing index both (a table keeping the legacy
  // indexes indexes new runs in them too), or in two partitions a moment after it was renamed.
  const unique = new Map(perSource.flat().map((entry) => [entry.runId, entry]));
  const merged = [...unique.values()].sort(newestFirst);
  const page = merged.slice(0, limit);
  const items = await access.batchGet(page.map((entry) => ({ [PK]: runPk(entry.runId), [SK]: RUN_SK })));
  const byId = new Map(items.map((item) => [String(item.runId), item]));
  const current = page.flatMap((entry) => {
    const item = byId.get(entry.runId);
    if (!item) return [];
    if (typeof item.expiresAt === 'number' && item.expiresAt <= now) return [];
    if (query.status !== undefined && item.status !== query.status) return [];
    if (query.functionName !== undefined && !runOfFunction(String(item.functionName), query.functionName)) return [];
    return [item];
  });
  const runs = await readRuns(current);
  const last = page[page.length - 1];
  return merged.length > limit && last ? { runs, cursor: encodeRunCursor(last) } : { runs };
}

/** The base names of every function the table has started runs of (the `FUNCTIONS` registry). */
async function registeredFunctions(access: TableAccess): Promise<string[]> {
  const e = new Expressions();
  const items = await access.queryAll({
    KeyConditionExpression: `${e.name(PK)} = ${e.value(FUNCTIONS_PK)}`,
    ...e.attributes(),
  });
  return items.map((item) => String(item[SK]));
}
