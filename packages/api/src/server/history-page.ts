/**
 * `GET /v1/runs/{runId}/operations`, paged: a page of the run's operations read on its own (the
 * store's `loadOperationPage`, so a 10,000-operation run is never loaded whole to answer 100),
 * its operations' ancestors read one by one (whether a finished context is above them), payloads
 * above {@link INLINE_PAYLOAD_BYTES} left out, and the page cut short at its byte budget.
 */
import { callbackTimeout, type OperationPage, type RunRecord, type Store, settleDue } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import type { LogWire, OperationListWire, OperationPayloadField, OperationWire } from '../wire';
import type { RouteDeps } from './deps';
import { invalidArgument } from './errors';
import type { ApiRequest } from './http';
import {
  DEFAULT_PAGE_ITEMS,
  INLINE_PAYLOAD_BYTES,
  MAX_PAGE_ITEMS,
  PAGE_BUDGET_BYTES,
  travelBytes,
} from './page-budget';
import { decodePageCursor, encodePageCursor } from './page-cursor';
import { withRecordedInvocations } from './recorded-invocations';
import { journalToWire, logsByOperation, operationWires } from './run-history';
import { EMPTY_JOURNAL, journalOf } from './run-journal';

/** The cursor kind of a run's history (its scope is the run id). */
const HISTORY_CURSOR = 'ops';
const PARAMS = ['limit', 'cursor'] as const;
/** Payload fields of an operation a listing may leave out, biggest kinds first. */
export const OPERATION_PAYLOAD_FIELDS: readonly OperationPayloadField[] = ['result', 'error', 'failedAttempts', 'logs'];

/** One query parameter, given at most once; empty counts as absent. */
export function singleParam(query: ApiRequest['query'], name: string): string | undefined {
  const value = query?.[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    if (value.length > 1) throw invalidArgument(name, 'must be given at most once');
    return value[0] === '' ? undefined : value[0];
  }
  return value === '' ? undefined : value;
}

/** `limit`: a whole number from 1 to `max`, or `fallback` when absent. */
export function pageLimit(query: ApiRequest['query'], fallback: number, max: number): number {
  const text = singleParam(query, 'limit');
  if (text === undefined) return fallback;
  const n = /^\d{1,4}$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= 1 && n <= max)) throw invalidArgument('limit', `must be a whole number from 1 to ${max}`);
  return n;
}

/** What a history request asks for: the page size and where the last page ended. */
export interface HistoryPageQuery {
  limit: number;
  /** The id of the operation the previous page ended with. */
  after?: string;
}

/** Reads `limit` (1-1000, default 100) and `cursor` (this run's); refuses anything else. */
export function parseHistoryQuery(query: ApiRequest['query'], runId: string): HistoryPageQuery {
  for (const name of Object.keys(query ?? {})) {
    if (!(PARAMS as readonly string[]).includes(name)) {
      throw invalidArgument(name, `unknown query parameter (expected ${PARAMS.join(', ')})`);
    }
  }
  const limit = pageLimit(query, DEFAULT_PAGE_ITEMS, MAX_PAGE_ITEMS);
  const after = decodePageCursor(singleParam(query, 'cursor'), HISTORY_CURSOR, runId);
  // A position is an operation id, at most 512 characters as the engine accepts them.
  if (after !== undefined && after.length > 512) throw invalidArgument('cursor', 'is not a cursor this API returned');
  return after === undefined ? { limit } : { limit, after };
}

/** The cursor of the history page after operation `operationId`. */
export function historyCursor(runId: string, operationId: string): string {
  return encodePageCursor(HISTORY_CURSOR, runId, operationId);
}

/**
 * A page of the run's operations: the store's own paged read, or, for a store without one, its
 * full read cut to the page (same order).
 */
export async function readOperationPage(
  store: Store,
  runId: string,
  request: { after?: string; limit: number },
): Promise<OperationPage> {
  if (store.loadOperationPage) return store.loadOperationPage(runId, request);
  const all = await store.loadOperations(runId);
  const start = request.after === undefined ? 0 : all.findIndex((op) => op.Id === request.after) + 1;
  if (start === 0 && request.after !== undefined) return { operations: [] };
  const operations = all.slice(start, start + request.limit);
  const last = operations.at(-1);
  return start + request.limit < all.length && last ? { operations, after: last.Id } : { operations };
}

/** An operation as of `now`: a wait past its end shows succeeded, a callback past its deadline timed out. */
export function asOfNow(op: Operation, now: number): Operation {
  return settleDue(op, now) ?? callbackTimeout(op, now) ?? op;
}

/**
 * `operations` and every ancestor of theirs, by id: the ancestors not among them are read one at
 * a time (in tree order a page's ancestors are few: those of its first operation, mostly).
 */
