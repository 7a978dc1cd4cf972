/**
 * The built CommonJS packages under every test framework a user may have: node:test, Jest (with its
 * fake timers on) and Vitest (fake timers on too, since the runner touches no globals), and the
 * `durable` CLI launcher running the built dist. It reads dist (`npm run build` first; `npm test` runs
 * it before the packaging tests).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = fileURLToPath(new URL('./fixtures', import.meta.url));
const built = existsSync(`${root}/packages/local/dist/index.cjs`);
/** A Jest or node:test process takes 5-25 s on a loaded 2-core machine: far above that. */
const PROCESS_TEST_TIMEOUT_MS = 180_000;

describe('the built test runner works under any test framework without changes', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it(
    'runs under node:test through the CommonJS build',
    async () => {
      expect(built, 'run `npm run build` first').toBe(true);
      const { stdout } = await run(process.execPath, ['--test', `${fixtures}/runner.node-test.cjs`], { cwd: root });
      expect(stdout).toMatch(/# pass 1/);
      expect(stdout).toMatch(/# fail 0/);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'runs under Jest through require(), even with Jest fake timers on',
    async () => {
      expect(built, 'run `npm run build` first').toBe(true);
      const jestPackage = createRequire(`${root}/package.json`).resolve('jest/package.json');
      const jestBin = `${dirname(jestPackage)}/bin/jest.js`;
      const { stderr } = await run(
        process.execPath,
        [jestBin, '--rootDir', fixtures, '--testMatch', '**/*.jest-test.cjs', '--ci', '--no-cache', '--watchman=false'],
        { cwd: root },
      );
      expect(stderr).toMatch(/Tests:\s+1 passed, 1 total/);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it('runs under Vitest with fake timers on, since it touches no globals', async () => {
    const realSetTimeout = globalThis.setTimeout;
    const realNow = Date.now;
    vi.useFakeTimers();
    const { scenario } = createRequire(import.meta.url)('./fixtures/scenario.cjs') as {
      scenario: () => Promise<unknown>;
    };
    await expect(scenario()).resolves.toEqual({ invocations: 4 });
    vi.useRealTimers();
    expect(globalThis.setTimeout).toBe(realSetTimeout);
    expect(Date.now).toBe(realNow);
  });
});

describe('the durable CLI launcher', () => {
  it(
    'runs the built dist',
    async () => {
      const dist = `${root}/packages/cli/dist/index.js`;
      expect(existsSync(dist), 'run `npm run build` first').toBe(true);
      const { stdout } = await run(process.execPath, [`${root}/packages/cli/bin/durable.mjs`, 'help'], {
        cwd: root,
        env: { ...process.env, NODE_OPTIONS: '', DURABLE_CLI_SOURCE: '' },
      });
      expect(stdout).toMatch(/^Usage: durable/);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
