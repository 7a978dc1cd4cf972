/**
 * The packages as a user gets them: `npm pack` of every package (its `prepack` copies the LICENSE in),
 * the tarballs installed together into an app in the system's temp folder, outside this repository
 * (the registry's layout: our packages only from the tarballs, the rest from the npm cache, optional
 * dependencies left out, so no native module), and the READMEs' examples run there: the handler
 * tests under `node:test` and Jest, as ESM and as CommonJS, compiled by tsc against the published
 * declarations, and the scripts checked against the output their comments promise.
 *
 * The tools (tsc, Jest, @types/node) sit one folder up, as a workspace root would hoist them: links
 * to this repository's copies, with their own optional dependencies (Jest's resolver needs its
 * native binding). Installing them afresh took a second npm install of ~300 packages per run.
 *
 * Everything slow (pack, install, compile, run) happens once, side by side where it can, in
 * `beforeAll`; the tests then read what it left. It reads dist: `npm run build` first (`npm test`
 * does), so no pack rebuilds a package under another test's feet.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stalePackages } from '../../scripts/stale-packages.mjs';
import { type ReadmeExample, readmeExamples } from './readme-examples';
import { PACKAGES, type Pkg, type ProcessResult, packageEntries, runProcess, settleAll } from './support';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Pack, install, compile and run take one to three minutes on a loaded 2-core machine. */
const SETUP_TIMEOUT_MS = 20 * 60_000;
/** A single child process (one npm install, one test file) gets this long before it is killed. */
const PROCESS_TIMEOUT_MS = 10 * 60_000;

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
/** tsc's check and emit of consumer projects, several in one process. */
const checkTypes = fileURLToPath(new URL('./fixtures/check-consumer-types.mjs', import.meta.url));
/** The tools above the app: this repository's own copies (see `linkTools`). */
const APP_TOOLS = ['typescript', '@types/node', 'jest', '@jest/globals'];
const EXAMPLES = readmeExamples(root, [
  'packages/sdk/README.md',
  'packages/local/README.md',
  'packages/engine/README.md',
  'packages/protocol/README.md',
]);

/** Child processes: no loaders or flags inherited from the test runner, no repository above them. */
const childEnv: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
const run = (command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = childEnv) =>
  runProcess(command, args, { cwd, env, timeoutMs: PROCESS_TIMEOUT_MS });
const describeRun = (result: ProcessResult | undefined) =>
  result ? `exit ${result.status}\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}` : 'not run';

const work = mkdtempSync(join(tmpdir(), 'durable-pack-'));
const tarballs = join(work, 'tarballs');
const app = join(work, 'app');

interface Tarball {
  file: string;
  /** The files it holds, relative to its package folder. */
  files: string[];
  /** Its package.json, as packed. */
  manifest: Record<string, unknown> & {
    name: string;
    version: string;
    exports: Record<string, unknown>;
    dependencies?: Record<string, string>;
  };
}
const packed = new Map<Pkg, Tarball>();
const results = new Map<string, ProcessResult>();
const loads = new Map<string, ProcessResult>();

/** The two module systems the examples are compiled to: a folder each, with its package.json `type`. */
const SYSTEMS = [
  { name: 'esm', type: 'module' },
  { name: 'cjs', type: 'commonjs' },
] as const;
type System = (typeof SYSTEMS)[number]['name'];
/** Scripts may use top-level await: ESM only. Tests and the modules they import: both. */
const examplesFor = (system: System) => EXAMPLES.filter((e) => system === 'esm' || e.kind !== 'script');
const built = (system: System, example: ReadmeExample) =>
  join(app, system, 'build', example.file.replace(/\.ts$/, '.js'));

async function pack(): Promise<void> {
  mkdirSync(tarballs, { recursive: true });
  const result = await run(
    'npm',
    ['pack', '--json', '--pack-destination', tarballs, ...PACKAGES.flatMap((pkg) => ['-w', `packages/${pkg}`])],
    root,
  );
  if (result.status !== 0) throw new Error(`npm pack failed: ${describeRun(result)}`);
  const listed = JSON.parse(result.stdout) as Array<{ name: string; filename: string; files: { path: string }[] }>;
  for (const pkg of PACKAGES) {
    const entry = listed.find((item) => item.name === `@durable-lambda/${pkg}`);
    if (!entry) throw new Error(`npm pack did not pack @durable-lambda/${pkg}`);
    const file = join(tarballs, entry.filename);
    const unpacked = join(work, 'unpacked', pkg);
    mkdirSync(unpacked, { recursive: true });
    const tar = await run('tar', ['-xzf', file, '-C', unpacked], work);
    if (tar.status !== 0) throw new Error(`tar -xzf ${file} failed: ${describeRun(tar)}`);
    packed.set(pkg, {
      file,
      files: entry.files.map((f) => f.path),
      manifest: readJson(join(unpacked, 'package', 'package.json')),
    });
  }
}

