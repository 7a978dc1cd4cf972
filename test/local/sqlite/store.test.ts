/**
 * What the SQLite store adds to the store contract (the shared suites in test/store-conformance
 * cover the contract itself): the due index is a real partial index that every write keeps equal
 * to `dueAtOf`, an older file gets it by migration, and a runtime can take the file and reclaim
 * the leases of its own dead process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dueAtOf, type RunRecord } from '@durable-lambda/engine';
import { DatabaseInUseError, SqliteStore } from '@durable-lambda/local';
import type { Operation } from '@durable-lambda/protocol';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { rawDatabase, type SqliteDatabase } from './raw-sqlite';

const T0 = 1_700_000_000_000;
const dir = mkdtempSync(join(tmpdir(), 'durable-embedded-store-'));
let files = 0;
const open: Array<{ close(): void }> = [];

afterEach(() => {
  for (const handle of open.splice(0).reverse()) handle.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fileStore(path = join(dir, `store-${++files}.sqlite`), start = T0) {
  let t = start;
  const clock = {
    now: () => t,
    set: (next: number) => {
      t = next;
    },
  };
  const store = new SqliteStore({ path, clock });
  open.push(store);
  return { store, clock, path };
}

/** A second, raw connection on the file, to see the columns and plans the store keeps. */
function raw(path: string): SqliteDatabase {
  const db = rawDatabase(path);
  open.push(db);
  return db;
}

function runRecord(runId: string, overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    runId,
    functionName: 'fn',
    status: 'RUNNING',
    createdAt: T0,
    updatedAt: T0,
    fence: 0,
    nextWakeAt: T0,
    invocations: 0,
    lostInvocations: 0,
    eventSeq: 0,
    handledEventSeq: 0,
    ...overrides,
  };
}

const execution: Operation = { Id: '0', Type: 'EXECUTION', Status: 'STARTED', StartTimestamp: T0 };
const callback = (status: Operation['Status']): Operation => ({
  Id: '1',
  Type: 'CALLBACK',
  Status: status,
  StartTimestamp: T0,
  CallbackDetails: { CallbackId: 'cb-1' },
});

function dueColumn(db: SqliteDatabase, runId: string): number | null {
  return (db.prepare('SELECT due_at FROM runs WHERE run_id = ?').get(runId) as { due_at: number | null }).due_at;
}

