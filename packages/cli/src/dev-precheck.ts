import { existsSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { DEFAULT_DEV_DB, DEFAULT_DEV_HOST, DEFAULT_DEV_PORT, LocalError } from '@durable-lambda/local';
import type { DevCommandOptions } from './dev-options';

/**
 * The port, interface and SQLite file `startDevServer` of `@durable-lambda/local` uses when none
 * is given: its `DEFAULT_DEV_PORT`, `DEFAULT_DEV_HOST` and `DEFAULT_DEV_DB`.
 */
export const DEV_DEFAULTS = { port: DEFAULT_DEV_PORT, host: DEFAULT_DEV_HOST, db: DEFAULT_DEV_DB } as const;

/** The port is taken (code `port_in_use`, the message of `PortInUseError` of `@durable-lambda/local`). */
export class DevPortBusyError extends LocalError<'port_in_use'> {
  /** Stable code, the same as the dev server's own. */
  readonly code = 'port_in_use';
  constructor(
    readonly port: number,
    readonly host: string,
  ) {
    super(`port ${port} on ${host} is in use (another dev server?)`);
    this.name = 'DevPortBusyError';
  }
}

/**
 * Whether the dev server's port is taken, found out before the dev server opens its SQLite store
 * and loads the entries (about a CPU-second): a busy port is said at once. Only a busy
 * port counts; any other failure to listen (a privileged port, an unknown host) is left to the
 * server's own start to report, as before. The server still handles a port taken in between.
 */
export function checkDevPort(options: Pick<DevCommandOptions, 'port' | 'host'>): Promise<void> {
  const port = options.port ?? DEV_DEFAULTS.port;
  const host = options.host ?? DEV_DEFAULTS.host;
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') reject(new DevPortBusyError(port, host));
      else resolve();
    });
    probe.listen({ port, host }, () => probe.close(() => resolve()));
  });
}

/** The database is owned by another dev server (code `database_in_use`, the message of `DatabaseInUseError`). */
export class DevDatabaseBusyError extends LocalError<'database_in_use'> {
  /** Stable code, the same as the dev server's own. */
  readonly code = 'database_in_use';
  constructor(
    readonly path: string,
    /** The file `path` names (symlinks resolved), when it differs. */
    readonly file: string = path,
  ) {
    super(
      `the database ${file === path ? path : `${path} (the file ${file})`} is in use by another dev server or LocalRuntime (stop it first, or give another file)`,
    );
    this.name = 'DevDatabaseBusyError';
  }
}

/** What the check needs of better-sqlite3 (no type of it is named: the cli package does not depend on it). */
type LockFileDriver = new (
  path: string,
  options: { fileMustExist: boolean; timeout: number },
) => { exec(sql: string): unknown; close(): unknown };

function sqliteDriver(): LockFileDriver | undefined {
  try {
    // The CommonJS build has `__filename`; the ESM build and the sources have `import.meta.url`.
    const requireHere = createRequire(typeof __filename === 'string' ? __filename : import.meta.url);
    return requireHere('better-sqlite3') as LockFileDriver;
  } catch {
    return undefined;
  }
}

/**
 * Whether another dev server owns the database file, found out before the dev server starts: the owner holds an exclusive SQLite transaction on `<real path of db>.lock` (`OwnerLock`
 * there: named after the file, whatever name it is given by), so
 * one taken here at once, and let go, tells. No lock file (never owned) or no better-sqlite3
 * next to this package: nothing is said here, and the server's own start decides, as before.
 */
export function checkDevDatabase(options: Pick<DevCommandOptions, 'db'>): void {
  const db = options.db ?? DEV_DEFAULTS.db;
  if (db === ':memory:' || db === '') return;
  const path = resolve(db);
  // The lock is named after the file itself (symlinks resolved by the system, as SQLite does).
  let file = path;
  try {
    file = realpathSync.native(path);
  } catch {
    // No such file yet: its lock, if any, is named after the path.
  }
  if (!existsSync(`${file}.lock`)) return;
  const Database = sqliteDriver();
  if (!Database) return;
  let probe: InstanceType<LockFileDriver> | undefined;
  try {
    probe = new Database(`${file}.lock`, { fileMustExist: true, timeout: 0 });
    probe.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'SQLITE_BUSY') throw new DevDatabaseBusyError(path, file);
  } finally {
    probe?.close();
  }
}
