/**
 * One runtime per database file, whatever name the file is opened by. The runtime's lock used to
 * be a sidecar named after the path it was given (`<path>.lock`): a second runtime given another
 * name of the same file (a symlink to it or to its folder) took a lock of its own, was accepted,
 * lapsed the first one's live leases and ran a step still running in the first again, as a new
 * attempt. The lock is now named after the file SQLite opened (its real path), and a file with
 * several hard links (two names SQLite cannot tell apart: each would get its own WAL) is refused.
 */
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OperationListWire, RunWire } from '@durable-lambda/api';
import { LocalRuntime, SqliteStore } from '@durable-lambda/local';
import { type DurableLambdaHandler, withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { getJson, killAll, postJson, SERVER_URL, spawnNode } from '../dev-server/process';

const root = mkdtempSync(join(tmpdir(), 'durable-owner-lock-'));
let worlds = 0;
const cleanup: Array<() => void | Promise<void>> = [];

afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});
afterAll(killAll);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(probe: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> {
  const end = Date.now() + 60_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
}

/**
 * A folder with the database `real/dev.sqlite` and other names of it: a symlink to the file, a
 * symlink to its folder, a path through a symlinked folder and `..` (which only the operating
 * system resolves right: lexically it names another file), and a hard link.
 */
function world() {
  const dir = join(root, `w${++worlds}`);
  mkdirSync(join(dir, 'real', 'inner'), { recursive: true });
  mkdirSync(join(dir, 'elsewhere'));
  const real = join(dir, 'real', 'dev.sqlite');
  symlinkSync(join(dir, 'real'), join(dir, 'folder-link'));
  symlinkSync(join(dir, 'real', 'inner'), join(dir, 'elsewhere', 'inner-link'));
  return {
    dir,
    real,
    names: {
      'a symlink to the file': () => {
        const path = join(dir, 'file-link.sqlite');
        symlinkSync(real, path);
        return path;
      },
      'a symlinked folder': () => join(dir, 'folder-link', 'dev.sqlite'),
      '`..` after a symlinked folder': () => `${dir}/elsewhere/inner-link/../dev.sqlite`,
      'a doubled slash and `.`': () => `${dir}//real/./dev.sqlite`,
    } satisfies Record<(typeof ALIASES)[number], () => string>,
  };
}

const ALIASES = [
  'a symlink to the file',
  'a symlinked folder',
  '`..` after a symlinked folder',
  'a doubled slash and `.`',
] as const;

function openStore(path: string): SqliteStore {
  const store = new SqliteStore({ path });
  cleanup.push(() => store.close());
  return store;
}

function runtimeOn(store: SqliteStore, functions: Record<string, DurableLambdaHandler>) {
  const errors: unknown[] = [];
  const runtime = new LocalRuntime({
    store,
    functions: new Map(Object.entries(functions)),
    overrides: { logSink: () => {} },
    onError: (error) => errors.push(error),
  });
  cleanup.push(() => runtime.stop());
  return { runtime, errors };
}

/** A handler whose one step waits for the test to let it finish, counting the times it started. */
function gatedCharge() {
  let starts = 0;
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const handler = withDurableExecution(async (_event, ctx) =>
    ctx.step('charge', async () => {
      starts++;
      await gate;
      return 'charged';
    }),
  );
  return { handler, starts: () => starts, open: () => open() };
}

describe('the one-runtime-per-file lock holds for every name of the file', () => {
  for (const name of ALIASES) {
    it(`refuses a second runtime on ${name} while the first runs a step, and the step runs once`, async () => {
      const w = world();
      const alias = w.names[name]();
      const charge = gatedCharge();
      cleanup.push(charge.open);
      const firstStore = openStore(w.real);
      const first = runtimeOn(firstStore, { charge: charge.handler });
      await first.runtime.start();
      const run = await first.runtime.startRun('charge', {});
      await until(() => charge.starts() === 1);
      const leased = await firstStore.getRun(run.runId);
      expect(leased?.leaseExpiresAt).toBeGreaterThan(Date.now());

      const second = runtimeOn(openStore(alias), { charge: charge.handler });
      await expect(second.runtime.start()).rejects.toMatchObject({ code: 'database_in_use' });
      expect(second.runtime.running).toBe(false);
      // The first runtime's lease was left alone: nobody else may take the run.
      expect((await firstStore.getRun(run.runId))?.leaseExpiresAt).toBe(leased?.leaseExpiresAt);

      charge.open();
      const done = await first.runtime.waitForRun(run.runId, { timeoutMs: 30_000 });
      expect(done.status).toBe('SUCCEEDED');
      expect(charge.starts()).toBe(1);
      const step = (await firstStore.loadOperations(run.runId)).find((op) => op.Name === 'charge');
      expect(step?.StepDetails?.Attempt ?? 1).toBe(1);
      expect(first.errors).toEqual([]);
    });
  }

  it('lets the second runtime start by another name once the first closed the file', async () => {
    const w = world();
    const alias = w.names['a symlink to the file']();
    const firstStore = openStore(w.real);
    const first = runtimeOn(firstStore, {});
    await first.runtime.start();
    await first.runtime.stop();
    firstStore.close();
    const second = runtimeOn(openStore(alias), {});
    await second.runtime.start();
    expect(second.runtime.running).toBe(true);
  });

  it('refuses a file with hard links (database_hard_linked), whichever name is opened first', async () => {
    const w = world();
    const store = openStore(w.real);
    const first = runtimeOn(store, {});
    await first.runtime.start();
    // A hard link made while the first runs: SQLite would give the second name a WAL of its own.
    const linked = join(w.dir, 'elsewhere', 'hard.sqlite');
    linkSync(w.real, linked);
    // SQLite itself cannot open the second name while the first is open (a disk I/O error): said so.
    expect(() => openStore(linked)).toThrow(
      expect.objectContaining({ code: 'database_hard_linked', message: expect.stringContaining('has 2 names') }),
    );
    await first.runtime.stop();
    store.close();
    // With the link still there, no name of the file may be run, the first one's neither.
    const again = runtimeOn(openStore(w.real), {});
    await expect(again.runtime.start()).rejects.toMatchObject({ code: 'database_hard_linked' });
    rmSync(linked);
    const after = runtimeOn(openStore(w.real), {});
    await after.runtime.start();
    expect(after.runtime.running).toBe(true);
  });
});

describe('the lock of a dev server in another process', () => {
  const CHILD = 'test/local/fixtures/dev-server-child.mts';
  const serve = (db: string, marker: string) => spawnNode(['--import', 'tsx', CHILD, '0', db, marker]);

  it('keeps out a server on another name while its owner lives, and dies with it (kill -9): the next one takes over at once', async () => {
    const w = world();
    const alias = w.names['a symlink to the file']();
    const marker = join(w.dir, 'marker.txt');
    const owner = serve(alias, marker);
    const url = (await owner.waitFor(SERVER_URL, 60_000))[1] as string;
    const { body: run } = await postJson<RunWire>(`${url}/v1/runs`, { function: 'worker', input: {} });
    // The step's first attempt never ends: the owner is inside it.
    await until(async () => {
      const { body } = await getJson<OperationListWire>(`${url}/v1/runs/${run.runId}/operations`);
      return body.operations.find((op) => op.name === 'long')?.status === 'STARTED';
    });

    const refused = serve(w.real, marker);
    expect(await refused.exited).toEqual({ code: 1, signal: null });
    expect(refused.output().trim()).toBe(
      `dev server failed to start: the database ${w.real} is in use by another dev server or LocalRuntime (stop it first, or give another file)`,
    );

    owner.process.kill('SIGKILL');
    await owner.exited;
    const next = serve(w.real, marker);
    const nextUrl = (await next.waitFor(SERVER_URL, 60_000))[1] as string;
    // The dead owner's lease (15 minutes) is taken back at the start: the attempt counts as lost.
    const done = await until(async () => {
      const { body } = await getJson<RunWire>(`${nextUrl}/v1/runs/${run.runId}`);
      return body.status !== 'RUNNING' && body;
    });
    expect(done).toMatchObject({ status: 'SUCCEEDED', result: { attempt: 2 }, lostInvocations: 1 });
    next.process.kill('SIGTERM');
    expect((await next.exited).code).toBe(0);
  }, 120_000);
});
