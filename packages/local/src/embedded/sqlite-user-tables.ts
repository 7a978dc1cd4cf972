/**
 * The user's tables a `SqliteStore` emulates for transactional steps (see the engine's
 * `emulated-tables.ts`): `user_tables` holds each declared table's key schema, `user_items` its
 * items (serialized by `node:v8`, so sets and binary values come back as they went in). Created
 * with `IF NOT EXISTS` when the store opens, outside the numbered migrations: an older version of
 * the store opening the file ignores them (it cannot run transactional steps anyway).
 */
import { deserialize, serialize } from 'node:v8';
import { type EmulatedKeySchema, itemKey, planTransaction, type StoreTransactWrite } from '@durable-lambda/engine';
import type { SqliteDatabase, SqliteStatement } from './sqlite-driver';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS user_tables (
    table_name TEXT PRIMARY KEY NOT NULL,
    partition_key TEXT NOT NULL,
    sort_key TEXT
  );
  CREATE TABLE IF NOT EXISTS user_items (
    table_name TEXT NOT NULL,
    item_key TEXT NOT NULL,
    item BLOB NOT NULL,
    PRIMARY KEY (table_name, item_key)
  );
`;

type Row = { item: Uint8Array };

/** The emulated tables of one database. */
export class SqliteUserTables {
  private readonly sql: {
    define: SqliteStatement<[string, string, string | null]>;
    schema: SqliteStatement<[string], { partition_key: string; sort_key: string | null }>;
    get: SqliteStatement<[string, string], Row>;
    put: SqliteStatement<[string, string, Uint8Array]>;
    delete: SqliteStatement<[string, string]>;
    scan: SqliteStatement<[string], Row>;
  };

  constructor(db: SqliteDatabase) {
    db.exec(SCHEMA);
    this.sql = {
      define: db.prepare(
        'INSERT INTO user_tables (table_name, partition_key, sort_key) VALUES (?, ?, ?) ON CONFLICT (table_name) DO UPDATE SET partition_key = excluded.partition_key, sort_key = excluded.sort_key',
      ),
      schema: db.prepare('SELECT partition_key, sort_key FROM user_tables WHERE table_name = ?'),
      get: db.prepare('SELECT item FROM user_items WHERE table_name = ? AND item_key = ?'),
      put: db.prepare(
        'INSERT INTO user_items (table_name, item_key, item) VALUES (?, ?, ?) ON CONFLICT (table_name, item_key) DO UPDATE SET item = excluded.item',
      ),
      delete: db.prepare('DELETE FROM user_items WHERE table_name = ? AND item_key = ?'),
      scan: db.prepare('SELECT item FROM user_items WHERE table_name = ? ORDER BY item_key'),
    };
  }

  define(tableName: string, schema: EmulatedKeySchema): void {
    this.sql.define.run(tableName, schema.partitionKey, schema.sortKey ?? null);
  }

  /**
   * Checks and applies a commit's writes; called inside the commit's SQLite transaction, so they
   * land with it or (the condition failed, a write refused: thrown before any row changed) not at all.
   */
  apply(writes: readonly StoreTransactWrite[]): void {
    const changes = planTransaction(
      writes,
      (name) => this.schemaOf(name),
      (name, key) => this.read(name, key),
    );
    for (const change of changes) {
      if (change.item === undefined) this.sql.delete.run(change.tableName, change.key);
      else this.sql.put.run(change.tableName, change.key, serialize(change.item));
    }
  }

  get(tableName: string, key: Record<string, unknown>): Record<string, unknown> | undefined {
    const schema = this.schemaOf(tableName);
    return schema && this.read(tableName, itemKey(schema, key, 'key'));
  }

  scan(tableName: string): Record<string, unknown>[] {
    return this.sql.scan.all(tableName).map((row) => deserialize(row.item) as Record<string, unknown>);
  }

  private schemaOf(tableName: string): EmulatedKeySchema | undefined {
    const row = this.sql.schema.get(tableName);
    if (!row) return undefined;
    return row.sort_key === null
      ? { partitionKey: row.partition_key }
      : { partitionKey: row.partition_key, sortKey: row.sort_key };
  }

  private read(tableName: string, key: string): Record<string, unknown> | undefined {
    const row = this.sql.get.get(tableName, key);
    return row ? (deserialize(row.item) as Record<string, unknown>) : undefined;
  }
}
