import { realpathSync, statSync } from 'node:fs';
import { LocalError } from '../local-error';
import { isBusy, openDatabase, type SqliteDatabase } from './sqlite-driver';

/** How a path names the file it was opened as, when that differs from the path itself. */
function naming(path: string, file: string): string {
  return file === path ? path : `${path} (the file ${file})`;
}

/**
 * Another runtime already owns the database file (code `database_in_use`): two runtimes on one
 * file would each take the other's live leases for a dead process's.
 */
export class DatabaseInUseError extends LocalError<'database_in_use'> {
  /** Stable code. */
  readonly code = 'database_in_use';
  constructor(
    readonly path: string,
    /** The file `path` names (symlinks resolved), when it differs. */
    readonly file: string = path,
  ) {
    super(
      `the database ${naming(path, file)} is in use by another dev server or LocalRuntime (stop it first, or give another file)`,
    );
    this.name = 'DatabaseInUseError';
  }
}

/**
 * The database file has several names (hard links; code `database_hard_linked`). SQLite keeps a
 * database's WAL and shared memory next to the name it was opened by, so two names of one file are
 * two journals of it (SQLite answers a second connection by the other name with a disk I/O error,
 * or corrupts the file); and a lock named after one name would not keep out a runtime opened by
 * the other. Remove the other names (`ls -i` shows which files share the inode).
 */
export class DatabaseHardLinkedError extends LocalError<'database_hard_linked'> {
  /** Stable code. */
  readonly code = 'database_hard_linked';
  constructor(
    readonly path: string,
    /** How many names the file has. */
    readonly links: number,
    options?: { cause?: unknown },
  ) {
    super(
      `the database ${path} has ${links} names (hard links): SQLite keeps its WAL next to the name it is opened by, so one runtime by one name only; remove the other links`,
      options,
    );
    this.name = 'DatabaseHardLinkedError';
  }
}

/** The number of names (hard links) of the file at `path`; 1 when it cannot be read. */
export function linkCount(path: string): number {
  try {
    return statSync(path).nlink;
  } catch {
    return 1;
  }
}

/**
 * The file SQLite opened for `db` (its `main` database), symlinks and `..` resolved the way the
 * operating system resolves them (a lexical `path.resolve` does not: `a/link/../x` is the link
 * target's sibling). Undefined for a private in-memory or temporary database.
 */
export function openedFile(db: SqliteDatabase): string | undefined {
  const list = db.pragma('database_list') as Array<{ name: string; file: string }>;
  const file = list.find((entry) => entry.name === 'main')?.file;
  if (!file) return undefined;
  try {
    return realpathSync.native(file);
  } catch {
    return file;
  }
}

/**
 * The runtime's ownership of a database file: an exclusive SQLite transaction held open on a
 * sidecar file for as long as the owner lives. The sidecar is named after the file itself (its
 * real path, `<real path>.lock`), not after the name the runtime was given, so every name of the
 * file (a symlink to it or to its folder, `..`, `./`) finds the same lock; a file with hard links
 * is refused ({@link DatabaseHardLinkedError}). The lock is the operating system's (`fcntl`), so it
 * goes with the process however it ends (a `kill -9` included) and never outlives it; unlike a
 * stored process id, it cannot be fooled by a reused pid. SQLite also keeps two connections of one
 * process apart, so a second owner in the same process is refused too. Readers and writers of the
 * database itself never touch the sidecar.
 */
export class OwnerLock {
  private db: SqliteDatabase | undefined;

  /**
   * @param path The database as the owner names it (said in errors).
   * @param file The file it is ({@link openedFile}); by default `path` with its symlinks resolved.
   */
  constructor(
    private readonly path: string,
    private readonly file?: string,
  ) {}

  /** Whether this instance holds the lock. */
  get held(): boolean {
    return this.db !== undefined;
  }

  /**
   * Takes the lock, or throws {@link DatabaseInUseError} at once (it never waits), or
   * {@link DatabaseHardLinkedError} when the file has several names. No-op when held.
   */
  acquire(): void {
    if (this.db) return;
    const file = this.file ?? resolvedPath(this.path);
    const links = linkCount(file);
    if (links > 1) throw new DatabaseHardLinkedError(this.path, links);
    const db = openDatabase(ownerLockPath(file), { timeout: 0 });
    try {
      db.exec('BEGIN EXCLUSIVE');
    } catch (error) {
      db.close();
      if (isBusy(error)) throw new DatabaseInUseError(this.path, file);
      throw error;
    }
    this.db = db;
  }

  /** Gives the lock up (no-op when not held). */
  release(): void {
    const db = this.db;
    this.db = undefined;
    if (db?.open) db.close();
  }
}

/** The sidecar whose lock owns the database `file` (a real path: see {@link OwnerLock}). */
export function ownerLockPath(file: string): string {
  return `${file}.lock`;
}

/** `path` with its symlinks and `..` resolved by the operating system; itself when it does not exist. */
function resolvedPath(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}
