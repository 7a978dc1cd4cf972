import { dueAtOf, type RunRecord } from '@durable-lambda/engine';
import type { SqliteDatabase } from './sqlite-driver';
import { FUNCTION_LIMITS_SCHEMA } from './sqlite-function-limits';
import { GATE_SCHEMA } from './sqlite-gates';
import { RUN_JOURNAL_SCHEMA } from './sqlite-run-journal';
import { RUN_TAGS_SCHEMA } from './sqlite-run-tags';
import { SIGNAL_SCHEMA } from './sqlite-signals';
import { SLOT_SCHEMA } from './sqlite-slots';

/**
 * The embedded store's schema, as numbered migrations. Migration `i` brings the file from version
 * `i` to `i + 1`; a file is never written by a version of this code that does not know its schema.
 *
 * - `runs`: one row per run; `record` is the {@link RunRecord} as JSON, the other columns copy the
 *   fields queries filter and sort on.
 * - `operations`: one row per operation; `seq` (the rowid) keeps creation order, `body` is the
 *   operation as JSON.
 * - `idempotency`: control-API idempotency records, `record` as JSON.
 * - `wake_ups`: pending wake-ups of the timer waker, one per run/time/reason.
 * - `runs.due_at` (version 2): the due index of `Store.findDueRuns`, `dueAtOf(record)` or
 *   NULL; a partial index holds only the non-NULL rows, so it stays as small as the due runs.
 * - `run_logs`, `run_log_totals`, `run_invocations`, `run_retries` (version 3): each run's journal
 *   (its handler's log lines within a size cap, its invocations, its retries; see
 *   `SqliteRunJournal`), for the dev server's views. Not part of the `Store` port.
 * - `operations.parent_id` (version 4): the operation's `ParentId` (NULL at the top level), with
 *   an index by (run, parent, creation order), so `loadReplayOperations` reads a live context's
 *   children without the rest of the run. Rows written before it get theirs from their body.
 * - `slot_holders`, `slot_queue` (version 5): the slots and queues of concurrency keys (flow
 *   control per key; see `SqliteSlots`).
 * - `flow_gates` (version 6): the registers of `throttle`, `rateLimit` and `debounce` (see `SqliteGates`).
 * - `function_limits` (version 7): each function's flow-control limits as last recorded (see
 *   `SqliteFunctionLimits`).
 * - `run_tags` (issue 27): each run's search tags, indexed by (key, value) (see `SqliteRunTags`).
 * - `signals` (the last migration, issue 27): each run's signal inbox (see `SqliteSignals`).
 *
 * A migration is SQL, or a function for what SQL cannot compute (the due index's backfill).
 */
const MIGRATIONS: ReadonlyArray<string | ((db: SqliteDatabase) => void)> = [
  `
  CREATE TABLE runs (
    run_id TEXT PRIMARY KEY NOT NULL,
    function_name TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER,
    record TEXT NOT NULL
  );
  CREATE INDEX runs_by_created ON runs (created_at, run_id);
  CREATE INDEX runs_by_function ON runs (function_name, created_at, run_id);
  CREATE INDEX runs_by_status ON runs (status, created_at, run_id);

  CREATE TABLE operations (
    seq INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL,
    operation_id TEXT NOT NULL,
    type TEXT NOT NULL,
    status TEXT NOT NULL,
    body TEXT NOT NULL,
    UNIQUE (run_id, operation_id)
  );
  CREATE INDEX operations_by_run ON operations (run_id, seq);

  CREATE TABLE idempotency (
    key TEXT PRIMARY KEY NOT NULL,
    expires_at INTEGER NOT NULL,
    record TEXT NOT NULL
  );

  CREATE TABLE wake_ups (
    run_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    reason TEXT NOT NULL,
    function_name TEXT NOT NULL,
    PRIMARY KEY (run_id, at, reason)
  );
  CREATE INDEX wake_ups_by_at ON wake_ups (at);
  `,
  (db) => {
    db.exec(`
      ALTER TABLE runs ADD COLUMN due_at INTEGER;
      CREATE INDEX runs_by_due ON runs (due_at, run_id) WHERE due_at IS NOT NULL;
    `);
    // Runs written before the index existed get their key from the same rule every write uses.
    const update = db.prepare<[number | null, string, string]>(
      'UPDATE runs SET due_at = ?, record = ? WHERE run_id = ?',
    );
    const rows = db.prepare<[], { run_id: string; record: string }>('SELECT run_id, record FROM runs').all();
    for (const row of rows) {
      const run = JSON.parse(row.record) as RunRecord;
      const dueAt = dueAtOf(run);
      if (dueAt === undefined) delete run.dueAt;
      else run.dueAt = dueAt;
      update.run(dueAt ?? null, JSON.stringify(run), row.run_id);
    }
  },
  RUN_JOURNAL_SCHEMA,
  (db) => {
    // Idempotent, like the journal's migration: a file taken back to an older version keeps its column.
    const columns = db.prepare<[], { name: string }>('PRAGMA table_info(operations)').all();
    if (!columns.some((column) => column.name === 'parent_id'))
      db.exec('ALTER TABLE operations ADD COLUMN parent_id TEXT');
    db.exec('CREATE INDEX IF NOT EXISTS operations_by_parent ON operations (run_id, parent_id, seq)');
    const update = db.prepare<[string, number]>('UPDATE operations SET parent_id = ? WHERE seq = ?');
    const rows = db.prepare<[], { seq: number; body: string }>('SELECT seq, body FROM operations').all();
    for (const row of rows) {
      const parentId = (JSON.parse(row.body) as { ParentId?: unknown }).ParentId;
      if (typeof parentId === 'string') update.run(parentId, row.seq);
    }
  },
  SLOT_SCHEMA,
  GATE_SCHEMA,
  FUNCTION_LIMITS_SCHEMA,
  RUN_TAGS_SCHEMA,
  // Issue 27's signals: keep this after every migration main adds (a file's version is its count).
  SIGNAL_SCHEMA,
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings `db` to {@link SCHEMA_VERSION}, each migration in its own transaction. Throws when the
 * file was written by a newer version.
 */
export function migrate(db: SqliteDatabase): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
  const current = () =>
    (db.prepare('SELECT MAX(version) AS version FROM schema_version').get() as { version: number | null }).version ?? 0;
  if (current() > SCHEMA_VERSION) {
    throw new Error(`the database has schema version ${current()}; this version of the store knows ${SCHEMA_VERSION}`);
  }
  db.transaction(() => {
    // Read again inside the (immediate) transaction: another process may have migrated meanwhile.
    for (let version = current(); version < SCHEMA_VERSION; version++) {
      const migration = MIGRATIONS[version];
      if (typeof migration === 'function') migration(db);
      else db.exec(migration as string);
      db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(version + 1);
    }
  });
}
