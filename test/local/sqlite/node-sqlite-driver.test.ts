/**
 * The SQLite store on Node.js's own `node:sqlite` (issue 25: better-sqlite3 compiles for minutes on
 * a fresh machine; Node 22.13+ has SQLite built in). This repository runs on Node 20, so the proof
 * runs under a Node 22 binary (DURABLE_NODE22, else the one `node scripts/check-tools.mjs node22`
 * installs, as `npm test` does): where better-sqlite3 does not load (the repository's addon is
 * built for its own Node, 20), the store runs on node:sqlite without a flag and without its
 * ExperimentalWarning (others still print), its WAL checkpointer's thread opens the file with it
 * too, and the SQLite store conformance suite and the SQLite tests pass on it (forced with
 * DURABLE_SQLITE_DRIVER=node). Where there is no
 * Node 22, the tests skip, printing why.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../packages/local/src/embedded/sqlite-store';
import { node22Binary } from '../../../scripts/node22.mjs';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const PROBE = fileURLToPath(new URL('../fixtures/sqlite-driver-probe.mts', import.meta.url));
/** The SQLite store's suites: the conformance suite (file and :memory:) and the dev server's SQLite tests. */
const SUITES = [
  'test/store-conformance/sqlite-store.conformance.test.ts',
  'test/local/sqlite/store.test.ts',
  'test/local/sqlite/shared-event-loop.test.ts',
  'test/local/sqlite/replay-load.test.ts',
  'test/local/runtime/owner-lock-file-identity.test.ts',
  'test/local/dev-server/run-journal.test.ts',
];

const node22 = node22Binary();
if (!node22) {
  console.log(
    'sqlite/node-sqlite-driver.test.ts: skipped, no Node 22 (set DURABLE_NODE22 to a Node 22.13+ binary, or run `node scripts/check-tools.mjs node22` on Linux x64)',
  );
}

const dir = mkdtempSync(join(tmpdir(), 'durable-sqlite-node22-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** This process's environment without what would make a child vitest think it is one of our workers. */
function childEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(VITEST|TINYPOOL|NODE_OPTIONS$)/.test(key)) env[key] = value;
  }
  return { ...env, ...extra };
}

/** Runs the probe under `node` with `env` on top of this process's. */
function probe(node: string, file: string, env: NodeJS.ProcessEnv) {
  return spawnSync(node, ['--import', join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs'), PROBE, file], {
    encoding: 'utf8',
    env: childEnv({ TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.json'), ...env }),
    timeout: 60_000,
  });
}

describe('DURABLE_SQLITE_DRIVER', () => {
  it.skipIf(!node22)(
    'better-sqlite3 keeps Node 22 off node:sqlite',
    () => {
      const result = probe(node22 as string, join(dir, 'forced-better.sqlite'), {
        DURABLE_SQLITE_DRIVER: 'better-sqlite3',
      });
      expect(result.stdout).not.toContain('driver node');
      // The repository's addon is built for its own Node (20): under 22 it does not load, and the
      // refusal says so. Where it was built for Node 22, the store runs on it.
      if (result.status === 0) expect(result.stdout).toContain('driver better-sqlite3\n');
      else expect(result.stdout).toContain('refused sqlite_unavailable: ');
      if (result.status !== 0)
        expect(result.stdout).toContain('better-sqlite3, which is installed but does not load here');
    },
    90_000,
  );

  it.skipIf(process.getBuiltinModule?.('node:sqlite') !== undefined)(
    'node is refused where Node.js has no node:sqlite without a flag, naming both ways out',
    () => {
      const result = probe(process.execPath, join(dir, 'forced-node.sqlite'), { DURABLE_SQLITE_DRIVER: 'node' });
      expect(result.status, result.stderr).toBe(3);
      expect(result.stdout).toContain('refused sqlite_unavailable');
      expect(result.stdout).toContain('DURABLE_SQLITE_DRIVER=node rules out');
      expect(result.stdout).toContain('Node.js 22.13 or later');
    },
    90_000,
  );
});

describe.skipIf(!node22)('the SQLite store under Node 22', () => {
  const node = node22 as string;

  it('falls back to node:sqlite where better-sqlite3 does not load, without a flag, its checkpointer thread too, printing no SQLite warning but every other', async () => {
    const file = join(dir, 'probe.sqlite');
    const result = probe(node, file, { DURABLE_SQLITE_DRIVER: '' });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('driver node\n');
    // The thread's checkpoint copied the run's frames: it opened the file on node:sqlite.
    expect(result.stdout).toMatch(/^checkpointed [1-9]\d*$/m);
    expect(result.stderr).not.toContain('SQLite is an experimental feature');
    expect(result.stderr).toContain("ExperimentalWarning: the probe's own feature is experimental");

    // The file node:sqlite wrote is an ordinary SQLite file: this process's driver reads it back.
    const store = new SqliteStore({ path: file });
    try {
      expect((await store.getRun('r1'))?.functionName).toBe('fn');
    } finally {
      store.close();
    }
  }, 90_000);

  it('passes the SQLite store conformance suite and the SQLite tests on node:sqlite', () => {
    const run = spawnSync(
      node,
      [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--reporter=dot', ...SUITES],
      { cwd: ROOT, encoding: 'utf8', env: childEnv({ DURABLE_SQLITE_DRIVER: 'node' }), timeout: 420_000 },
    );
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.status, output.slice(-6_000)).toBe(0);
    expect(output).toMatch(new RegExp(`Test Files\\s.*${SUITES.length} passed`));
  }, 450_000);
});