/** npm install in `dir` (a fresh package.json named `name`), of `specs`, with `flags`. */
async function npmInstall(key: string, dir: string, name: string, flags: string[], specs: string[]): Promise<void> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name, private: true }, null, 2)}\n`);
  const args = ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...flags, ...specs];
  const result = await run('npm', args, dir);
  results.set(key, result);
  if (result.status !== 0) throw new Error(`npm install in ${dir} failed: ${describeRun(result)}`);
}

/**
 * The tools one folder up, as a workspace root hoists them: links to this repository's own copies
 * (the versions it uses, with their dependencies and Jest's native resolver binding where the
 * repository installed them). Nothing of ours comes through them: the app's imports of
 * `@durable-lambda/*` resolve from the app's own node_modules, filled from the tarballs only.
 */
function linkTools(): void {
  for (const name of APP_TOOLS) {
    const target = join(root, 'node_modules', name);
    if (!existsSync(join(target, 'package.json'))) throw new Error(`${name} is not installed in ${root}/node_modules`);
    const link = join(work, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(target, link, 'dir');
  }
}

/** Our tarballs into the app (no optional dependency), and the tools one folder up. */
async function install(): Promise<void> {
  linkTools();
  const tarballFiles = PACKAGES.map((pkg) => packed.get(pkg)?.file ?? '');
  await npmInstall('install', app, 'pack-test-app', ['--omit=optional'], tarballFiles);
}

/**
 * A file importing every entry but the CDK one, so tsc checks their published declarations as a
 * strict consumer does (skipLibCheck off), with only what the packages install. The CDK's declarations, which pull in aws-cdk-lib's, are checked by
 * dist-packages.test.ts.
 */
function entriesSource(): string {
  const ids = PACKAGES.filter((pkg) => pkg !== 'cdk').flatMap((pkg) =>
    packageEntries((packed.get(pkg) as Tarball).manifest).map((entry) => entry.id),
  );
  const lines = ids.map((id, index) => `import * as entry${index} from '${id}';`);
  return `${lines.join('\n')}\nexport const entries = [${ids.map((_, index) => `entry${index}`).join(', ')}];\n`;
}

/**
 * Both systems' programs in one process (fixtures/check-consumer-types.mjs: tsc's check and emit,
 * with our installed declarations checked in full where the ESM program has skipLibCheck off).
 */
async function compileExamples(): Promise<void> {
  const dirs = SYSTEMS.map((system) => {
    const dir = join(app, system.name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ type: system.type }, null, 2)}\n`);
    const tsconfig = {
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        lib: ['es2023'],
        types: ['node'],
        strict: true,
        // The ESM program checks the published declarations (entries.ts imports them all); the
        // CommonJS one only the examples (dist-packages.test.ts checks the .d.cts declarations).
        skipLibCheck: system.name === 'cjs',
        outDir: 'build',
        rootDir: '.',
      },
      include: ['*.ts'],
    };
    writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
    for (const example of examplesFor(system.name)) writeFileSync(join(dir, example.file), example.source);
    if (system.name === 'esm') writeFileSync(join(dir, 'entries.ts'), entriesSource());
    return dir;
  });
  const result = await run(process.execPath, [checkTypes, join(app, 'node_modules', '@durable-lambda'), ...dirs], app);
  const reports = result.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { project: string; errors: string });
  SYSTEMS.forEach((system, index) => {
    const report = reports.find((r) => r.project === dirs[index]);
    results.set(
      `tsc:${system.name}`,
      report ? { status: report.errors === '' ? 0 : 1, stdout: report.errors, stderr: '' } : result,
    );
  });
}

async function runExamples(): Promise<void> {
  const jest = join(work, 'node_modules', 'jest', 'bin', 'jest.js');
  const jobs = SYSTEMS.flatMap((system) =>
    examplesFor(system.name)
      .filter((example) => example.kind !== 'module')
      .map((example) => async () => {
        const file = built(system.name, example);
        const cwd = dirname(file);
        const key = `${system.name}:${example.file}`;
        if (example.kind === 'script') {
          results.set(key, await run(process.execPath, [file], cwd));
        } else if (example.kind === 'node-test') {
          results.set(key, await run(process.execPath, ['--test', file], cwd));
        } else {
          const env = system.name === 'esm' ? { ...childEnv, NODE_OPTIONS: '--experimental-vm-modules' } : childEnv;
          const args = [jest, '--ci', '--testTimeout=120000', '--config={"transform":{}}', '--runTestsByPath', file];
          results.set(key, await run(process.execPath, args, cwd, env));
        }
      }),
  );
  await settleAll(jobs, 2);
}

/** Loads every entry of every package in the app, with require() and with import(). */
async function loadEntries(): Promise<void> {
  const jobs = PACKAGES.flatMap((pkg) =>
    packageEntries((packed.get(pkg) as Tarball).manifest).flatMap((entry) => [
      async () => {
        const script = `const m = require(${JSON.stringify(entry.id)}); console.log(Object.keys(m).length);`;
        loads.set(`cjs:${entry.id}`, await run(process.execPath, ['-e', script], app));
      },
      async () => {
        const script = `const m = await import(${JSON.stringify(entry.id)}); console.log(Object.keys(m).length);`;
        loads.set(`esm:${entry.id}`, await run(process.execPath, ['--input-type=module', '-e', script], app));
      },
    ]),
  );
  await settleAll(jobs, 4);
}

beforeAll(async () => {
  const stale = stalePackages(PACKAGES);
  if (stale.length > 0) {
    throw new Error(
      `the dist of ${stale.join(', ')} is missing or older than its sources: run \`npm run build\` first`,
    );
  }
  await pack();
  await install();
  await Promise.all([compileExamples().then(runExamples), loadEntries()]);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
}, SETUP_TIMEOUT_MS);

