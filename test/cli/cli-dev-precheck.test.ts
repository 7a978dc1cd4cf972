/**
 * `durable dev` finds a busy port and a database owned by another dev server before it loads
 * `@durable-lambda/local` (a CPU-second of modules): the checks use the dev server's own defaults,
 * say the dev server's one line, and leave a free port (or port 0) and a free file alone. The
 * end-to-end lines are in test/local/cli-dev.test.ts.
 */
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DatabaseInUseError,
  DEFAULT_DEV_DB,
  DEFAULT_DEV_HOST,
  DEFAULT_DEV_PORT,
  LocalError,
} from '@durable-lambda/local';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../packages/cli/src/args';
import { runDev } from '../../packages/cli/src/dev';
import {
  checkDevDatabase,
  checkDevPort,
  DEV_DEFAULTS,
  DevDatabaseBusyError,
  DevPortBusyError,
} from '../../packages/cli/src/dev-precheck';
import type { CliIo } from '../../packages/cli/src/io';
import { PortInUseError } from '../../packages/local/src/dev-server/dev-server';
import { OwnerLock } from '../../packages/local/src/embedded/sqlite-owner-lock';

const dir = mkdtempSync(join(tmpdir(), 'durable-dev-precheck-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const open: Server[] = [];
afterEach(() => {
  for (const server of open.splice(0)) server.close();
});

function listening(port = 0): Promise<number> {
  const server = createServer();
  open.push(server);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });
}

describe('durable dev: the port checked before the dev server is loaded', () => {
  it("uses the dev server's defaults and its message", () => {
    expect(DEV_DEFAULTS).toEqual({ port: DEFAULT_DEV_PORT, host: DEFAULT_DEV_HOST, db: DEFAULT_DEV_DB });
    expect(new DevPortBusyError(4100, '127.0.0.1').message).toBe(new PortInUseError(4100, '127.0.0.1').message);
    expect(new DevDatabaseBusyError('/x/dev.sqlite').message).toBe(new DatabaseInUseError('/x/dev.sqlite').message);
    // The dev server's own errors' base and codes: one LocalError for the port or file taken, before or at start.
    expect(new DevPortBusyError(4100, '127.0.0.1')).toBeInstanceOf(LocalError);
    expect(new DevDatabaseBusyError('/x/dev.sqlite')).toBeInstanceOf(LocalError);
  });

  it('rejects a busy port with code port_in_use, and passes a free one (left free) or port 0', async () => {
    const busy = await listening();
    await expect(checkDevPort({ port: busy })).rejects.toMatchObject({
      code: 'port_in_use',
      message: `port ${busy} on 127.0.0.1 is in use (another dev server?)`,
    });
    const free = await listening();
    open.pop()?.close();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await expect(checkDevPort({ port: free, host: '127.0.0.1' })).resolves.toBeUndefined();
    // The probe let go of it: the server can listen there.
    expect(await listening(free)).toBe(free);
    await expect(checkDevPort({ port: 0 })).resolves.toBeUndefined();
  });

  it('leaves other failures to listen to the server (an address not on this machine)', async () => {
    await expect(checkDevPort({ port: 4101, host: '192.0.2.1' })).resolves.toBeUndefined();
  });

  it('makes the default start of runDev fail in one line naming PORT, before anything is loaded', async () => {
    const busy = await listening();
    const err: string[] = [];
    const io: CliIo = { out: () => {}, err: (line) => void err.push(line), env: { PORT: String(busy) } };
    await expect(runDev(parseCommandLine(['dev', 'app.ts']), io)).rejects.toThrow(
      `port ${busy} on 127.0.0.1 is in use (another dev server?): choose another with --port N (or PORT=N)`,
    );
    expect(err).toEqual([]);
  });

  it("refuses a database whose lock another owner holds (the runtime's own lock), and leaves a free one alone", () => {
    const db = join(dir, 'owned.sqlite');
    // Never owned: no lock file, and the check makes none.
    expect(() => checkDevDatabase({ db })).not.toThrow();
    expect(existsSync(`${db}.lock`)).toBe(false);
    const owner = new OwnerLock(db);
    owner.acquire();
    try {
      expect(() => checkDevDatabase({ db })).toThrow(new DatabaseInUseError(db).message);
      expect(() => checkDevDatabase({ db })).toThrow(expect.objectContaining({ code: 'database_in_use' }));
    } finally {
      owner.release();
    }
    // Once let go, the file is free, and the check left it so: the next owner takes it.
    expect(() => checkDevDatabase({ db })).not.toThrow();
    const next = new OwnerLock(db);
    next.acquire();
    next.release();
    expect(() => checkDevDatabase({ db: ':memory:' })).not.toThrow();
  });

  it('finds the lock by the file, whatever name the database is given by (a symlink to it)', () => {
    const db = join(dir, 'real.sqlite');
    writeFileSync(db, '');
    const alias = join(dir, 'alias.sqlite');
    symlinkSync(db, alias);
    const owner = new OwnerLock(db);
    owner.acquire();
    try {
      expect(() => checkDevDatabase({ db: alias })).toThrow(new DevDatabaseBusyError(alias, db).message);
      expect(new DevDatabaseBusyError(alias, db).message).toBe(new DatabaseInUseError(alias, db).message);
    } finally {
      owner.release();
    }
    expect(() => checkDevDatabase({ db: alias })).not.toThrow();
  });

  it("still says the server's own refusals in the same lines (a port or file taken after the checks)", async () => {
    const io: CliIo = { out: () => {}, err: () => {}, env: {} };
    const refusing = (error: Error) => async () => ({
      startDevServer: async () => {
        throw error;
      },
    });
    const stopSignals = () => ({ requested: new Promise<never>(() => {}), dispose() {} });
    const line = parseCommandLine(['dev', 'app.ts', '--port', '4102']);
    await expect(runDev(line, io, refusing(new PortInUseError(4102, '127.0.0.1')), stopSignals)).rejects.toThrow(
      'port 4102 on 127.0.0.1 is in use (another dev server?): choose another with --port N (or PORT=N)',
    );
    const db = join(dir, 'taken.sqlite');
    await expect(runDev(line, io, refusing(new DatabaseInUseError(db)), stopSignals)).rejects.toThrow(
      new DatabaseInUseError(db).message,
    );
  });
});
