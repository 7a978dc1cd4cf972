import { createRequire } from 'node:module';
// Types only: erased from the JavaScript, and kept out of every exported declaration (the dist
// .d.ts must type-check for consumers without @types/better-sqlite3).
import type BetterSqlite3 from 'better-sqlite3';
import type { OpenOptions, SqliteDatabase, SqliteStatement } from './sqlite-connection';

/** better-sqlite3's module (its `Database` class). */
export type BetterSqlite3Module = typeof BetterSqlite3;

const NAME = 'better-sqlite3';

/** A `require` anchored at this package, where npm installed the optional dependency. */
function requireHere(): NodeJS.Require {
  // The CommonJS build has `__filename` (and no `import.meta`); the ESM build and the sources have
  // `import.meta.url`. Either anchors the lookup here.
  return createRequire(typeof __filename === 'string' ? __filename : import.meta.url);
}

/**
 * better-sqlite3, required on first use rather than imported: an import of the main entry must
 * work where the native module is missing or failed to build, as long as no store is opened.
 * `entry` is its resolved entry file (a worker thread requires the same one).
 */
export function loadBetterSqlite3():
  | { module: BetterSqlite3Module; entry: string }
  | { missing: true; error: unknown }
  | { broken: true; error: unknown } {
  const require = requireHere();
  try {
    return { module: require(NAME) as BetterSqlite3Module, entry: require.resolve(NAME) };
  } catch (error) {
    return isMissing(error, NAME) ? { missing: true, error } : { broken: true, error };
  }
}

/** Opens `path` through better-sqlite3 (whose `timeout` is SQLite's busy timeout). */
export function openBetterSqlite3(Database: BetterSqlite3Module, path: string, options: OpenOptions): SqliteDatabase {
  return new BetterConnection(new Database(path, { timeout: options.timeout, readonly: options.readonly ?? false }));
}

/** A better-sqlite3 connection behind the store's seam: mostly its own methods, passed through. */
class BetterConnection implements SqliteDatabase {
  readonly driver = NAME;
  constructor(private readonly db: BetterSqlite3.Database) {}

  get open(): boolean {
    return this.db.open;
  }

  prepare<P extends unknown[] = unknown[], R = unknown>(sql: string): SqliteStatement<P, R> {
    return this.db.prepare<P, R>(sql);
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  pragma(pragma: string): unknown[] {
    return this.db.pragma(pragma) as unknown[];
  }

  transaction<T>(body: () => T): T {
    // better-sqlite3's own: BEGIN IMMEDIATE, a savepoint when nested, rollback on a throw.
    return this.db.transaction(body).immediate();
  }

  close(): void {
    this.db.close();
  }
}

/** Whether `error` is Node's "Cannot find module" for `name` itself (not for one of its files). */
function isMissing(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === 'MODULE_NOT_FOUND' && typeof message === 'string' && message.includes(`'${name}'`);
}
