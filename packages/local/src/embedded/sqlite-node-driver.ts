import type { OpenOptions, SqliteDatabase, SqliteStatement } from './sqlite-connection';

/** What the store uses of `node:sqlite`'s `StatementSync` (declared here: @types/node 20 has none). */
interface NodeStatement {
  run(...params: unknown[]): { changes: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** What the store uses of `node:sqlite`'s `DatabaseSync`. */
interface NodeDatabase {
  prepare(sql: string): NodeStatement;
  exec(sql: string): void;
  close(): void;
  /** Node.js 22.16+ only (see {@link NodeConnection.rollback}). */
  readonly isTransaction?: boolean;
}

/** `node:sqlite` as loaded: its `DatabaseSync` class. */
export interface NodeSqliteModule {
  DatabaseSync: new (path: string, options?: { readOnly?: boolean }) => NodeDatabase;
}

/** The warning Node.js prints the first time `node:sqlite` loads (22.13 and later). */
const SQLITE_WARNING = /^SQLite is an experimental feature/;

/**
 * `node:sqlite`, where this Node.js has it without a flag (22.13 and later; 22.5-22.12 only with
 * `--experimental-sqlite`), else undefined. Its one-time ExperimentalWarning is not printed: the
 * store chose the module, not the user, and a dev server would print it on every start. Only that
 * warning is held back, only while the module loads; every other warning goes through as before.
 */
export function loadNodeSqlite(): NodeSqliteModule | undefined {
  const getBuiltinModule = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  if (typeof getBuiltinModule !== 'function') return undefined;
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    const message = typeof warning === 'string' ? warning : warning?.message;
    if (typeof message === 'string' && SQLITE_WARNING.test(message)) return;
    return (emitWarning as (...args: unknown[]) => void).call(this, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    const module = getBuiltinModule.call(process, 'node:sqlite') as Partial<NodeSqliteModule> | undefined;
    return typeof module?.DatabaseSync === 'function' ? (module as NodeSqliteModule) : undefined;
  } catch {
    return undefined;
  } finally {
    process.emitWarning = emitWarning;
  }
}

/**
 * Opens `path` through `node:sqlite`. The busy timeout is set with its pragma (the constructor's
 * `timeout` option came only in Node.js 22.16): the same `sqlite3_busy_timeout` better-sqlite3 sets.
 */
export function openNodeSqlite(module: NodeSqliteModule, path: string, options: OpenOptions): SqliteDatabase {
  const db = new module.DatabaseSync(path, options.readonly ? { readOnly: true } : {});
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.timeout))}`);
  } catch (error) {
    db.close();
    throw error;
  }
  return new NodeConnection(db);
}

/**
 * A `node:sqlite` connection behind the store's seam. Statements are handed out as they are (their
 * `run`, `get` and `all` take positional parameters like better-sqlite3's); transactions are made
 * here the way better-sqlite3 makes them.
 */
class NodeConnection implements SqliteDatabase {
  readonly driver = 'node';
  private isOpen = true;
  /** Transactions open on this connection: 0, 1, or more (the inner ones are savepoints). */
  private depth = 0;
  private readonly begin: NodeStatement;
  private readonly commit: NodeStatement;

  constructor(private readonly db: NodeDatabase) {
    // Prepared once: a commit is the store's hot path.
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commit = db.prepare('COMMIT');
  }

  get open(): boolean {
    return this.isOpen;
  }

  prepare<P extends unknown[] = unknown[], R = unknown>(sql: string): SqliteStatement<P, R> {
    return this.db.prepare(sql) as SqliteStatement<P, R>;
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  pragma(pragma: string): unknown[] {
    return this.db.prepare(`PRAGMA ${pragma}`).all();
  }

  transaction<T>(body: () => T): T {
    if (this.depth > 0) return this.savepoint(body);
    this.begin.run();
    this.depth = 1;
    try {
      const result = body();
      this.commit.run();
      return result;
    } catch (error) {
      this.rollback('ROLLBACK');
      throw error;
    } finally {
      this.depth = 0;
    }
  }

  close(): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    this.db.close();
  }

  private savepoint<T>(body: () => T): T {
    const name = `durable_${this.depth}`;
    this.db.exec(`SAVEPOINT ${name}`);
    this.depth += 1;
    try {
      const result = body();
      this.db.exec(`RELEASE ${name}`);
      return result;
    } catch (error) {
      this.rollback(`ROLLBACK TO ${name}; RELEASE ${name}`);
      throw error;
    } finally {
      this.depth -= 1;
    }
  }

  /**
   * Undoes the open transaction after a throw. SQLite itself has rolled it back after some errors
   * (a full disk, an interrupt), when `ROLLBACK` fails in turn: the body's error is the one to throw.
   */
  private rollback(sql: string): void {
    if (this.db.isTransaction === false) return;
    try {
      this.db.exec(sql);
    } catch {
      // No transaction left to undo.
    }
  }
}
