/**
 * `@durable-lambda/local` where better-sqlite3 (its optional native dependency) is missing: the
 * main entry still imports, under ESM and CommonJS, and its test runner runs a handler; only the
 * first `SqliteStore` fails, with `SqliteUnavailableError` naming the package and the install
 * command. (That its published declarations type-check for a consumer without
 * @types/better-sqlite3 is checked in the app pack-install.test.ts installs, with the other
 * consumer programs: one TypeScript process for all.)
 *
 * Like dist-packages.test.ts, it reads what `npm run build` left in packages/<name>/dist. The
 * runtime checks run in child processes preloading fixtures/hide-better-sqlite3.mjs, which makes
 * better-sqlite3 unresolvable to both of Node's resolvers (each child first proves that it is);
 * the same script without it is the control.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { stalePackages, withDependencies } from '../../scripts/stale-packages.mjs';
import { type ProcessResult, runProcess, settleAll } from './support';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Five Node processes take well under a minute on a loaded 2-core machine. */
const SETUP_TIMEOUT_MS = 10 * 60_000;
const HIDE = join(root, 'test', 'packaging', 'fixtures', 'hide-better-sqlite3.mjs');
/** Child processes: no loaders or flags inherited from the test runner. */
const childEnv: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
const describeRun = (result: ProcessResult | undefined) =>
  result ? `exit ${result.status}\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}` : 'not run';

/** What the probe script reports. */
interface Report {
  /** Whether `import('better-sqlite3')` and `require.resolve('better-sqlite3')` each failed. */
  hidden: { esm: boolean; cjs: boolean };
  exports: number;
  run: { status: string; result: unknown; invocations: number };
  store: { opened: true } | { opened: false; name: string; code: unknown; message: string; isExported: boolean };
}

/** The probe's body: `m` is the main entry, `sdk` @durable-lambda/sdk, `req` a require from the repo root. */
const PROBE_BODY = `
  const hidden = {
    esm: await import('better-sqlite3').then(() => false, () => true),
    cjs: (() => { try { req.resolve('better-sqlite3'); return false; } catch { return true; } })(),
  };
  const handler = sdk.withDurableExecution(async (input, ctx) => {
    const next = await ctx.step('add', async () => input.n + 1);
    await ctx.wait('pause', { days: 2 });
    return next;
  });
  const runner = new m.LocalDurableTestRunner({ handlerFunction: handler });
  const result = await runner.run({ payload: { n: 41 } });
  const run = { status: result.getStatus(), result: result.getResult(), invocations: result.getInvocationCount() };
  let store;
  try {
    new m.SqliteStore({ path: ':memory:' }).close();
    store = { opened: true };
  } catch (error) {
    store = { opened: false, name: error.name, code: error.code, message: error.message,
      isExported: error instanceof m.SqliteUnavailableError };
  }
  process.stdout.write(JSON.stringify({ hidden, exports: Object.keys(m).length, run, store }));
`;

const PROBES = {
  esm: `import { createRequire } from 'node:module';
    const req = createRequire(import.meta.url);
    const m = await import('@durable-lambda/local');
    const sdk = await import('@durable-lambda/sdk');
    ${PROBE_BODY}`,
  cjs: `const req = require;
    const m = require('@durable-lambda/local');
    const sdk = require('@durable-lambda/sdk');
    (async () => { ${PROBE_BODY} })().catch((error) => { console.error(error); process.exit(1); });`,
};
type Mode = keyof typeof PROBES;

/**
 * What the probe's process may not resolve: better-sqlite3 itself (not installed), `bindings` (the
 * module better-sqlite3 loads its addon with: installed, but its native part broken), or nothing.
 */
type Hidden = 'better-sqlite3' | 'bindings' | 'nothing';
const runs = new Map<string, ProcessResult>();
const key = (mode: Mode, hidden: Hidden) => `${mode}:${hidden}`;

