import {
  checkRunSearch,
  decodeRunCursor,
  encodeRunCursor,
  functionBaseName,
  type RunPage,
  type RunQuery,
  type RunRecord,
  runQueryLimit,
} from '@durable-lambda/engine';
import type { SqliteDatabase } from './sqlite-driver';
import { tagCondition } from './sqlite-run-tags';

/**
 * `Store.listRuns` over a `SqliteStore`'s database: the runs matching `query` within their
 * retention at `now`, newest first, one page at a time (the cursor is the last run's position).
 * A bare function name finds the runs of each of its qualifiers too (see `RunQuery.functionName`).
 */
export function listRuns(db: SqliteDatabase, now: number, query: RunQuery): RunPage {
  const limit = runQueryLimit(query.limit);
  checkRunSearch(query);
  const after = query.cursor === undefined ? undefined : decodeRunCursor(query.cursor);
  const where: string[] = [];
  const params: unknown[] = [];
  const filter = (clause: string, ...values: unknown[]) => {
    where.push(clause);
    params.push(...values);
  };
  filter('(expires_at IS NULL OR expires_at > ?)', now);
  if (query.functionName !== undefined && functionBaseName(query.functionName) !== query.functionName) {
    filter('function_name = ?', query.functionName);
  } else if (query.functionName !== undefined) {
    // The bare name and every `name:<qualifier>`: `:` sorts just before `;`, so the qualified
    // names are one range of `runs_by_function` (no LIKE, whose `_` and `%` a name may hold).
    filter(
      '(function_name = ? OR (function_name > ? AND function_name < ?))',
      query.functionName,
      `${query.functionName}:`,
      `${query.functionName};`,
    );
    // `arn` and an account id prefix ARN-shaped names, whose qualifier follows the function's name.
    if (/^(arn|\d{12})$/.test(query.functionName)) {
      filter("NOT (function_name GLOB 'arn:*:lambda:*:function:*' OR function_name GLOB '[0-9]*:function:*')");
    }
  }
  if (query.status !== undefined) filter('status = ?', query.status);
  if (query.tags !== undefined && Object.keys(query.tags).length > 0) {
    const { clause, params: values } = tagCondition(query.tags);
    filter(clause, ...values);
  }
  if (query.errorCode !== undefined) filter("json_extract(record, '$.error.ErrorCode') = ?", query.errorCode);
  if (query.createdAfter !== undefined) filter('created_at >= ?', query.createdAfter);
  if (query.createdBefore !== undefined) filter('created_at < ?', query.createdBefore);
  if (after)
    filter('(created_at < ? OR (created_at = ? AND run_id < ?))', after.createdAt, after.createdAt, after.runId);
  const rows = db
    .prepare<unknown[], { record: string }>(
      `SELECT record FROM runs WHERE ${where.join(' AND ')} ORDER BY created_at DESC, run_id DESC LIMIT ?`,
    )
    .all(...params, limit + 1);
  const runs = rows.slice(0, limit).map((row) => JSON.parse(row.record) as RunRecord);
  const last = runs[runs.length - 1];
  return rows.length > limit && last ? { runs, cursor: encodeRunCursor(last) } : { runs };
}

/**
 * Runs of a `SqliteStore`'s database whose id or run key contains `text` (case-insensitive; `%`
 * and `_` match themselves), newest first, at most `limit`, within their retention at `now`. A
 * scan of the runs table: for the dev server's search box, not for a hot path.
 */
export function searchRuns(db: SqliteDatabase, now: number, text: string, limit: number): RunRecord[] {
  const pattern = `%${String(text)
    .toLowerCase()
    .replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = db
    .prepare<[number, string, string, number], { record: string }>(
      `SELECT record FROM runs WHERE (expires_at IS NULL OR expires_at > ?)
         AND (lower(run_id) LIKE ? ESCAPE '\\' OR lower(json_extract(record, '$.runKey')) LIKE ? ESCAPE '\\')
       ORDER BY created_at DESC, run_id DESC LIMIT ?`,
    )
    .all(now, pattern, pattern, limit);
  return rows.map((row) => JSON.parse(row.record) as RunRecord);
}
