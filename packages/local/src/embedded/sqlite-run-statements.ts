import { dueAtOf, type RunRecord, type RunStatus } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import type { SqliteDatabase, SqliteStatement } from './sqlite-driver';

/** A row of the `runs` table as the store reads it back. */
export interface RunRow {
  record: string;
  expires_at: number | null;
}

/** The prepared statements of a `SqliteStore` over the `runs` and `operations` tables. */
export interface RunStatements {
  getRun: SqliteStatement<[string], RunRow>;
  putRun: SqliteStatement<[string, string, string, number, number | null, number | null, string]>;
  /** An existing run's row, its status kept: expires_at, due_at, record, run_id. */
  updateRun: SqliteStatement<[number | null, number | null, string, string]>;
  /** An existing run's row with a new status: status, expires_at, due_at, record, run_id. */
  updateRunStatus: SqliteStatement<[string, number | null, number | null, string, string]>;
  findDue: SqliteStatement<[number, number, number, string, number, number], { run_id: string; due_at: number }>;
  running: SqliteStatement<[], { record: string }>;
  deleteOperations: SqliteStatement<[string]>;
  putOperation: SqliteStatement<[string, string, string, string, string | null, string]>;
  loadOperations: SqliteStatement<[string], { body: string }>;
  /** The children of one operation (or, with NULL, the top level), in creation order. */
  childOperations: SqliteStatement<[string, string | null], { body: string }>;
  getOperation: SqliteStatement<[string, string], { body: string }>;
  /** The first `limit` operations of a run, in creation order. */
  firstOperations: SqliteStatement<[string, number], { body: string; operation_id: string }>;
  /** The `limit` operations created after the one named (none when the run has no such operation). */
  operationsAfter: SqliteStatement<[string, string, string, number], { body: string; operation_id: string }>;
}

/** Prepares the store's statements once per connection (the schema must be migrated first). */
export function prepareRunStatements(db: SqliteDatabase): RunStatements {
  return {
    getRun: db.prepare('SELECT record, expires_at FROM runs WHERE run_id = ?'),
    putRun: db.prepare(
      `INSERT INTO runs (run_id, function_name, status, created_at, expires_at, due_at, record)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (run_id) DO UPDATE SET function_name = excluded.function_name, status = excluded.status,
         created_at = excluded.created_at, expires_at = excluded.expires_at, due_at = excluded.due_at,
         record = excluded.record`,
    ),
    // No function_name or created_at (they never change): SQLite rewrites an index's entry for
    // each of its columns a statement sets, changed or not, and each entry rewritten is a page of
    // the WAL. status is set only when it changed (updateRunStatus).
    updateRun: db.prepare('UPDATE runs SET expires_at = ?, due_at = ?, record = ? WHERE run_id = ?'),
    updateRunStatus: db.prepare('UPDATE runs SET status = ?, expires_at = ?, due_at = ?, record = ? WHERE run_id = ?'),
    // `due_at IS NOT NULL` lets SQLite use the partial index runs_by_due (no scan of every run).
    findDue: db.prepare(
      `SELECT run_id, due_at FROM runs INDEXED BY runs_by_due
       WHERE due_at IS NOT NULL AND due_at <= ? AND (due_at > ? OR (due_at = ? AND run_id > ?))
         AND (expires_at IS NULL OR expires_at > ?)
       ORDER BY due_at, run_id LIMIT ?`,
    ),
    running: db.prepare(`SELECT record FROM runs WHERE status = 'RUNNING'`),
    deleteOperations: db.prepare('DELETE FROM operations WHERE run_id = ?'),
    putOperation: db.prepare(
      `INSERT INTO operations (run_id, operation_id, type, status, parent_id, body) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (run_id, operation_id) DO UPDATE SET type = excluded.type, status = excluded.status,
         body = excluded.body`,
    ),
    loadOperations: db.prepare('SELECT body FROM operations WHERE run_id = ? ORDER BY seq'),
    // `IS` matches NULL too (the top level); the index operations_by_parent serves both.
    childOperations: db.prepare('SELECT body FROM operations WHERE run_id = ? AND parent_id IS ? ORDER BY seq'),
    getOperation: db.prepare('SELECT body FROM operations WHERE run_id = ? AND operation_id = ?'),
    firstOperations: db.prepare('SELECT body, operation_id FROM operations WHERE run_id = ? ORDER BY seq LIMIT ?'),
    // A missing `after` makes the bound NULL, so nothing matches: the page is empty.
    operationsAfter: db.prepare(
      `SELECT body, operation_id FROM operations
       WHERE run_id = ? AND seq > (SELECT seq FROM operations WHERE run_id = ? AND operation_id = ?)
       ORDER BY seq LIMIT ?`,
    ),
  };
}

/** Runs `body` in one immediate transaction: atomic even with another process on the same file. */
export function immediately<T>(db: SqliteDatabase, body: () => T): T {
  return db.transaction(body);
}

/** Sets `run.dueAt` (in place) from the run's own fields, as every write does; the due-index key. */
function setDueAt(run: RunRecord): number | undefined {
  const dueAt = dueAtOf(run);
  if (dueAt === undefined) delete run.dueAt;
  else run.dueAt = dueAt;
  return dueAt;
}

/** Writes a run's row, new or anew over an expired one, its due-index key set first (in place: `run.dueAt`). */
export function putRunRow(sql: RunStatements, run: RunRecord): void {
  const dueAt = setDueAt(run);
  sql.putRun.run(
    run.runId,
    run.functionName,
    run.status,
    run.createdAt,
    run.expiresAt ?? null,
    dueAt ?? null,
    JSON.stringify(run),
  );
}

/**
 * Rewrites the row of a run read in the same transaction, its due-index key set first (in place),
 * its status column only when it is no longer `before` (see `updateRun`).
 */
export function updateRunRow(sql: RunStatements, run: RunRecord, before: RunStatus): void {
  const dueAt = setDueAt(run);
  const record = JSON.stringify(run);
  if (run.status === before) sql.updateRun.run(run.expiresAt ?? null, dueAt ?? null, record, run.runId);
  else sql.updateRunStatus.run(run.status, run.expiresAt ?? null, dueAt ?? null, record, run.runId);
}

/** Writes one operation's row. */
export function putOperationRow(sql: RunStatements, runId: string, op: Operation): void {
  sql.putOperation.run(runId, op.Id, op.Type, op.Status, op.ParentId ?? null, JSON.stringify(op));
}

/**
 * Lapses every lease of a RUNNING run held at `now` (`leaseExpiresAt` becomes `now`, the fence
 * stays: the next open counts a lost invocation, and the run is due at once); see
 * `SqliteStore.reclaimLeases`. Returns the ids of the runs whose lease it lapsed.
 */
export function lapseLeases(sql: RunStatements, now: number, updatedAt: number): string[] {
  const ids: string[] = [];
  for (const row of sql.running.all()) {
    const run = JSON.parse(row.record) as RunRecord;
    if (run.leaseExpiresAt === undefined || run.leaseExpiresAt <= now) continue;
    run.leaseExpiresAt = now;
    run.updatedAt = updatedAt;
    updateRunRow(sql, run, run.status);
    ids.push(run.runId);
  }
  return ids;
}
