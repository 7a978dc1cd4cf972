import type { RunInvocationEntry, RunJournal, RunLogEntry } from '@durable-lambda/api';
import type { SqliteDatabase, SqliteStatement } from './sqlite-driver';

/** A log line as the SDK's logger hands it to a `logSink`. */
export interface LogLine {
  runId: string;
  level: string;
  message: string;
  /** ISO time; the store's clock when absent or unreadable. */
  timestamp?: string;
  operationId?: string;
  attempt?: number;
  data?: unknown;
}

/** Limits of each run's journal in a `SqliteStore` (its log lines and invocations). */
export interface RunJournalLimits {
  /** Log bytes kept per run (JSON size of the lines); the oldest lines go first. Default 256 KiB. */
  logBytesPerRun?: number;
  /** Longest log message kept, characters; the rest is cut. Default 4096. */
  maxMessageChars?: number;
  /** Invocations remembered per run (the oldest are forgotten). Default 1000. */
  invocationsPerRun?: number;
}

const DEFAULT_LOG_BYTES = 256 * 1024;
const DEFAULT_MESSAGE_CHARS = 4096;
const DEFAULT_INVOCATIONS = 1000;
/** Data attached to a log line, at most this long as JSON; longer data is kept as a cut string. */
const MAX_DATA_CHARS = 4096;

interface LogRow {
  at: number;
  level: string;
  operation_id: string | null;
  attempt: number | null;
  body: string;
}

interface InvocationRow {
  fence: number;
  started_at: number;
  ended_at: number | null;
  lost: number;
}

/**
 * A run's journal in a {@link SqliteStore}'s database (tables `run_logs`, `run_log_totals`,
 * `run_invocations`, `run_retries`, schema version 3): the log lines its handler wrote, each
 * invocation's start and end, and its retries. Log lines are capped per run by size (the oldest
 * dropped, and counted); writes of the store call it inside their own transactions, so an
 * invocation's start or end is recorded exactly when its lease is taken or released.
 */
