import type { RunRecord } from '@durable-lambda/engine';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * Runs of a `SqliteStore`'s database whose id or run key contains `text` (case-insensitive; `%`
 * and `_` match themselves), newest first, at most `limit`, within their retention at `now`. A
 * scan of the runs table: for the dev server's search box, not for a hot path.
 */
export function searchRuns(db: BetterSqlite3.Database, now: number, text: string, limit: number): RunRecord[] {
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
