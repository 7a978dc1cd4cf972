/**
 * The slots and queues of concurrency keys in a `SqliteStore`'s database (flow control per key):
 * table `slot_holders`, one row per (function, key, run) holding a slot, and table `slot_queue`,
 * one row per queued run, its primary key in admission order (priority, queue time, run id).
 */
import type { QueuedRunEntry, SlotKey } from '@durable-lambda/engine';
import type { SqliteDatabase, SqliteStatement } from './sqlite-driver';
import { immediately } from './sqlite-run-statements';

/** The schema of the slot tables (a migration of `sqlite-schema.ts`). */
export const SLOT_SCHEMA = `
  CREATE TABLE IF NOT EXISTS slot_holders (
    function_name TEXT NOT NULL,
    slot_key TEXT NOT NULL,
    run_id TEXT NOT NULL,
    PRIMARY KEY (function_name, slot_key, run_id)
  );
  CREATE TABLE IF NOT EXISTS slot_queue (
    function_name TEXT NOT NULL,
    slot_key TEXT NOT NULL,
    priority INTEGER NOT NULL,
    queued_at INTEGER NOT NULL,
    run_id TEXT NOT NULL,
    PRIMARY KEY (function_name, slot_key, priority, queued_at, run_id)
  );
`;

type Key = [string, string];

/** The `Store` port's slot methods over the slot tables. */
export class SqliteSlots {
  private readonly sql: {
    isHolder: SqliteStatement<[...Key, string], { n: number }>;
    count: SqliteStatement<Key, { n: number }>;
    add: SqliteStatement<[...Key, string]>;
    remove: SqliteStatement<[...Key, string]>;
    holders: SqliteStatement<Key, { run_id: string }>;
    enqueue: SqliteStatement<[...Key, number, number, string]>;
    dequeue: SqliteStatement<[...Key, number, number, string]>;
    first: SqliteStatement<[...Key, number], QueueRow>;
    after: SqliteStatement<[...Key, number, number, number, number, string, number], QueueRow>;
  };

  constructor(private readonly db: SqliteDatabase) {
    const where = 'function_name = ? AND slot_key = ?';
    const order = 'ORDER BY priority, queued_at, run_id';
    this.sql = {
      isHolder: db.prepare(`SELECT COUNT(*) AS n FROM slot_holders WHERE ${where} AND run_id = ?`),
      count: db.prepare(`SELECT COUNT(*) AS n FROM slot_holders WHERE ${where}`),
      add: db.prepare('INSERT OR IGNORE INTO slot_holders (function_name, slot_key, run_id) VALUES (?, ?, ?)'),
      remove: db.prepare(`DELETE FROM slot_holders WHERE ${where} AND run_id = ?`),
      holders: db.prepare(`SELECT run_id FROM slot_holders WHERE ${where} ORDER BY run_id`),
      enqueue: db.prepare(
        'INSERT OR IGNORE INTO slot_queue (function_name, slot_key, priority, queued_at, run_id) VALUES (?, ?, ?, ?, ?)',
      ),
      dequeue: db.prepare(`DELETE FROM slot_queue WHERE ${where} AND priority = ? AND queued_at = ? AND run_id = ?`),
      first: db.prepare(`SELECT priority, queued_at, run_id FROM slot_queue WHERE ${where} ${order} LIMIT ?`),
      after: db.prepare(
        `SELECT priority, queued_at, run_id FROM slot_queue WHERE ${where}
         AND (priority > ? OR (priority = ? AND (queued_at > ? OR (queued_at = ? AND run_id > ?))))
         ${order} LIMIT ?`,
      ),
    };
  }

  /** `Store.takeSlot`: one immediate transaction. */
  take(slot: SlotKey, runId: string, limit: number): boolean {
    const key = keyOf(slot);
    return immediately(this.db, () => {
      if ((this.sql.isHolder.get(...key, runId)?.n ?? 0) > 0) return true;
      if ((this.sql.count.get(...key)?.n ?? 0) >= limit) return false;
      this.sql.add.run(...key, runId);
      return true;
    });
  }

  /** `Store.releaseSlot`. */
  release(slot: SlotKey, runId: string): void {
    this.sql.remove.run(...keyOf(slot), runId);
  }

  /** `Store.slotHolders`. */
  holders(slot: SlotKey): string[] {
    return this.sql.holders.all(...keyOf(slot)).map((row) => row.run_id);
  }

  /** `Store.enqueueRun`. */
  enqueue(slot: SlotKey, entry: QueuedRunEntry): void {
    this.sql.enqueue.run(...keyOf(slot), entry.priority, entry.queuedAt, entry.runId);
  }

  /** `Store.dequeueRun`. */
  dequeue(slot: SlotKey, entry: QueuedRunEntry): void {
    this.sql.dequeue.run(...keyOf(slot), entry.priority, entry.queuedAt, entry.runId);
  }

  /** `Store.listQueuedRuns`. */
  list(slot: SlotKey, limit: number, after?: QueuedRunEntry): QueuedRunEntry[] {
    const key = keyOf(slot);
    const rows = after
      ? this.sql.after.all(...key, after.priority, after.priority, after.queuedAt, after.queuedAt, after.runId, limit)
      : this.sql.first.all(...key, limit);
    return rows.map((row) => ({ runId: row.run_id, priority: row.priority, queuedAt: row.queued_at }));
  }
}

interface QueueRow {
  priority: number;
  queued_at: number;
  run_id: string;
}

function keyOf(slot: SlotKey): Key {
  return [slot.functionName, slot.key];
}