async function probe(mode: Mode, hidden: Hidden): Promise<void> {
  const args = [
    ...(hidden === 'nothing' ? [] : ['--import', HIDE]),
    ...(mode === 'esm' ? ['--input-type=module'] : []),
  ];
  const env = { ...childEnv, HIDDEN_MODULES: hidden };
  runs.set(key(mode, hidden), await runProcess(process.execPath, [...args, '-e', PROBES[mode]], { cwd: root, env }));
}

const report = (mode: Mode, hidden: Hidden): Report => {
  const result = runs.get(key(mode, hidden));
  expect(result?.status, describeRun(result)).toBe(0);
  return JSON.parse(result?.stdout ?? '') as Report;
};
/** The store's refusal in a probe (the test fails when the store opened). */
const refusal = (mode: Mode, hidden: Hidden) => {
  const { store } = report(mode, hidden);
  if (store.opened) throw new Error(`a SqliteStore opened with ${hidden} hidden (${mode})`);
  return store;
};

/** Our packages that the local one pulls in. */
const OUR_PACKAGES = [...withDependencies('local')];

beforeAll(async () => {
  const stale = stalePackages(OUR_PACKAGES);
  if (stale.length > 0) {
    throw new Error(
      `the dist of ${stale.join(', ')} is missing or older than its sources: run \`npm run build\` first`,
    );
  }
  expect(existsSync(HIDE)).toBe(true);
  await settleAll(
    [
      ...(['esm', 'cjs'] as const).flatMap((mode) => [
        () => probe(mode, 'better-sqlite3'),
        () => probe(mode, 'nothing'),
      ]),
      () => probe('esm', 'bindings'),
    ],
    3,
  );
}, SETUP_TIMEOUT_MS);

describe.each(['esm', 'cjs'] as const)('the main entry, loaded as %s, with better-sqlite3 unresolvable', (mode) => {
  it('cannot reach better-sqlite3 from either resolver (the premise of the test)', () => {
    expect(report(mode, 'better-sqlite3').hidden).toEqual({ esm: true, cjs: true });
    expect(report(mode, 'nothing').hidden).toEqual({ esm: false, cjs: false });
  });

  it('imports, with every export, and its LocalDurableTestRunner runs a handler through a 2-day wait', () => {
    const without = report(mode, 'better-sqlite3');
    expect(without.exports).toBeGreaterThan(0);
    expect(without.exports).toBe(report(mode, 'nothing').exports);
    expect(without.run).toEqual({ status: 'SUCCEEDED', result: 42, invocations: 2 });
  });

  it('refuses the first SqliteStore with SqliteUnavailableError naming the package and the install command', () => {
    const store = refusal(mode, 'better-sqlite3');
    expect(store).toMatchObject({ name: 'SqliteUnavailableError', code: 'sqlite_unavailable', isExported: true });
    expect(store.message).toContain('better-sqlite3, which is not installed');
    expect(store.message).toContain('`npm install better-sqlite3`');
    expect(store.message).toContain('@durable-lambda/local/testing');
  });

  it('opens a SqliteStore when better-sqlite3 is installed (the control)', () => {
    expect(report(mode, 'nothing').store).toEqual({ opened: true });
  });
});

describe('the main entry where better-sqlite3 is installed but its addon cannot load', () => {
  it('imports, runs the test runner, and refuses the first SqliteStore naming `npm rebuild better-sqlite3`', () => {
    const broken = report('esm', 'bindings');
    expect(broken.hidden).toEqual({ esm: false, cjs: false });
    expect(broken.run).toEqual({ status: 'SUCCEEDED', result: 42, invocations: 2 });
    const store = refusal('esm', 'bindings');
    expect(store).toMatchObject({ name: 'SqliteUnavailableError', code: 'sqlite_unavailable', isExported: true });
    expect(store.message).toContain('better-sqlite3, which is installed but does not load here');
    expect(store.message).toContain('`npm rebuild better-sqlite3`');
  });
});
