/** Transactional writes on the memory and SQLite stores' emulated tables (`transact-conformance.ts`). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore } from '@durable-lambda/engine';
import { SqliteStore } from '@durable-lambda/local';
import { afterAll } from 'vitest';
import { conformanceClock } from './fixtures';
import { describeTransactConformance } from './transact-conformance';

const dir = mkdtempSync(join(tmpdir(), 'durable-transact-conformance-'));
const open: SqliteStore[] = [];
let files = 0;
afterAll(() => {
  for (const store of open) store.close();
  rmSync(dir, { recursive: true, force: true });
});

describeTransactConformance(
  'MemoryStore',
  async () => {
    const clock = conformanceClock();
    const store = new MemoryStore(clock);
    const tables = {
      define: async (name: string, schema: { partitionKey: string; sortKey?: string }) =>
        void store.defineTable(name, schema),
      get: async (name: string, key: Record<string, unknown>) => store.getTableItem(name, key),
    };
    return { store, clock, tables };
  },
  { emulated: true },
);

describeTransactConformance(
  'SqliteStore',
  async () => {
    const clock = conformanceClock();
    const store = new SqliteStore({ path: join(dir, `store-${++files}.sqlite`), clock });
    open.push(store);
    const tables = {
      define: async (name: string, schema: { partitionKey: string; sortKey?: string }) =>
        void store.defineTable(name, schema),
      get: async (name: string, key: Record<string, unknown>) => store.getTableItem(name, key),
    };
    return { store, clock, tables };
  },
  { emulated: true },
);
