import { openDatabase, type SqliteDatabase } from './sqlite-driver';
import { DatabaseHardLinkedError, linkCount, OwnerLock, openedFile } from './sqlite-owner-lock';
import { WalCheckpointer } from './sqlite-wal';

/** A `SqliteStore`'s database as opened: the connection, the file's owner lock and its WAL checkpointer. */
export interface StoreFile {
  db: SqliteDatabase;
  /** The file's ownership (see `SqliteStore.reclaimLeases`); none for a private in-memory database. */
  owner: OwnerLock | undefined;
  /** Checkpoints the file's WAL off this thread; none for a private in-memory database. */
  wal: WalCheckpointer | undefined;
}

/**
 * Opens (or creates) a store's database at `path` (`':memory:'` for a private one) in WAL mode
 * with `synchronous = NORMAL` (see `WalCheckpointer` for what that keeps and costs), its owner
 * lock named after the file SQLite opened and its checkpoints moved to a thread.
 * @throws `SqliteUnavailableError` (code `sqlite_unavailable`) when neither node:sqlite (Node.js 22.13+) nor better-sqlite3 loads.
 * @throws {@link DatabaseHardLinkedError} (code `database_hard_linked`) when the file is open by
 * another of its names (a hard link) elsewhere.
 */
export function openStoreFile(path: string): StoreFile {
  const db = openDatabase(path, { timeout: 5_000 });
  // The file SQLite opened, symlinks and `..` resolved: the owner lock is named after it, so
  // every name of the file finds the same lock.
  const file = openedFile(db);
  const owner = file === undefined ? undefined : new OwnerLock(path, file);
  try {
    db.pragma('journal_mode = WAL');
  } catch (error) {
    // Another connection has the file open by another of its names, with a WAL of its own.
    const links = file === undefined ? 1 : linkCount(file);
    db.close();
    if (links > 1) throw new DatabaseHardLinkedError(path, links, { cause: error });
    throw error;
  }
  db.pragma('synchronous = NORMAL');
  return { db, owner, wal: file === undefined ? undefined : new WalCheckpointer(db, file) };
}
