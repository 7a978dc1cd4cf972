/**
 * The signal inbox of a `SqliteStore` (`ctx.waitForSignal`, issue 27): table `signals`, one row
 * per signal, keyed by (run, the run's `createdAt`, seq) so a run created again under its id
 * starts with an empty inbox; the signal as JSON. A signal's row and its run's row are written in
 * one transaction (the store's), so the signal and the run's `eventSeq` move together.
 */
import {
  decideSignal,
  type RunRecord,
  type SignalAppend,
  type SignalRecord,
  type SignalSend,
} from '@durable-lambda/engine';
import type { SqliteDatabase, SqliteStatement } from './sqlite-driver';

/** The schema of the signal inbox (the last migration of `sqlite-schema.ts`). */
export const SIGNAL_SCHEMA = `
  CREATE TABLE IF NOT EXISTS signals (
    run_id TEXT NOT NULL,
    epoch INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (run_id, epoch, seq)
  );
`;

/** What the inbox needs of the store around it: its run reads and writes, inside its transaction. */
export interface SignalRunAccess {
  transaction<T>(body: () => T): T;
  live(runId: string): RunRecord | undefined;
  /** Writes the run's row as `run` (its status unchanged). */
  update(run: RunRecord): void;
  now(): number;
}

/** The `Store` port's signal methods over the `signals` table. */
export class SqliteSignals {
  private readonly sql: {
    put: SqliteStatement<[string, number, number, string]>;
    list: SqliteStatement<[string, number], { record: string }>;
  };

  constructor(
    db: SqliteDatabase,
    private readonly runs: SignalRunAccess,
  ) {
    this.sql = {
      put: db.prepare('INSERT INTO signals (run_id, epoch, seq, record) VALUES (?, ?, ?, ?)'),
      list: db.prepare('SELECT record FROM signals WHERE run_id = ? AND epoch = ? ORDER BY seq'),
    };
  }

  /** `Store.appendSignal`: true in `written` when something was written. */
  append(runId: string, send: SignalSend): { answer: SignalAppend; written: boolean } {
    return this.runs.transaction(() => {
      const run = this.runs.live(runId);
      const { answer, write } = decideSignal(run, run ? this.inbox(run) : [], send, this.runs.now());
      if (!run || !write) return { answer, written: false };
      this.sql.put.run(runId, run.createdAt, write.signal.seq, JSON.stringify(write.signal));
      this.runs.update(write.run);
      return { answer, written: true };
    });
  }

  /** `Store.listSignals`. */
  list(runId: string): SignalRecord[] {
    return this.runs.transaction(() => {
      const run = this.runs.live(runId);
      return run ? this.inbox(run) : [];
    });
  }

  private inbox(run: RunRecord): SignalRecord[] {
    return this.sql.list.all(run.runId, run.createdAt).map((row) => JSON.parse(row.record) as SignalRecord);
  }
}