describe('SqliteStore due index', () => {
  it('finds due runs through the partial index runs_by_due, never by a scan of the runs table', () => {
    const { store, path } = fileStore();
    const db = raw(path);
    const index = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'runs_by_due'").get() as
      | { sql: string }
      | undefined;
    expect(index?.sql).toMatch(/WHERE due_at IS NOT NULL/);
    // The plan of the store's own statement (its text is `source` on better-sqlite3, `sourceSQL` on node:sqlite).
    const statement = (store as unknown as { sql: { findDue: { source?: string; sourceSQL?: string } } }).sql.findDue;
    const source = statement.source ?? statement.sourceSQL;
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN ${source}`)
      .all(T0, T0 - 5, T0 - 5, 'run-a', T0, 10)
      .map((row) => (row as { detail: string }).detail)
      .join('\n');
    expect(plan).toMatch(/SEARCH runs USING INDEX runs_by_due/);
    expect(plan).not.toMatch(/SCAN runs/);
  });

  it('keeps due_at equal to dueAtOf(record) after every kind of write, NULL when nothing is due', async () => {
    const { store, clock, path } = fileStore();
    const db = raw(path);
    const check = async (runId: string, expected: number | undefined) => {
      const run = (await store.getRun(runId)) as RunRecord;
      expect(dueAtOf(run)).toBe(expected);
      expect(run.dueAt).toBe(expected);
      expect(dueColumn(db, runId)).toBe(expected ?? null);
    };
    await store.createRun(runRecord('r1', { parent: { runId: 'p', operationId: '3' } }), execution);
    await check('r1', T0);

    clock.set(T0 + 10);
    const grant = await store.acquireLease('r1', T0 + 10, T0 + 60_000, 'token-1');
    await check('r1', T0 + 60_000);
    const fence = grant?.run.fence ?? -1;

    // Released into a callback wait: nothing is due until an outside event comes.
    clock.set(T0 + 20);
    await store.commit('r1', fence, {
      operations: [callback('STARTED')],
      run: { leaseExpiresAt: null, nextWakeAt: null, handledEventSeq: 0 },
    });
    await check('r1', undefined);

    clock.set(T0 + 30);
    expect(await store.writeOutsideEvent('r1', callback('SUCCEEDED'), { Status: 'STARTED' }, true)).toBe(true);
    await check('r1', T0 + 30);

    // An invocation that handled seq 0 while seq 1 landed: the run stays due at once.
    clock.set(T0 + 40);
    const again = await store.acquireLease('r1', T0 + 40, T0 + 90_000, 'token-2');
    clock.set(T0 + 50);
    await store.commit('r1', again?.run.fence ?? -1, {
      operations: [],
      run: { leaseExpiresAt: null, handledEventSeq: 0, dueAt: null },
    });
    await check('r1', T0 + 50);

    // Ended with a parent not yet told: due at its end, until parentNotified.
    clock.set(T0 + 60);
    await store.reviseRun('r1', 'RUNNING', { status: 'SUCCEEDED', endedAt: T0 + 60, nextWakeAt: null }, []);
    await check('r1', T0 + 60);
    expect(await store.findDueRuns(T0 + 60, 10)).toEqual([{ runId: 'r1', dueAt: T0 + 60 }]);
    await store.reviseRun('r1', 'SUCCEEDED', { parentNotified: true }, []);
    await check('r1', undefined);
    expect(await store.findDueRuns(T0 + 1_000_000, 10)).toEqual([]);
  });

  it('gives runs of a file written before the due index (schema version 1) their due_at when it is opened', async () => {
    const { store, path } = fileStore();
    await store.createRun(runRecord('waiting', { nextWakeAt: T0 + 5_000 }), execution);
    await store.createRun(runRecord('idle', { nextWakeAt: undefined }), execution);
    await store.createRun(runRecord('leased'), execution);
    await store.acquireLease('leased', T0, T0 + 60_000, 'token');
    store.close();
    // Back to version 1: no column, no index, records without dueAt.
    const db = rawDatabase(path);
    const records = db.prepare('SELECT run_id, record FROM runs').all() as Array<{ run_id: string; record: string }>;
    for (const row of records) {
      const { dueAt: _dropped, ...record } = JSON.parse(row.record) as RunRecord;
      db.prepare('UPDATE runs SET record = ? WHERE run_id = ?').run(JSON.stringify(record), row.run_id);
    }
    db.exec(
      'DROP INDEX runs_by_due; ALTER TABLE runs DROP COLUMN due_at; DELETE FROM schema_version WHERE version >= 2',
    );
    db.close();

    const { store: reopened } = fileStore(path);
    expect(await reopened.findDueRuns(T0 + 100_000, 10)).toEqual([
      { runId: 'waiting', dueAt: T0 + 5_000 },
      { runId: 'leased', dueAt: T0 + 60_000 },
    ]);
    expect((await reopened.getRun('waiting'))?.dueAt).toBe(T0 + 5_000);
    expect((await reopened.getRun('idle'))?.dueAt).toBeUndefined();
  });

  it('lists due runs earliest first, at most limit, leaving out runs past their retention', async () => {
    const { store, clock } = fileStore();
    await store.createRun(runRecord('late', { nextWakeAt: T0 + 300 }), execution);
    await store.createRun(runRecord('early', { nextWakeAt: T0 + 100 }), execution);
    await store.createRun(runRecord('future', { nextWakeAt: T0 + 10_000 }), execution);
    await store.createRun(runRecord('gone', { nextWakeAt: T0 + 50, expiresAt: T0 + 500 }), execution);
    expect(await store.findDueRuns(T0 + 300, 10)).toEqual([
      { runId: 'gone', dueAt: T0 + 50 },
      { runId: 'early', dueAt: T0 + 100 },
      { runId: 'late', dueAt: T0 + 300 },
    ]);
    expect(await store.findDueRuns(T0 + 300, 1)).toEqual([{ runId: 'gone', dueAt: T0 + 50 }]);
    clock.set(T0 + 500);
    expect((await store.findDueRuns(T0 + 300, 10)).map((due) => due.runId)).toEqual(['early', 'late']);
  });
});

describe('SqliteStore.reclaimLeases', () => {
  it('lapses every held lease at now, keeping the fence: the next lease counts a lost invocation', async () => {
    const { store, clock } = fileStore();
    await store.createRun(runRecord('held'), execution);
    await store.createRun(runRecord('lapsed'), execution);
    await store.createRun(runRecord('free'), execution);
    const held = await store.acquireLease('held', T0, T0 + 15 * 60_000, 'dead-process');
    await store.acquireLease('lapsed', T0, T0 + 100, 'older');
    clock.set(T0 + 1_000);

    expect(store.reclaimLeases(T0 + 1_000)).toEqual(['held']);
    const reclaimed = await store.getRun('held');
    expect(reclaimed).toMatchObject({ leaseExpiresAt: T0 + 1_000, dueAt: T0 + 1_000, fence: held?.run.fence });
    expect(await store.findDueRuns(T0 + 1_000, 10)).toContainEqual({ runId: 'held', dueAt: T0 + 1_000 });
    expect((await store.getRun('lapsed'))?.leaseExpiresAt).toBe(T0 + 100);
    expect((await store.getRun('free'))?.leaseExpiresAt).toBeUndefined();

    const next = await store.acquireLease('held', T0 + 1_000, T0 + 2_000, 'new-process');
    expect(next?.previousLost).toBe(true);
    expect(next?.run).toMatchObject({ lostInvocations: 1, invocations: 2, fence: (held?.run.fence ?? 0) + 1 });
  });

  it('refuses with database_in_use while another store has taken the file, and not once it is closed', async () => {
    const { store: first, path } = fileStore();
    await first.createRun(runRecord('r1'), execution);
    first.reclaimLeases(T0);
    const { store: second } = fileStore(path);
    expect(() => second.reclaimLeases(T0)).toThrow(DatabaseInUseError);
    expect(() => second.reclaimLeases(T0)).toThrow(expect.objectContaining({ code: 'database_in_use' }));
    // Only runtimes take the file: plain readers and writers go on.
    expect((await second.getRun('r1'))?.status).toBe('RUNNING');
    expect(await second.acquireLease('r1', T0, T0 + 1_000, 't')).toBeDefined();
    // Taking it twice in one store is harmless (and lapses the lease just taken).
    expect(first.reclaimLeases(T0 + 1)).toEqual(['r1']);
    expect(await second.acquireLease('r1', T0 + 1, T0 + 1_000, 't2')).toBeDefined();
    first.close();
    expect(second.reclaimLeases(T0 + 2)).toEqual(['r1']);
  });

  it('needs no file for a private in-memory database', async () => {
    const one = new SqliteStore({ path: ':memory:' });
    const two = new SqliteStore({ path: ':memory:' });
    open.push(one, two);
    expect(one.reclaimLeases(T0)).toEqual([]);
    expect(two.reclaimLeases(T0)).toEqual([]);
  });
});
