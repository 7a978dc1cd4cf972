import { createRequire } from 'node:module';
// Types only: erased from the JavaScript, and kept out of every exported declaration (the dist
// .d.ts must type-check for consumers without @types/better-sqlite3).
import type BetterSqlite3 from 'better-sqlite3';

/** An open SQLite connection (internal: no public type may name it). */
export type SqliteDatabase = BetterSqlite3.Database;
/** A prepared statement of a {@link SqliteDatabase}. */
export type SqliteStatement<P extends unknown[] = unknown[], R = unknown> = BetterSqlite3.Statement<P, R>;

const DRIVER = 'better-sqlite3';
const INSTALL = `npm install ${DRIVER}`;

/**
 * The embedded SQLite store cannot run here (code `sqlite_unavailable`): the native module
 * better-sqlite3, an optional dependency of `@durable-lambda/local`, is not installed or its native
 * build does not load. Thrown by the first `SqliteStore` construction, never by an import: the test
 * runner (`@durable-lambda/local/testing`) needs no native module.
 */
export class SqliteUnavailableError extends Error {
  /** Stable code. */
  readonly code = 'sqlite_unavailable';
  constructor(problem: string, options?: { cause?: unknown }) {
    super(
      `the embedded SQLite store (SqliteStore, LocalRuntime's usual store, the dev server) needs the native module ` +
        `${DRIVER}, which ${problem}. ${DRIVER} is an optional dependency of @durable-lambda/local; the test runner ` +
        'needs no native module (import it from @durable-lambda/local/testing).',
      options,
    );
    this.name = 'SqliteUnavailableError';
  }
}

let driver: typeof BetterSqlite3 | undefined;

/** A `require` anchored at this package, where npm installed the driver. */
function requireHere(): NodeJS.Require {
  // The CommonJS build has `__filename` (and no `import.meta`); the ESM build and the sources have
  // `import.meta.url`. Either anchors the lookup here.
  return createRequire(typeof __filename === 'string' ? __filename : import.meta.url);
}

/**
 * Where better-sqlite3's entry file is, for a worker thread that opens the same file with it
 * (see `WalCheckpointer`). Call it only once a database opened: the driver is there.
 */
export function driverPath(): string {
  return requireHere().resolve(DRIVER);
}

/**
 * better-sqlite3, required on first use rather than imported: an import of the main entry must
 * work where the native module is missing or failed to build, as long as no store is opened.
 */
function loadDriver(): typeof BetterSqlite3 {
  if (driver) return driver;
  try {
    driver = requireHere()(DRIVER) as typeof BetterSqlite3;
  } catch (error) {
    if (isMissing(error, DRIVER))
      throw new SqliteUnavailableError(`is not installed: run \`${INSTALL}\``, { cause: error });
    throw new SqliteUnavailableError(`could not be loaded (${messageOf(error)}): reinstall it with \`${INSTALL}\``, {
      cause: error,
    });
  }
  return driver;
}

/**
 * Opens a SQLite file through better-sqlite3, loading it first. An addon that does not load
 * (better-sqlite3 loads it at the first open) is a {@link SqliteUnavailableError} too.
 */
export function openDatabase(path: string, options: BetterSqlite3.Options): SqliteDatabase {
  const Database = loadDriver();
  try {
    return new Database(path, options);
  } catch (error) {
    if (!isNativeLoadFailure(error)) throw error;
    throw new SqliteUnavailableError(
      `is installed but does not load here (${messageOf(error)}): run \`npm rebuild ${DRIVER}\` ` +
        `(it needs a C++ toolchain when no prebuilt binary fits this Node.js), or \`${INSTALL}\` again`,
      { cause: error },
    );
  }
}

/** Whether `error` is Node's "Cannot find module" for `name` itself (not for one of its files). */
function isMissing(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === 'MODULE_NOT_FOUND' && typeof message === 'string' && message.includes(`'${name}'`);
}

/**
 * The addon's own failures at the first open: no compiled file (`bindings` finds none), one built
 * for another Node.js or system, or a module of its own missing (a broken install).
 */
function isNativeLoadFailure(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === 'ERR_DLOPEN_FAILED' || code === 'MODULE_NOT_FOUND') return true;
  return typeof message === 'string' && message.includes('bindings file');
}

function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}
