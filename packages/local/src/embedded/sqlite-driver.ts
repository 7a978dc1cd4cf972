import { LocalError } from '../local-error';
import { type BetterSqlite3Module, loadBetterSqlite3, openBetterSqlite3 } from './sqlite-better-driver';
import type { OpenOptions, SqliteDatabase, SqliteDriverName } from './sqlite-connection';
import { loadNodeSqlite, type NodeSqliteModule, openNodeSqlite } from './sqlite-node-driver';

export type { OpenOptions, SqliteDatabase, SqliteDriverName, SqliteStatement } from './sqlite-connection';

/** The environment variable that picks the driver (tests, measurements): `node` or `better-sqlite3`. */
export const DRIVER_ENV = 'DURABLE_SQLITE_DRIVER';

const BETTER = 'better-sqlite3';
const INSTALL = `npm install ${BETTER}`;

/**
 * The embedded SQLite store cannot run here (code `sqlite_unavailable`): the native module
 * better-sqlite3, an optional dependency of `@durable-lambda/local`, is not installed or its native
 * build does not load, and this Node.js has no `node:sqlite` usable without a flag (it has from
 * 22.13); or `DURABLE_SQLITE_DRIVER` asked for the one that does not load. Thrown by the first `SqliteStore` construction, never by an import: the test runner
 * (`@durable-lambda/local/testing`) needs no SQLite at all.
 */
export class SqliteUnavailableError extends LocalError<'sqlite_unavailable'> {
  /** Stable code. */
  readonly code = 'sqlite_unavailable';
  constructor(problem: string, options?: { cause?: unknown }) {
    super(
      "the embedded SQLite store (SqliteStore, LocalRuntime's usual store, the dev server) needs node:sqlite " +
        `(Node.js 22.13 or later) or the native module ${BETTER}, which ${problem}. ${BETTER} is an optional ` +
        'dependency of @durable-lambda/local; the test runner needs no native module (import it from ' +
        '@durable-lambda/local/testing).',
      options,
    );
    this.name = 'SqliteUnavailableError';
  }
}

type Chosen =
  | { name: 'node'; module: NodeSqliteModule }
  | { name: 'better-sqlite3'; module: BetterSqlite3Module; entry: string };

/**
 * The driver, chosen once per process, at the first open: two copies of SQLite in one process
 * would not see each other's file locks (POSIX locks belong to the process, and each copy keeps
 * its own table of them), so the owner lock and WAL sharing need every connection on one copy.
 */
let chosen: Chosen | undefined;

/**
 * Picks the driver: better-sqlite3 where it is installed and loads, else `node:sqlite` where this
 * Node.js has it without a flag (22.13 and later); {@link DRIVER_ENV} forces one (an unknown value is
 * refused). better-sqlite3 comes first where both are there because it measured faster on reads (a
 * run's replay load 0.05 ms against 0.11, a runs-list page 0.10 against 0.115, medians under Node 22;
 * commits were even, 0.064 against 0.059: `bench/sqlite-drivers.bench.ts`); node:sqlite spares the
 * native build (`npm install --omit=optional` on Node 22) and serves where the addon does not load
 * (built for another Node.js).
 * @throws {@link SqliteUnavailableError} when neither loads (or the forced one does not).
 */
function choose(): Chosen {
  chosen ??= pick();
  return chosen;
}

function pick(): Chosen {
  const forced = process.env[DRIVER_ENV]?.trim();
  if (forced && forced !== 'node' && forced !== BETTER) {
    throw new Error(`${DRIVER_ENV} must be 'node' or '${BETTER}', got '${forced}'`);
  }
  let refusal: SqliteUnavailableError | undefined;
  if (forced !== 'node') {
    const better = betterSqlite3();
    if (!(better instanceof SqliteUnavailableError)) return better;
    if (forced === BETTER) throw better;
    refusal = better;
  }
  const module = loadNodeSqlite();
  if (module) return { name: 'node', module };
  throw (
    refusal ??
    new SqliteUnavailableError(
      `${DRIVER_ENV}=node rules out, while node:sqlite does not load without a flag in Node.js ${process.version}`,
    )
  );
}

/**
 * better-sqlite3 if it is installed and its addon loads (which it does at the first open: a
 * private in-memory database opened and closed tells), else why not.
 */
function betterSqlite3(): Chosen | SqliteUnavailableError {
  const loaded = loadBetterSqlite3();
  if ('missing' in loaded) {
    return new SqliteUnavailableError(
      `is not installed: run \`${INSTALL}\`, or use Node.js 22.13 or later (node:sqlite needs no install)`,
      { cause: loaded.error },
    );
  }
  if ('broken' in loaded) {
    return new SqliteUnavailableError(
      `could not be loaded (${messageOf(loaded.error)}): reinstall it with \`${INSTALL}\``,
      { cause: loaded.error },
    );
  }
  try {
    openBetterSqlite3(loaded.module, ':memory:', { timeout: 0 }).close();
  } catch (error) {
    if (!isNativeLoadFailure(error)) throw error;
    return new SqliteUnavailableError(
      `is installed but does not load here (${messageOf(error)}): run \`npm rebuild ${BETTER}\` ` +
        `(it needs a C++ toolchain when no prebuilt binary fits this Node.js), or \`${INSTALL}\` again, ` +
        'or use Node.js 22.13 or later',
      { cause: error },
    );
  }
  return { name: BETTER, module: loaded.module, entry: loaded.entry };
}

/** The driver this process runs on (choosing it if no connection was opened yet). */
export function sqliteDriver(): SqliteDriverName {
  return choose().name;
}

/**
 * What a worker thread loads to open the same file with the same copy of SQLite (see
 * `WalCheckpointer`): `'node'`, or the path of better-sqlite3's entry file.
 */
export function workerDriver(): string {
  const driver = choose();
  return driver.name === 'node' ? 'node' : driver.entry;
}

/** Opens a SQLite file on the driver this process runs on (see `pick`: chosen at the first open). */
export function openDatabase(path: string, options: OpenOptions): SqliteDatabase {
  const driver = choose();
  return driver.name === 'node'
    ? openNodeSqlite(driver.module, path, options)
    : openBetterSqlite3(driver.module, path, options);
}

/** Whether `error` is SQLite's `SQLITE_BUSY` (a lock held by another connection), from either driver. */
export function isBusy(error: unknown): boolean {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  // better-sqlite3 names the code; node:sqlite gives SQLite's number (extended codes keep it in the low byte).
  return code === 'SQLITE_BUSY' || (typeof errcode === 'number' && (errcode & 0xff) === 5);
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