const tarball = (pkg: Pkg) => {
  const found = packed.get(pkg);
  if (!found) throw new Error(`@durable-lambda/${pkg} was not packed (the setup failed: see its error)`);
  return found;
};

type LockPackages = Record<
  string,
  { dependencies?: Record<string, string>; peerDependencies?: Record<string, string> }
>;

/** The lockfile folders (`node_modules/...`) of our packages and of everything they depend on. */
function dependencyClosure(packages: LockPackages): string[] {
  const seen = new Set<string>();
  const visit = (dir: string) => {
    if (seen.has(dir) || !packages[dir]) return;
    seen.add(dir);
    const { dependencies = {}, peerDependencies = {} } = packages[dir];
    for (const name of Object.keys({ ...dependencies, ...peerDependencies })) {
      // Node's lookup: the nearest node_modules folder above the dependent that has it.
      let base = dir;
      for (;;) {
        const candidate = `${base}/node_modules/${name}`;
        if (packages[candidate]) {
          visit(candidate);
          break;
        }
        const up = base.lastIndexOf('/node_modules/');
        if (up === -1) {
          visit(`node_modules/${name}`);
          break;
        }
        base = base.slice(0, up);
      }
    }
  };
  for (const pkg of PACKAGES) visit(`node_modules/@durable-lambda/${pkg}`);
  return [...seen];
}

/** The native addons (`*.node`) in a package folder, its own nested node_modules left out. */
function addonsIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : addonsIn(join(dir, entry.name));
    return entry.name.endsWith('.node') ? [join(dir, entry.name)] : [];
  });
}

/** Every file path named by a package.json `exports` value (conditions nested at any depth). */
function exportTargets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(exportTargets);
  return [];
}

