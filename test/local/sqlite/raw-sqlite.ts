/**
 * A second, raw connection on a store's file, for tests that look at (or rewrite) its tables. It
 * goes through the store's own driver seam, so it runs on the driver the store runs on in this
 * process (`node:sqlite` or better-sqlite3, see `DURABLE_SQLITE_DRIVER`): two copies of SQLite in
 * one process would not see each other's locks.
 */
import { openDatabase, type SqliteDatabase } from '../../../packages/local/src/embedded/sqlite-driver';

export type { SqliteDatabase };

/** Opens `path` (better-sqlite3's default busy timeout, 5 s). */
export function rawDatabase(path: string, options: { readonly?: boolean } = {}): SqliteDatabase {
  return openDatabase(path, { timeout: 5_000, ...options });
}

/** A pragma's single value (`PRAGMA wal_autocheckpoint` answers one row of one column). */
export function pragmaValue(db: SqliteDatabase, pragma: string): unknown {
  const [row] = db.pragma(pragma) as Array<Record<string, unknown>>;
  return row && Object.values(row)[0];
}