export async function withAncestors(
  store: Store,
  runId: string,
  operations: readonly Operation[],
  now: number,
): Promise<Map<string, Operation>> {
  const known = new Map(operations.map((op) => [op.Id, op]));
  const tried = new Set<string>();
  let missing = [...new Set(operations.map((op) => op.ParentId))].filter(
    (id): id is string => id !== undefined && !known.has(id),
  );
  while (missing.length > 0) {
    for (const id of missing) tried.add(id);
    const found = await Promise.all(missing.map((id) => store.getOperation(runId, id)));
    const next: string[] = [];
    for (const op of found) {
      if (!op) continue;
      known.set(op.Id, asOfNow(op, now));
      if (op.ParentId !== undefined && !known.has(op.ParentId) && !tried.has(op.ParentId)) next.push(op.ParentId);
    }
    missing = [...new Set(next)];
  }
  return known;
}

/** JSON bytes of a payload, as `omitted` reports it. */
const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');

/**
 * The operation with each payload field of more than `threshold` bytes left out, its size noted
 * in `omitted` (merged with what was left out before).
 */
export function leaveOutPayloads(op: OperationWire, threshold: number): OperationWire {
  let result: OperationWire | undefined;
  for (const field of OPERATION_PAYLOAD_FIELDS) {
    const value = op[field];
    if (value === undefined) continue;
    const bytes = jsonBytes(value);
    if (bytes <= threshold) continue;
    result ??= { ...op, omitted: { ...op.omitted } };
    delete result[field];
    (result.omitted as Record<string, number>)[field] = bytes;
  }
  return result ?? op;
}

/** Drops the oldest of `logs` until they take at most `budget` bytes; returns how many went. */
function trimLogs(logs: LogWire[], budget: number): number {
  let bytes = logs.reduce((sum, log) => sum + travelBytes(log) + 1, 0);
  let dropped = 0;
  while (bytes > budget && logs.length > 0) {
    bytes -= travelBytes(logs.shift()) + 1;
    dropped += 1;
  }
  return dropped;
}

/** One page of `run`'s history, within {@link PAGE_BUDGET_BYTES}. */
export async function historyPage(
  deps: RouteDeps,
  run: RunRecord,
  query: HistoryPageQuery,
): Promise<OperationListWire> {
  const store = deps.engine.store;
  const now = deps.clock.now();
  const page = await readOperationPage(store, run.runId, query);
  const operations = page.operations.map((op) => asOfNow(op, now));
  const reader = journalOf(store);
  const journal = reader ? await reader.readRunJournal(run.runId) : EMPTY_JOURNAL;
  const first = query.after === undefined;
  const whole = first && page.after === undefined;
  const known = await withAncestors(store, run.runId, operations, now);

  // Lines naming an operation show on its page; when the run is read whole, lines naming none of
  // its operations are the run's own, else only the context logger's are (the rest may be on
  // another page).
  const ids = new Set(operations.map((op) => op.Id));
  const logs = logsByOperation(journal, whole ? (id) => ids.has(id) : () => true);
  let children: Map<string, Operation[]> | undefined;
  if (whole) {
    children = new Map();
    for (const op of operations) {
      if (op.ParentId === undefined) continue;
      const list = children.get(op.ParentId) ?? [];
      list.push(op);
      children.set(op.ParentId, list);
    }
  }
  const wires = operationWires(run, operations, {
    known,
    journal,
    now,
    logsOf: logs.byOperation,
    ...(children ? { children } : {}),
  }).map((op) => leaveOutPayloads(op, INLINE_PAYLOAD_BYTES));

  const head: OperationListWire = { runId: run.runId, operations: [] };
  if (first && reader) {
    const journalWire = journalToWire(journal, logs.run);
    // The run's own lines take at most a quarter of the page; older ones count as dropped.
    journalWire.logsDropped += trimLogs(journalWire.logs, PAGE_BUDGET_BYTES / 4);
    Object.assign(head, journalWire);
  }
  if (first) {
    // Where the run recorded each invocation's end; a store without a journal (DynamoDB) has only these.
    const invocations = withRecordedInvocations(head.invocations, run);
    if (invocations) head.invocations = invocations;
  }
  // The head, and room for a cursor.
  let used = travelBytes(head) + 512;
  const kept: OperationWire[] = [];
  for (const op of wires) {
    const bytes = travelBytes(op) + 1;
    if (kept.length > 0 && used + bytes > PAGE_BUDGET_BYTES) break;
    kept.push(op);
    used += bytes;
  }
  const lastKept = kept.at(-1);
  const nextAfter = kept.length < wires.length ? lastKept?.id : page.after;
  return {
    ...head,
    operations: kept,
    ...(nextAfter === undefined ? {} : { nextCursor: historyCursor(run.runId, nextAfter) }),
  };
}
