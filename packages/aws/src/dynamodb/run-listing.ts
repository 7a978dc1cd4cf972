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
  PK,
  RUN_SK,
  runPk,
  SK,
} from './layout';
import type { Item, TableAccess } from './table-access';

/** Every run status: a status added to {@link RunStatus} must be added here (the compiler says so). */
const STATUSES = Object.keys({
  RUNNING: true,
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

/** An index partition holding runs of the query's function: index name, partition attribute and value. */
interface Source {
  index: string;
  attribute: string;
  value: string;
}

/**
 * Where the runs of `functionName` are indexed: a qualified name (`orders:7`) in `byFunction`
 * under itself; a bare one (`orders`) there too (its unqualified runs, old ones among them) and
 * in the sparse `byFunctionBase` (the runs of each of its qualifiers). No run is in both: an
 * item carries `functionBase` exactly when its name is qualified.
 */
function sourcesOf(functionName: string): Source[] {
  const exact = { index: BY_FUNCTION_INDEX, attribute: 'functionName', value: functionName };
  if (functionBaseName(functionName) !== functionName) return [exact];
  return [exact, { index: BY_FUNCTION_BASE_INDEX, attribute: FUNCTION_BASE, value: functionName }];
}

/**
 * Lists runs, newest first. With a function name it queries `byFunction` (and, for a bare name,
 * `byFunctionBase`: see `sourcesOf`), else `byStatus`; with no status it queries each status and
 * merges (six small index queries per source, in parallel). Index
 * entries carry keys and `expiresAt` only: the page's runs are then read whole by key. Indexes
 * are eventually consistent, so a run created or changed a moment ago may show late; a run whose
 * status no longer matches when read is left out.
 */
export async function listRuns(
  access: TableAccess,
  query: RunQuery,
  now: number,
  readRuns: (items: Item[]) => Promise<RunRecord[]>,
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

  const statuses = query.status ? [query.status] : STATUSES;
  const sources: Array<Source | undefined> =
    query.functionName === undefined ? [undefined] : sourcesOf(query.functionName);
  const queries = statuses.flatMap((status) => sources.map((source) => ({ status, source })));
  const perStatus = await Promise.all(
    queries.map(async ({ status, source }) => {
      const e = new Expressions();
      const conditions = [`${e.name('status')} = ${e.value(status)}`];
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
  // A run renamed (pinned) a moment ago may still be in its old index partition as well.
  const unique = new Map(perStatus.flat().map((entry) => [entry.runId, entry]));
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
