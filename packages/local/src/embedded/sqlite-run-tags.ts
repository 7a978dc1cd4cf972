/**
 * Runs' search tags in a `SqliteStore`'s database, for `RunQuery.tags`: table `run_tags`, one row
 * per (run, key), indexed by (key, value), so a search reads the runs carrying a tag without
 * scanning the others. The run's `record` holds its tags too (what reads return); this table is
 * rewritten from it in the same transaction as every write that sets them.
 */
import type { RunRecord } from '@durable-lambda/engine';
import type { SqliteDatabase, SqliteStatement } from './sqlite-driver';

/** The schema of the tags table (the last migration of `sqlite-schema.ts`). */
export const RUN_TAGS_SCHEMA = `
  CREATE TABLE IF NOT EXISTS run_tags (
    run_id TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
  );
  CREATE INDEX IF NOT EXISTS run_tags_by_tag ON run_tags (key, value, run_id);
`;

/** Keeps `run_tags` equal to the runs' `tags`. */
export class SqliteRunTags {
  private readonly sql: {
    clear: SqliteStatement<[string]>;
    put: SqliteStatement<[string, string, string]>;
  };

  constructor(db: SqliteDatabase) {
    this.sql = {
      clear: db.prepare('DELETE FROM run_tags WHERE run_id = ?'),
      put: db.prepare('INSERT INTO run_tags (run_id, key, value) VALUES (?, ?, ?)'),
    };
  }

  /** Rewrites the run's rows from `run.tags` (none when it has none). Inside the write's transaction. */
  write(run: Pick<RunRecord, 'runId' | 'tags'>): void {
    this.sql.clear.run(run.runId);
    for (const [key, value] of Object.entries(run.tags ?? {})) this.sql.put.run(run.runId, key, value);
  }
}

/**
 * The SQL condition (and its parameters) of `RunQuery.tags` on table `runs`: the run carries each
 * tag, found through the index by tag.
 */
export function tagCondition(tags: Readonly<Record<string, string>>): { clause: string; params: string[] } {
  const entries = Object.entries(tags);
  return {
    clause: entries.map(() => 'run_id IN (SELECT run_id FROM run_tags WHERE key = ? AND value = ?)').join(' AND '),
    params: entries.flat(),
  };
}
