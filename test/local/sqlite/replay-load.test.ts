/**
 * The SQLite store's replay load (`loadReplayOperations`) reads a context's children through the
 * `parent_id` index, one indexed query per context whose children the replay needs, and a file
 * written before the column existed (schema version 3) gets it, filled from each operation's
 * body, when it is opened (the contract itself is in test/store-conformance).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '@durable-lambda/local';
import type { Operation } from '@durable-lambda/protocol';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { contextOp, executionOp, runRecord, stepOp, T0 } from '../../store-conformance/conformance';
import { rawDatabase } from './raw-sqlite';

const dir = mkdtempSync(join(tmpdir(), 'durable-sqlite-replay-'));
const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const handle of open.splice(0).reverse()) handle.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function store(path: string): SqliteStore {
  const s = new SqliteStore({ path, clock: { now: () => T0 } });
  open.push(s);
  return s;
}

const finished = (id: string): Operation => ({
  ...contextOp(id),
  Status: 'SUCCEEDED',
  ContextDetails: { Result: '1' },
});

async function seed(s: SqliteStore): Promise<void> {
  await s.createRun(runRecord('r1'), executionOp());
  const grant = await s.acquireLease('r1', T0, T0 + 60_000, 'token');
  if (!grant) throw new Error('lease not granted');
  const children = Array.from({ length: 50 }, (_, i) => stepOp(`1-${i + 1}`, String(i)));
  await s.commit('r1', grant.run.fence, {
    operations: [contextOp('1'), ...children, finished('1'), contextOp('2'), stepOp('2-1', '"a"')],
  });
}

describe('SqliteStore: the replay load', () => {
  it('reads the children of live contexts through the parent index, not those of finished ones', async () => {
    const path = join(dir, 'indexed.sqlite');
    const s = store(path);
    await seed(s);
    expect((await s.loadReplayOperations('r1')).map((op) => op.Id)).toEqual(['0', '1', '2', '2-1']);
    const db = rawDatabase(path, { readonly: true });
    open.push(db);
    const plan = db
      .prepare('EXPLAIN QUERY PLAN SELECT body FROM operations WHERE run_id = ? AND parent_id IS ? ORDER BY seq')
      .all('r1', '2') as Array<{ detail: string }>;
    expect(plan.map((row) => row.detail).join(' ')).toContain('operations_by_parent');
  });

  it('gives the operations of a file written before the parent column (schema version 3) their parent when it is opened', async () => {
    const path = join(dir, 'older.sqlite');
    const first = store(path);
    await seed(first);
    first.close();
    // Back to version 3: no column, no index.
    const db = rawDatabase(path);
    db.exec(
      'DROP INDEX operations_by_parent; ALTER TABLE operations DROP COLUMN parent_id; DELETE FROM schema_version WHERE version >= 4',
    );
    db.close();
    const reopened = store(path);
    expect((await reopened.loadReplayOperations('r1')).map((op) => op.Id)).toEqual(['0', '1', '2', '2-1']);
    expect(await reopened.loadOperations('r1')).toHaveLength(54);
    const check = rawDatabase(path, { readonly: true });
    open.push(check);
    const parents = check.prepare("SELECT parent_id FROM operations WHERE operation_id = '1-7'").get() as {
      parent_id: string | null;
    };
    expect(parents.parent_id).toBe('1');
  });
});