describe.each(PACKAGES)('the @durable-lambda/%s tarball', (pkg) => {
  it('holds its LICENSE (Apache-2.0), its README and every file its manifest names', () => {
    const { files, manifest } = tarball(pkg);
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json']));
    expect(readFileSync(join(work, 'unpacked', pkg, 'package', 'LICENSE'), 'utf8')).toBe(
      readFileSync(join(root, 'LICENSE'), 'utf8'),
    );
    const named = [...exportTargets(manifest.exports), manifest.main, manifest.module, manifest.types];
    for (const target of named) {
      expect(typeof target).toBe('string');
      expect(files, `${pkg} names ${String(target)}`).toContain(String(target).replace(/^\.\//, ''));
    }
  });

  it('declares what a registry shows and a consumer needs: description, repository, engines, sideEffects, types', () => {
    const { manifest } = tarball(pkg);
    expect(manifest.license).toBe('Apache-2.0');
    expect(typeof manifest.description === 'string' && manifest.description.length > 20).toBe(true);
    expect(manifest.repository).toMatchObject({ type: 'git', directory: `packages/${pkg}` });
    expect(manifest.engines).toEqual({ node: '>=20' });
    expect(manifest.sideEffects === false || Array.isArray(manifest.sideEffects)).toBe(true);
    for (const entry of packageEntries(manifest)) {
      expect(manifest.exports[entry.subpath], `exports["${entry.subpath}"]`).toEqual({
        import: { types: `./dist/${entry.dist}.d.ts`, default: `./dist/${entry.dist}.js` },
        require: { types: `./dist/${entry.dist}.d.cts`, default: `./dist/${entry.dist}.cjs` },
      });
    }
  });

  it('depends on our other packages by their exact version, never through a file or workspace link', () => {
    const { manifest } = tarball(pkg);
    const sections = ['dependencies', 'optionalDependencies', 'peerDependencies'] as const;
    for (const section of sections) {
      const deps = (manifest[section] ?? {}) as Record<string, string>;
      for (const [name, spec] of Object.entries(deps)) {
        expect(spec, `${section}.${name}`).not.toMatch(/^(file|link|workspace|git|https?):/);
        if (name.startsWith('@durable-lambda/')) {
          const sibling = tarball(name.slice('@durable-lambda/'.length) as Pkg).manifest.version;
          expect(spec, `${section}.${name}`).toBe(sibling);
        }
      }
    }
  });
});

describe('an app outside the repository, installed from the tarballs', () => {
  it('got our packages from the tarballs, and no native module (better-sqlite3 is optional)', () => {
    expect(results.get('install')?.status, describeRun(results.get('install'))).toBe(0);
    const lock = readJson(join(app, 'package-lock.json')) as {
      packages: LockPackages & Record<string, { resolved?: string }>;
    };
    for (const pkg of PACKAGES) {
      const resolved = lock.packages[`node_modules/@durable-lambda/${pkg}`]?.resolved ?? '';
      expect(resolved, pkg).toMatch(new RegExp(`^file:.*durable-lambda-${pkg}-[\\d.]+\\.tgz$`));
    }
    expect(existsSync(join(app, 'node_modules', 'better-sqlite3'))).toBe(false);
    // Native addons anywhere in what our packages pull in (the test tools' own, Jest's, do not count).
    const closure = dependencyClosure(lock.packages);
    for (const pkg of PACKAGES) {
      for (const dep of Object.keys(tarball(pkg).manifest.dependencies ?? {})) {
        expect(
          closure.some((dir) => dir.endsWith(`node_modules/${dep}`)),
          `${pkg} needs ${dep}`,
        ).toBe(true);
      }
    }
    const addons = closure.flatMap((dir) => addonsIn(join(app, dir)));
    expect(addons).toEqual([]);
  });

  it.each(
    PACKAGES.flatMap((pkg) =>
      packageEntries(readJson(join(root, 'packages', pkg, 'package.json'))).map((entry) => [entry.id] as const),
    ),
  )('loads %s with require() and import() (the optional better-sqlite3 left out: no entry loads it)', (id) => {
    for (const system of ['cjs', 'esm']) {
      const result = loads.get(`${system}:${id}`);
      expect(result?.status, `${system} ${id}: ${describeRun(result)}`).toBe(0);
      expect(Number(result?.stdout.trim())).toBeGreaterThan(0);
    }
  });

  it.each(SYSTEMS.map((system) => [system.name] as const))(
    'compiles the READMEs’ examples as %s with tsc',
    (system) => {
      const result = results.get(`tsc:${system}`);
      expect(result?.status, describeRun(result)).toBe(0);
    },
  );

  const runnable = SYSTEMS.flatMap((system) =>
    examplesFor(system.name)
      .filter((example) => example.kind !== 'module')
      .map((example) => [example.readme, example.file, example.kind, system.name, example] as const),
  );
  it('finds the quick start and the runner examples in the READMEs', () => {
    const kinds = new Set(EXAMPLES.map((example) => example.kind));
    expect([...kinds].sort()).toEqual(['jest', 'module', 'node-test', 'script']);
  });

  it.each(runnable)('%s: %s passes (%s, %s)', (_readme, _file, kind, system, example) => {
    const result = results.get(`${system}:${example.file}`);
    expect(result?.status, describeRun(result)).toBe(0);
    if (kind === 'script') {
      expect(result?.stdout.trimEnd().split('\n')).toEqual(example.expectedOutput);
    } else if (kind === 'jest') {
      expect(result?.stderr).toMatch(/Tests:\s+\d+ passed, \d+ total/);
    } else {
      expect(result?.stdout).toMatch(/# pass [1-9]/);
      expect(result?.stdout).toContain('# fail 0');
    }
  });
});
