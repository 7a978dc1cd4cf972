import type { WakeRequest } from '@durable-lambda/engine';
import type { SqliteDatabase, SqliteStatement } from './sqlite-driver';

/** Where a {@link TimerWaker} keeps its pending wake-ups, so they outlive the process. */
export interface WakeUpTable {
  /** Stores a wake-up unless one with the same run, time and reason is stored; true when new. */
  add(request: WakeRequest): boolean;
  /** Forgets a wake-up (no-op when absent). */
  remove(request: WakeRequest): void;
  /** Every stored wake-up, earliest first. */
  list(): WakeRequest[];
}

interface WakeUpRow {
  run_id: string;
  at: number;
  reason: WakeRequest['reason'];
  function_name: string;
}

/** The `wake_ups` table of a {@link SqliteStore}'s database. */
export class SqliteWakeUps implements WakeUpTable {
  private readonly insert: SqliteStatement;
  private readonly delete: SqliteStatement;
  private readonly all: SqliteStatement<[], WakeUpRow>;

  constructor(db: SqliteDatabase) {
    this.insert = db.prepare(
      'INSERT INTO wake_ups (run_id, at, reason, function_name) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
    );
    this.delete = db.prepare('DELETE FROM wake_ups WHERE run_id = ? AND at = ? AND reason = ?');
    this.all = db.prepare<[], WakeUpRow>('SELECT run_id, at, reason, function_name FROM wake_ups ORDER BY at, run_id');
  }

  add(request: WakeRequest): boolean {
    return this.insert.run(request.runId, request.at, request.reason, request.functionName).changes > 0;
  }

  remove(request: WakeRequest): void {
    this.delete.run(request.runId, request.at, request.reason);
  }

  list(): WakeRequest[] {
    return this.all
      .all()
      .map((row) => ({ runId: row.run_id, at: row.at, reason: row.reason, functionName: row.function_name }));
  }
}
