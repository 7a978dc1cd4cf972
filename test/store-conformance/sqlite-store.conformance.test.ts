import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeRunCursor, MemoryStore } from '@durable-lambda/engine';
import { SqliteStore } from '@durable-lambda/local';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { describeStoreConformance, executionOp, leaseToken, runRecord, T0 } from './conformance';
import { describeControlConformance } from './control-conformance';

const dir = mkdtempSync(join(tmpdir(), 'durable-sqlite-conformance-'));
const open: SqliteStore[] = [];
let files = 0;

/** A fresh store on a new temp file (or in memory) with a clock the suite moves. */
async function setup(path: () => string) {
  let t = T0;
  const clock = {
    now: () => t,
    set: (next: number) => {
      t = next;
    },
  };
  const store = new SqliteStore({ path: path(), clock });
  open.push(store);
  return { store, clock };
}

const tempFile = () => join(dir, `store-${++files}.sqlite`);
const memory = () => ':memory:';

afterEach(() => {
  for (const store of open.splice(0)) store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeStoreConformance('SqliteStore (file)', () => setup(tempFile));
describeStoreConformance('SqliteStore (:memory:)', () => setup(memory));
describeControlConformance('SqliteStore (file)', () => setup(tempFile));
describeControlConformance('SqliteStore (:memory:)', () => setup(memory));

describe('SqliteStore specifics', () => {
  it('pages with the same cursors as the memory store', async () => {
    const { store } = await setup(tempFile);
    const memory = new MemoryStore({ now: () => T0 });
    for (let i = 0; i < 7; i++) {
      const run = runRecord(`r${i}`, { createdAt: T0 + (i % 3) });
      await store.createRun(run, executionOp());
      await memory.createRun(run, executionOp());
    }
    const page = await store.listRuns({ limit: 3 });
    const last = page.runs[2];
    expect(last).toBeDefined();
    expect(page.cursor).toBe(last && encodeRunCursor(last));
    expect(page).toEqual(await memory.listRuns({ limit: 3 }));
    expect(await store.listRuns({ limit: 3, cursor: page.cursor as string })).toEqual(
      await memory.listRuns({ limit: 3, cursor: page.cursor as string }),
    );
  });

  it('keeps runs, operations and idempotency records across a reopen of the file', async () => {
    const path = tempFile();
    const first = (await setup(() => path)).store;
    await first.createRun(runRecord('r1'), executionOp());
    const grant = await first.acquireLease('r1', T0, T0 + 1_000, leaseToken());
    await first.claimIdempotencyKey({
      key: 'k',
      requestHash: 'h',
      state: 'IN_PROGRESS',
      createdAt: T0,
      expiresAt: T0 + 10,
    });
    first.close();
    const second = (await setup(() => path)).store;
    expect(await second.getRun('r1')).toEqual(grant?.run);
    expect(await second.loadOperations('r1')).toEqual([executionOp()]);
    expect(
      (
        await second.claimIdempotencyKey({
          key: 'k',
          requestHash: 'x',
          state: 'IN_PROGRESS',
          createdAt: T0,
          expiresAt: T0 + 10,
        })
      ).claimed,
    ).toBe(false);
  });

  it('calls subscribers after every write of a run, not after reads or refused writes', async () => {
    const { store } = await setup(tempFile);
    let calls = 0;
    const stop = store.subscribe(() => calls++);
    await store.createRun(runRecord('r1'), executionOp());
    await store.createRun(runRecord('r1'), executionOp());
    await store.getRun('r1');
    const grant = await store.acquireLease('r1', T0, T0 + 1_000, leaseToken());
    await store.acquireLease('r1', T0, T0 + 1_000, leaseToken());
    await store.commit('r1', grant?.run.fence ?? 0, { operations: [] });
    await store.commit('r1', 99, { operations: [] }).catch(() => undefined);
    expect(calls).toBe(3);
    stop();
    await store.reviseRun('r1', 'RUNNING', { status: 'CANCELLED' }, []);
    expect(calls).toBe(3);
  });
});
