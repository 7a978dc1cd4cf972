/**
 * The SQLite store shares the dev server's one thread with its HTTP server (issue 28: after a
 * `kill -9` with a thousand runs in flight, the dashboard's list request stalled while they
 * recovered). Two things keep a burst of writes from holding a request up:
 * - invocations' commits take turns with I/O: past a budget of event-loop time, each further
 *   commit waits for a later turn, after Node has polled for I/O (`turnBudgetMs`, `TurnShare`);
 * - the WAL is checkpointed on a thread of its own (`WalCheckpointer`): a checkpoint waits for two
 *   fsyncs, and SQLite would otherwise run it inside whichever commit takes the WAL past 1,000 pages;
 *   the WAL still starts over while writes go on.
 * Neither changes what a write does: every commit lands, in the order made, before it resolves.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';
import type { RunRecord } from '@durable-lambda/engine';
import { LocalRuntime, SqliteStore } from '@durable-lambda/local';
import type { Operation } from '@durable-lambda/protocol';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { WalCheckpointer } from '../../../packages/local/src/embedded/sqlite-wal';
import { TurnShare } from '../../../packages/local/src/embedded/turn-share';
import { pragmaValue, rawDatabase } from './raw-sqlite';

const T0 = 1_700_000_000_000;
const dir = mkdtempSync(join(tmpdir(), 'durable-sqlite-event-loop-'));
let files = 0;
const open: Array<{ close(): void }> = [];

afterEach(() => {
  for (const handle of open.splice(0).reverse()) handle.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fileStore(options: { turnBudgetMs?: number } = {}) {
  const path = join(dir, `store-${++files}.sqlite`);
  const store = new SqliteStore({ path, clock: { now: () => T0 }, ...options });
  open.push(store);
  return { store, path };
}

function runRecord(runId: string): RunRecord {
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
  };
}

const execution: Operation = { Id: '0', Type: 'EXECUTION', Status: 'STARTED', StartTimestamp: T0 };
const step = (id: string): Operation => ({ Id: id, Type: 'STEP', Status: 'SUCCEEDED', StartTimestamp: T0 });

/** Resolves once `check()` holds, polling each 20 ms; rejects after `ms`. */
async function until(check: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not true within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('SqliteStore commits take turns with I/O', () => {
  it('answers an HTTP request while a burst of commits is under way, and lands every commit in order', async () => {
    // A budget of 0: once one commit ran, each further one waits for a later turn of the loop.
    const { store } = fileStore({ turnBudgetMs: 0 });
    const runs = Array.from({ length: 100 }, (_, i) => `run-${i}`);
    const fences = new Map<string, number>();
    for (const runId of runs) {
      await store.createRun(runRecord(runId), execution);
      const grant = await store.acquireLease(runId, T0, T0 + 60_000, `token-${runId}`);
      fences.set(runId, grant?.run.fence ?? -1);
    }
    let committed = 0;
    const order: string[] = [];
    let committedWhenAnswered: number | undefined;
    const server = createServer((_req, res) => {
      committedWhenAnswered = committed;
      res.end('ok');
    });
    open.push({ close: () => server.close() });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    await turn();

    // The burst: 100 invocations' checkpoints, made in the same turn (as when steps end together).
    const commits = runs.map((runId) =>
      store.commit(runId, fences.get(runId) as number, { operations: [step(`step-${runId}`)] }).then(() => {
        committed += 1;
        order.push(runId);
      }),
    );
    const answer = await fetch(url).then((res) => res.text());
    await Promise.all(commits);

    expect(answer).toBe('ok');
    // The request was served between two commits, not after the last (each commit used to run at
    // once, in the call, so all 100 were written before the request could even be sent).
    expect(committedWhenAnswered).toBeLessThan(runs.length);
    expect(order).toEqual(runs);
    for (const runId of runs) {
      expect((await store.getOperation(runId, `step-${runId}`))?.Status).toBe('SUCCEEDED');
    }
  });

  it('runs commits at once while they take less than the budget, and with `Infinity`, always', async () => {
    const { store } = fileStore({ turnBudgetMs: Number.POSITIVE_INFINITY });
    await store.createRun(runRecord('r'), execution);
    const grant = await store.acquireLease('r', T0, T0 + 60_000, 'token');
    let written = 0;
    for (let i = 0; i < 50; i++) {
      void store.commit('r', grant?.run.fence as number, { operations: [step(`s${i}`)] }).then(() => {
        written += 1;
      });
    }
    // Every commit ran in its call; only their promises' callbacks are left for the microtasks.
    await Promise.resolve();
    expect((await store.loadOperations('r')).length).toBe(51);
    await turn();
    expect(written).toBe(50);
  });
});

describe('LocalRuntime on a SqliteStore', () => {
  it('replays runs woken together one turn at a time, each once its lease is taken', async () => {
    const { store } = fileStore({ turnBudgetMs: 0 });
    const runs: string[] = [];
    let started = 0;
    let atFirstImmediate: { started: number; leased: number } | undefined;
    const flow = withDurableExecution(
      async (_event, ctx) => {
        started += 1;
        // The setImmediate phase of the turn whose timers woke every run.
        if (started === 1) {
          setImmediate(() => {
            const leased = runs.filter((runId) => store.readRunJournal(runId).invocations.length > 0).length;
            atFirstImmediate = { started, leased };
          });
        }
        await ctx.step('one', async () => 'ok');
        return 'done';
      },
      { logSink: () => {} },
    );
    const runtime = new LocalRuntime({ store, functions: new Map([['flow', flow]]) });
    await runtime.start();
    try {
      // 20 runs started side by side, in one turn: their wake-ups are due together.
      runs.push(...(await Promise.all(Array.from({ length: 20 }, () => runtime.startRun('flow')))).map((r) => r.runId));
      const done = await Promise.all(runs.map((runId) => runtime.waitForRun(runId, { timeoutMs: 30_000 })));
      expect(done.every((run) => run.status === 'SUCCEEDED')).toBe(true);
      // The runs woken in that timers phase had their leases (the reconciler no longer finds them
      // due), one had run its handler: the others waited for later turns (each used to replay in
      // that one phase: started 20). On a loaded machine a few wake-ups may fall in the next
      // timers phase (their timers expire a millisecond apart), so not every run need be leased yet.
      expect(atFirstImmediate?.started).toBe(1);
      expect(atFirstImmediate?.leased).toBeGreaterThan(1);
    } finally {
      await runtime.stop();
    }
  });
});

describe('TurnShare', () => {
  it('admits units at once within the budget, then one per later turn, first come first served', async () => {
    let now = 0;
    const share = new TurnShare({ budgetMs: 8, now: () => now });
    // Each unit takes 3 ms of the window: three fit in 8 ms (0, 3, 6), the fourth waits.
    const ran: number[] = [];
    const unit = async (i: number) => {
      const wait = share.admit();
      if (wait) await wait;
      ran.push(i);
      now += 3;
    };
    const all = Promise.all([0, 1, 2, 3, 4, 5].map(unit));
    expect(ran).toEqual([0, 1, 2]);
    expect(share.queued).toBe(3);
    await all;
    expect(ran).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('gives waiting units a window as long as they waited, when other work kept the loop longer', async () => {
    let now = 0;
    const share = new TurnShare({ budgetMs: 8, now: () => now });
    const ran: number[] = [];
    const unit = async (i: number) => {
      const wait = share.admit();
      if (wait) await wait;
      ran.push(i);
      now += 10;
    };
    // The first unit fills the window; the other nine wait, while other work holds the loop 40 ms.
    const all = Promise.all(Array.from({ length: 10 }, (_, i) => unit(i)));
    now += 40;
    await turn();
    // Their window lasts the 40 ms they waited (not 8): four units of 10 ms.
    expect(ran).toEqual([0, 1, 2, 3, 4]);
    // Once they wait again (from 90), 200 ms of other work earn them four budgets, not 200 ms.
    now += 200;
    await turn();
    expect(ran).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    await all;
  });

  it('lets I/O run between windows', async () => {
    const share = new TurnShare({ budgetMs: 0 });
    const events: string[] = [];
    const units = Array.from({ length: 5 }, async (_, i) => {
      const wait = share.admit();
      if (wait) await wait;
      events.push(`unit ${i}`);
      // Each unit keeps the thread 2 ms, as a commit and what it sets off would.
      const end = performance.now() + 2;
      while (performance.now() < end);
    });
    // Due in 1 ms, the timer fires in a timers phase of a later turn of the loop (where an I/O
    // callback would run too): between two windows, never after every unit.
    setTimeout(() => events.push('timer'), 0);
    await Promise.all(units);
    expect(events[0]).toBe('unit 0');
    expect(events.indexOf('timer')).toBeGreaterThan(0);
    expect(events.indexOf('timer')).toBeLessThan(events.length - 1);
  });

  it('refuses a budget that is not a number of ms, naming the store option', () => {
    for (const turnBudgetMs of [-1, Number.NaN, '8' as unknown as number]) {
      expect(() => new SqliteStore({ path: ':memory:', turnBudgetMs })).toThrow(
        expect.objectContaining({ code: 'invalid_argument', field: 'turnBudgetMs' }),
      );
    }
  });
});

describe('SqliteStore WAL checkpoints', () => {
  it('never checkpoints inside a write: a thread of its own copies the WAL into the file afterwards', async () => {
    const { store, path } = fileStore();
    const before = statSync(path).size;
    // 2,000 runs written back to back, each in its own transaction, with no turn of the event loop
    // in between: far past SQLite's 1,000-page autocheckpoint, which would copy pages into the file
    // (and wait for two fsyncs) inside one of these writes.
    for (let i = 0; i < 2_000; i++) void store.createRun(runRecord(`run-${i}`), execution);
    expect(statSync(path).size).toBe(before);

    // The checkpointer thread copies them in shortly after.
    await until(() => statSync(path).size > before);
    const db = rawDatabase(path, { readonly: true });
    open.push(db);
    expect((db.prepare('SELECT COUNT(*) AS n FROM runs').get() as { n: number }).n).toBe(2_000);
  });

  it('starts the WAL over while writes go on without a pause', async () => {
    const { store, path } = fileStore();
    // The WAL header's first salt changes each time the WAL starts over from its beginning.
    const salt = () => {
      const fd = openSync(`${path}-wal`, 'r');
      try {
        const header = Buffer.alloc(32);
        readSync(fd, header, 0, 32, 0);
        return header.readUInt32BE(16);
      } finally {
        closeSync(fd);
      }
    };
    const salts = new Set<number>();
    let i = 0;
    // Writes on every turn of the event loop, so one lands during every checkpoint of the thread.
    const deadline = Date.now() + 60_000;
    while (salts.size < 3) {
      if (Date.now() > deadline) throw new Error(`the WAL started over ${salts.size - 1} times in 60 s`);
      for (let k = 0; k < 20; k++) void store.createRun(runRecord(`run-${i++}`), execution);
      salts.add(salt());
      await turn();
    }
    // ~10 pages a run: without starting over, the WAL would hold every page written.
    expect(statSync(`${path}-wal`).size).toBeLessThan(i * 10 * 4096);
  });

  it('hands checkpoints back to the connection when its thread cannot work', async () => {
    const path = join(dir, `raw-${++files}.sqlite`);
    const db = rawDatabase(path);
    open.push(db);
    db.pragma('journal_mode = WAL');
    // The thread opens the file by this name: a name with no file makes it fail at once.
    const checkpointer = new WalCheckpointer(db, join(dir, 'no-such-file.sqlite'));
    open.push(checkpointer);
    expect(pragmaValue(db, 'wal_autocheckpoint')).toBe(0);
    checkpointer.noteWrite();
    await until(() => pragmaValue(db, 'wal_autocheckpoint') === 1_000);
  });
});
