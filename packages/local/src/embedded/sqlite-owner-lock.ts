import { openDatabase, type SqliteDatabase } from './sqlite-driver';

/**
 * Another runtime already owns the database file (code `database_in_use`): two runtimes on one
 * file would each take the other's live leases for a dead process's.
 */
export class DatabaseInUseError extends Error {
  /** Stable code. */
  readonly code = 'database_in_use';
  constructor(readonly path: string) {
    super(`the database ${path} is in use by another dev server or LocalRuntime (stop it first, or give another file)`);
    this.name = 'DatabaseInUseError';
  }
}

/**
 * The runtime's ownership of a database file: an exclusive SQLite transaction held open on a
 * sidecar file (`<db>.lock`) for as long as the owner lives. The lock is the operating system's
 * (`fcntl`), so it goes with the process however it ends (a `kill -9` included) and never
 * outlives it; unlike a stored process id, it cannot be fooled by a reused pid. SQLite also
 * keeps two connections of one process apart, so a second owner in the same process is refused
 * too. Readers and writers of the database itself never touch the sidecar.
 */
export class OwnerLock {
  private db: SqliteDatabase | undefined;

  constructor(private readonly path: string) {}

  /** Whether this instance holds the lock. */
  get held(): boolean {
    return this.db !== undefined;
  }

  /** Takes the lock, or throws {@link DatabaseInUseError} at once (it never waits). No-op when held. */
  acquire(): void {
    if (this.db) return;
    const db = openDatabase(`${this.path}.lock`, { timeout: 0 });
    try {
      db.exec('BEGIN EXCLUSIVE');
    } catch (error) {
      db.close();
      if ((error as { code?: unknown }).code === 'SQLITE_BUSY') throw new DatabaseInUseError(this.path);
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
