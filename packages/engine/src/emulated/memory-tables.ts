/**
 * The user's tables a {@link MemoryStore} emulates for transactional steps (see
 * `emulated-tables.ts`): declared with their key schema, changed only by a commit, read by tests.
 */
import type { TransactItem } from '@durable-lambda/protocol';
import type { StoreTransactWrite } from '../store';
import { type EmulatedChange, type EmulatedKeySchema, itemKey, planTransaction } from './emulated-tables';

/** Tables by name: each a key schema and its items by canonical key. */
export class MemoryTables {
  private readonly schemas = new Map<string, EmulatedKeySchema>();
  private readonly items = new Map<string, Map<string, TransactItem>>();

  define(tableName: string, schema: EmulatedKeySchema): void {
    this.schemas.set(tableName, { ...schema });
    if (!this.items.has(tableName)) this.items.set(tableName, new Map());
  }

  /** What `writes` change, checked (throws as `planTransaction` does); nothing is applied yet. */
  plan(writes: readonly StoreTransactWrite[]): EmulatedChange[] {
    return planTransaction(
      writes,
      (name) => this.schemas.get(name),
      (name, key) => this.items.get(name)?.get(key),
    );
  }

  apply(changes: readonly EmulatedChange[]): void {
    for (const change of changes) {
      const table = this.items.get(change.tableName);
      if (!table) continue;
      if (change.item === undefined) table.delete(change.key);
      else table.set(change.key, change.item);
    }
  }

  /** The item at `key` (its key attributes), a copy, or undefined. */
  get(tableName: string, key: TransactItem): TransactItem | undefined {
    const schema = this.schemas.get(tableName);
    if (!schema) return undefined;
    const item = this.items.get(tableName)?.get(itemKey(schema, key, 'key'));
    return item === undefined ? undefined : structuredClone(item);
  }

  /** Every item of the table, copies, in key order. */
  scan(tableName: string): TransactItem[] {
    const table = this.items.get(tableName);
    if (!table) return [];
    return [...table.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, item]) => structuredClone(item));
  }
}
