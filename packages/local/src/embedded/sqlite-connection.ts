/**
 * The shape of an open SQLite connection as the embedded store uses it, whichever binding it runs on
 * (`node:sqlite` or better-sqlite3). A leaf module: the two drivers implement these types and the
 * module that picks between them (`sqlite-driver.ts`) imports both drivers, so the types live apart.
 */

/** The SQLite bindings a store can run on: Node.js's own `node:sqlite`, or the better-sqlite3 addon. */
export type SqliteDriverName = 'node' | 'better-sqlite3';

/**
 * A prepared statement, as the store uses it: positional parameters, rows as plain objects. Both
 * drivers' statements have this shape, so the seam hands them out as they are (no wrapper on the
 * hot path).
 */
export interface SqliteStatement<P extends unknown[] = unknown[], R = unknown> {
  /** Rows changed by an insert, update or delete. */
  run(...params: P): { changes: number | bigint };
  get(...params: P): R | undefined;
  all(...params: P): R[];
}

/** An open SQLite connection (internal: no public type may name it), on either driver. */
export interface SqliteDatabase {
  /** Which binding the connection runs on. */
  readonly driver: SqliteDriverName;
  /** False once closed. */
  readonly open: boolean;
  prepare<P extends unknown[] = unknown[], R = unknown>(sql: string): SqliteStatement<P, R>;
  /** Runs one or more statements, no parameters, no rows. */
  exec(sql: string): void;
  /** `PRAGMA <pragma>`, its rows (`journal_mode = WAL` answers `[{ journal_mode: 'wal' }]`). */
  pragma(pragma: string): unknown[];
  /**
   * Runs `body` in one `BEGIN IMMEDIATE` transaction (a savepoint when one is open already):
   * committed when it returns, rolled back when it throws.
   */
  transaction<T>(body: () => T): T;
  close(): void;
}

/** How a connection is opened. */
export interface OpenOptions {
  /** How long a statement waits for another connection's lock before `SQLITE_BUSY`, ms. */
  timeout: number;
  readonly?: boolean;
}
