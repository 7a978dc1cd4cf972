import { clearTimeout, setTimeout } from 'node:timers';
import { Worker } from 'node:worker_threads';
import { type SqliteDatabase, workerDriver } from './sqlite-driver';

/** After a write, a checkpoint is asked for within this long, ms (one at a time). */
const CHECKPOINT_AFTER_MS = 100;
/** SQLite's own default: what a connection checkpoints at when the thread is unavailable, pages. */
const INLINE_AUTOCHECKPOINT_PAGES = 1_000;
/**
 * Pages in the WAL past which the connection finishes a checkpoint of the thread itself, so the WAL
 * starts over (see {@link WalCheckpointer}): 16 MB.
 */
const RESTART_AT_PAGES = 4_000;

/**
 * The checkpointer thread: its own connection to the file, copying the WAL into the database on
 * each message (PASSIVE: never waits for, nor blocks, a reader or a writer), answering with
 * SQLite's result. CommonJS evaluated as a string, so the same code runs from the sources and
 * from either build. It opens the file with the connection's driver (see `workerDriver`).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
let db;
let checkpoint;
if (workerData.driver === 'node') {
  // The same filter as the connection's (sqlite-node-driver.ts): only node:sqlite's own warning.
  const emitWarning = process.emitWarning;
  process.emitWarning = function (warning, ...rest) {
    const message = typeof warning === 'string' ? warning : warning && warning.message;
    if (typeof message === 'string' && /^SQLite is an experimental feature/.test(message)) return;
    return emitWarning.call(this, warning, ...rest);
  };
  let sqlite;
  try {
    sqlite = process.getBuiltinModule('node:sqlite');
  } finally {
    process.emitWarning = emitWarning;
  }
  // node:sqlite has no fileMustExist: a thread must never create the file.
  if (!require('node:fs').existsSync(workerData.path)) throw new Error('no such database: ' + workerData.path);
  db = new sqlite.DatabaseSync(workerData.path);
  db.exec('PRAGMA synchronous = NORMAL');
  const statement = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  checkpoint = () => statement.get();
} else {
  const Database = require(workerData.driver);
  db = new Database(workerData.path, { fileMustExist: true });
  db.pragma('synchronous = NORMAL');
  checkpoint = () => db.pragma('wal_checkpoint(PASSIVE)')[0];
}
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    const result = checkpoint();
    parentPort.postMessage({ log: result.log, checkpointed: result.checkpointed });
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message ? error.message : error) });
  }
});
`;

/** What the checkpointer uses of the connection (a better-sqlite3 `Database` has it too: the tests). */
export type CheckpointedDatabase = Pick<SqliteDatabase, 'open'> & { pragma(pragma: string): unknown };

/** What one checkpoint of the thread did (SQLite's `wal_checkpoint` result), or why it failed. */
export interface CheckpointResult {
  /** Frames in the WAL when it ran. */
  log?: number;
  /** Frames copied into the database (all of them: the next write starts the WAL over). */
  checkpointed?: number;
  error?: string;
}

/**
 * Checkpoints a WAL-mode database's WAL on a worker thread, shortly after writes, instead of inside
 * the connection's commits.
 *
 * A commit in WAL mode appends to the `-wal` file; with `synchronous = NORMAL` (the store's) it
 * does not wait for the disk, and a commit survives the process being killed (the operating system
 * has the write); a power loss may lose the last commits, never corrupt the file. What does wait
 * for the disk is the checkpoint that copies the WAL back into the database: two fsyncs, 30-100 ms
 * on a small VM. SQLite runs it inside whichever commit takes the WAL past 1,000 pages, which for
 * the dev server is on its only thread: under a burst of commits (a restart taking up a thousand
 * runs) every few hundred commits stalled the HTTP server for that long. With a checkpointer the
 * connection does not checkpoint (`wal_autocheckpoint = 0`); the thread does, with its own
 * connection (PASSIVE: it neither waits for nor blocks a reader or a writer). Journal mode, syncs
 * and crash safety are unchanged.
 *
 * A WAL starts over only once a checkpoint has copied all of it and the next write begins; while
 * writes go on without a pause, new frames arrive during every checkpoint of the thread, and the
 * WAL would grow without end (a bigger file, and a slower open after a crash, which reads it whole).
 * So when a checkpoint of the thread finds the WAL past {@link RESTART_AT_PAGES}, the connection
 * right away copies what was written meanwhile itself (a few hundred pages, synced: milliseconds,
 * where the whole WAL took the thread tens), and its next write starts the WAL over.
 *
 * The thread starts with the first checkpoint (a store closed sooner never starts one). Should it
 * fail to start or stop early, the connection checkpoints by itself again, as SQLite does by default.
 */
export class WalCheckpointer {
  private worker: Worker | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** A checkpoint is under way on the thread. */
  private running = false;
  /** Written since the last checkpoint was asked for. */
  private dirty = false;
  private closed = false;
  private readonly listeners = new Set<(result: CheckpointResult) => void>();

  /** `path`: the file `db` has open, as SQLite named it (another name may have a WAL of its own). */
  constructor(
    private readonly db: CheckpointedDatabase,
    private readonly path: string,
  ) {
    db.pragma('wal_autocheckpoint = 0');
  }

  /** Tells it the connection wrote: a checkpoint follows within {@link CHECKPOINT_AFTER_MS}. */
  noteWrite(): void {
    this.dirty = true;
    if (this.timer || this.running || this.closed) return;
    this.timer = setTimeout(this.request, CHECKPOINT_AFTER_MS);
    this.timer.unref();
  }

  /** Calls `listener` after each checkpoint of the thread; returns a function that stops it. */
  onCheckpoint(listener: (result: CheckpointResult) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops the thread (it closes its connection first); no checkpoint is asked for afterwards. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.worker?.postMessage('close');
    this.worker = undefined;
  }

  private readonly request = (): void => {
    this.timer = undefined;
    if (this.closed || !this.dirty) return;
    const worker = this.thread();
    if (!worker) return;
    this.dirty = false;
    this.running = true;
    worker.postMessage('checkpoint');
  };

  private thread(): Worker | undefined {
    if (this.worker) return this.worker;
    try {
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver: workerDriver(), path: this.path } });
      // The thread never keeps the process alive.
      worker.unref();
      worker.on('message', (result: CheckpointResult) => this.checkpointed(result));
      worker.on('error', () => this.fallBack(worker));
      worker.on('exit', () => this.fallBack(worker));
      this.worker = worker;
      return worker;
    } catch {
      this.fallBack(undefined);
      return undefined;
    }
  }

  private checkpointed(result: CheckpointResult): void {
    this.running = false;
    if (!this.closed && this.db.open && (result.log ?? 0) >= RESTART_AT_PAGES) {
      try {
        this.db.pragma('wal_checkpoint(PASSIVE)');
      } catch {
        // Busy (another process checkpoints): the next round tries again.
      }
    }
    for (const listener of this.listeners) listener(result);
    if (this.dirty) this.noteWrite();
  }

  /** The thread is gone (or never came): the connection checkpoints by itself from now on. */
  private fallBack(worker: Worker | undefined): void {
    if (worker !== this.worker || this.closed) return;
    this.closed = true;
    this.worker = undefined;
    if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${INLINE_AUTOCHECKPOINT_PAGES}`);
  }
}