export class SqliteRunJournal {
  private readonly logBytes: number;
  private readonly messageChars: number;
  private readonly invocationsKept: number;
  private readonly sql: Record<
    | 'insertLog'
    | 'total'
    | 'putTotal'
    | 'oldest'
    | 'deleteLog'
    | 'logs'
    | 'opened'
    | 'lostBefore'
    | 'closed'
    | 'closeAll'
    | 'invocations'
    | 'trimInvocations'
    | 'retried'
    | 'retries',
    SqliteStatement
  >;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly now: () => number,
    limits: RunJournalLimits = {},
  ) {
    this.logBytes = positive(limits.logBytesPerRun, 'logBytesPerRun', DEFAULT_LOG_BYTES);
    this.messageChars = positive(limits.maxMessageChars, 'maxMessageChars', DEFAULT_MESSAGE_CHARS);
    this.invocationsKept = positive(limits.invocationsPerRun, 'invocationsPerRun', DEFAULT_INVOCATIONS);
    this.sql = {
      insertLog: db.prepare(
        'INSERT INTO run_logs (run_id, at, level, operation_id, attempt, bytes, body) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      total: db.prepare('SELECT bytes, dropped FROM run_log_totals WHERE run_id = ?'),
      putTotal: db.prepare(
        `INSERT INTO run_log_totals (run_id, bytes, dropped) VALUES (?, ?, ?)
         ON CONFLICT (run_id) DO UPDATE SET bytes = excluded.bytes, dropped = excluded.dropped`,
      ),
      oldest: db.prepare('SELECT seq, bytes FROM run_logs WHERE run_id = ? ORDER BY seq LIMIT 64'),
      deleteLog: db.prepare('DELETE FROM run_logs WHERE seq = ?'),
      logs: db.prepare('SELECT at, level, operation_id, attempt, body FROM run_logs WHERE run_id = ? ORDER BY seq'),
      opened: db.prepare(
        'INSERT INTO run_invocations (run_id, fence, started_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
      ),
      lostBefore: db.prepare(
        'UPDATE run_invocations SET lost = 1 WHERE run_id = ? AND fence < ? AND ended_at IS NULL AND lost = 0',
      ),
      closed: db.prepare(
        'UPDATE run_invocations SET ended_at = ? WHERE run_id = ? AND fence = ? AND ended_at IS NULL AND lost = 0',
      ),
      closeAll: db.prepare(
        'UPDATE run_invocations SET ended_at = ? WHERE run_id = ? AND ended_at IS NULL AND lost = 0',
      ),
      invocations: db.prepare(
        'SELECT fence, started_at, ended_at, lost FROM run_invocations WHERE run_id = ? ORDER BY fence',
      ),
      trimInvocations: db.prepare(
        `DELETE FROM run_invocations WHERE run_id = ? AND fence <= (
           SELECT fence FROM run_invocations WHERE run_id = ? ORDER BY fence DESC LIMIT 1 OFFSET ?)`,
      ),
      retried: db.prepare('INSERT INTO run_retries (run_id, at) VALUES (?, ?)'),
      retries: db.prepare('SELECT at FROM run_retries WHERE run_id = ? ORDER BY seq'),
    };
  }

  /** Keeps one log line of a run, dropping the run's oldest lines past the cap. */
  appendLog(line: LogLine): void {
    if (typeof line?.runId !== 'string' || line.runId.length === 0) return;
    const at = timeOf(line.timestamp) ?? this.now();
    const message = String(line.message ?? '');
    const body: { message: string; data?: unknown } = {
      message: message.length > this.messageChars ? `${message.slice(0, this.messageChars)}…` : message,
    };
    if (line.data !== undefined) body.data = boundedData(line.data);
    const text = JSON.stringify(body);
    const bytes = Buffer.byteLength(text, 'utf8');
    this.db.transaction(() => {
      const total = (this.sql.total.get(line.runId) as { bytes: number; dropped: number } | undefined) ?? {
        bytes: 0,
        dropped: 0,
      };
      this.sql.insertLog.run(
        line.runId,
        at,
        String(line.level ?? 'info'),
        typeof line.operationId === 'string' ? line.operationId : null,
        Number.isInteger(line.attempt) ? line.attempt : null,
        bytes,
        text,
      );
      let kept = total.bytes + bytes;
      let dropped = total.dropped;
      while (kept > this.logBytes) {
        const oldest = this.sql.oldest.all(line.runId) as Array<{ seq: number; bytes: number }>;
        if (oldest.length === 0) break;
        for (const row of oldest) {
          if (kept <= this.logBytes) break;
          this.sql.deleteLog.run(row.seq);
          kept -= row.bytes;
          dropped += 1;
        }
      }
      this.sql.putTotal.run(line.runId, kept, dropped);
    });
  }

  /** An invocation took the run's lease with `fence`; a lapsed lease before it was a lost invocation. */
  opened(runId: string, fence: number, at: number, previousLost: boolean): void {
    if (previousLost) this.sql.lostBefore.run(runId, fence);
    this.sql.opened.run(runId, fence, at);
    this.sql.trimInvocations.run(runId, runId, this.invocationsKept);
  }

  /** The invocation with `fence` released the lease. */
  closed(runId: string, fence: number, at: number): void {
    this.sql.closed.run(at, runId, fence);
  }

  /** The run was changed from outside (cancelled, retried): whatever invocation held it is fenced out. */
  revised(runId: string, at: number, retried: boolean): void {
    this.sql.closeAll.run(at, runId);
    if (retried) this.sql.retried.run(runId, at);
  }

  /** Forgets a run's journal (a run created anew over an expired one). */
  forget(runId: string): void {
    for (const table of ['run_logs', 'run_log_totals', 'run_invocations', 'run_retries']) {
      this.db.prepare(`DELETE FROM ${table} WHERE run_id = ?`).run(runId);
    }
  }

  /** The run's journal as stored. */
  read(runId: string): RunJournal {
    const logs = (this.sql.logs.all(runId) as LogRow[]).map((row): RunLogEntry => {
      const body = JSON.parse(row.body) as { message: string; data?: unknown };
      return {
        at: row.at,
        level: row.level,
        message: body.message,
        ...(row.operation_id === null ? {} : { operationId: row.operation_id }),
        ...(row.attempt === null ? {} : { attempt: row.attempt }),
        ...(body.data === undefined ? {} : { data: body.data }),
      };
    });
    const total = this.sql.total.get(runId) as { dropped: number } | undefined;
    const invocations = (this.sql.invocations.all(runId) as InvocationRow[]).map(
      (row): RunInvocationEntry => ({
        fence: row.fence,
        startedAt: row.started_at,
        ...(row.ended_at === null ? {} : { endedAt: row.ended_at }),
        ...(row.lost ? { lost: true } : {}),
      }),
    );
    const retriedAt = (this.sql.retries.all(runId) as Array<{ at: number }>).map((row) => row.at);
    return { logs, logsDropped: total?.dropped ?? 0, invocations, retriedAt };
  }
}

/** The journal's tables (migration 3 of the store's schema). */
export const RUN_JOURNAL_SCHEMA = `
  CREATE TABLE IF NOT EXISTS run_logs (
    seq INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    level TEXT NOT NULL,
    operation_id TEXT,
    attempt INTEGER,
    bytes INTEGER NOT NULL,
    body TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS run_logs_by_run ON run_logs (run_id, seq);
  CREATE TABLE IF NOT EXISTS run_log_totals (
    run_id TEXT PRIMARY KEY NOT NULL,
    bytes INTEGER NOT NULL,
    dropped INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS run_invocations (
    run_id TEXT NOT NULL,
    fence INTEGER NOT NULL,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    lost INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, fence)
  );
  CREATE TABLE IF NOT EXISTS run_retries (
    seq INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL,
    at INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS run_retries_by_run ON run_retries (run_id, seq);
`;

function positive(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) throw new TypeError(`${name}: must be a whole number above 0`);
  return value;
}

function timeOf(iso: string | undefined): number | undefined {
  if (typeof iso !== 'string') return undefined;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Attached data as JSON can hold it, cut to a bounded size (a string then). */
function boundedData(data: unknown): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(data);
  } catch {
    text = JSON.stringify(String(data));
  }
  if (text === undefined) return String(data);
  if (text.length <= MAX_DATA_CHARS) return JSON.parse(text) as unknown;
  return `${text.slice(0, MAX_DATA_CHARS)}…`;
}
