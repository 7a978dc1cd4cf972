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

describe('the test runner works under any test framework without changes', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs under node:test through the CommonJS build', async () => {
    expect(built, 'run `npm run build` first').toBe(true);
    const { stdout } = await run(process.execPath, ['--test', `${fixtures}/runner.node-test.cjs`], { cwd: root });
    expect(stdout).toMatch(/# pass 1/);
    expect(stdout).toMatch(/# fail 0/);
  });

  it('runs under Jest through require(), even with Jest fake timers on', async () => {
    expect(built, 'run `npm run build` first').toBe(true);
    const jestPackage = createRequire(`${root}/package.json`).resolve('jest/package.json');
    const jestBin = `${dirname(jestPackage)}/bin/jest.js`;
    const { stderr } = await run(
      process.execPath,
      [jestBin, '--rootDir', fixtures, '--testMatch', '**/*.jest-test.cjs', '--ci', '--no-cache', '--watchman=false'],
      { cwd: root },
    );
    expect(stderr).toMatch(/Tests:\s+1 passed, 1 total/);
  });

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
