/**
 * The packages as a user gets them (installed-app.ts: `npm pack` of every package, its `prepack`
 * copying the LICENSE in, the tarballs installed together into an app outside this repository, the
 * registry's way, no native module), and the READMEs' examples run there: the handler tests under
 * `node:test` and Jest, as ESM and as CommonJS, compiled by tsc against the published declarations,
 * and the scripts checked against the output their comments promise. There too, every entry of
 * every package is loaded with require() and import(), and type-checked as a strict consumer does,
 * ESM and CommonJS, nodenext and node10 (consumer-programs.ts), with only what the packages install:
 * no @types/better-sqlite3 among it.
 *
 * Everything slow (pack, install, load, compile, run) happens once, side by side where it can, in
 * `beforeAll`; the tests then read what it left. It reads dist: `npm run build` first (`npm test`
 * does), so no pack rebuilds a package under another test's feet.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stalePackages } from '../../scripts/stale-packages.mjs';
import {
  builtExample,
  type Entry,
  examplesFor,
  type Program,
  readTypeChecks,
  SYSTEMS,
  type TypeCheck,
  writePrograms,
} from './consumer-programs';
import {
  childEnv,
  describeRun,
  foreignPeers,
  type InstallLine,
  install,
  installLine,
  pack,
  run,
  type Tarball,
} from './installed-app';
import { readmeExamples } from './readme-examples';
import { PACKAGES, type Pkg, type ProcessResult, packageEntries, settleAll } from './support';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Pack, install, compile and run take one to three minutes on a loaded 2-core machine. */
const SETUP_TIMEOUT_MS = 20 * 60_000;

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
/** tsc's check and emit of consumer projects, several in one process. */
const checkTypes = fileURLToPath(new URL('./fixtures/check-consumer-types.mjs', import.meta.url));
const EXAMPLES = readmeExamples(root, [
  'packages/sdk/README.md',
  'packages/local/README.md',
  'packages/engine/README.md',
  'packages/protocol/README.md',
]);

const work = realpathSync(mkdtempSync(join(tmpdir(), 'durable-pack-')));
const app = join(work, 'app');
/** Where an installed package of ours lives in the app. */
const installed = (pkg: Pkg) => join(app, 'node_modules', '@durable-lambda', pkg);

let packed = new Map<Pkg, Tarball>();
let installLines: InstallLine[] = [];

/** A handler tested with the test runner, in the project that installed only the handlers line. */
const HANDLERS_CHECK = `import { withDurableExecution } from '@durable-lambda/sdk';
import { LocalDurableTestRunner } from '@durable-lambda/local/testing';
const handler = withDurableExecution(async (event, ctx) => {
  const next = await ctx.step('add', async () => event.n + 1);
  await ctx.wait('later', { days: 2 });
  return next;
});
const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run({ payload: { n: 41 } });
console.log(JSON.stringify({ status: result.getStatus(), result: result.getResult(), invocations: result.getInvocationCount() }));
`;
const results = new Map<string, ProcessResult>();
let typeChecks = new Map<Program, TypeCheck>();

/** Every entry of every package, from the packed manifests. */
const entriesOf = (tarballs: ReadonlyMap<Pkg, Tarball>): Entry[] =>
  PACKAGES.flatMap((pkg) =>
    packageEntries((tarballs.get(pkg) as Tarball).manifest).map((entry) => ({ pkg, ...entry })),
  );

/** What loading an entry in a fresh Node process showed. */
interface Probe {
  /** The file Node loaded for the entry, symlinks resolved. */
  file: string;
  /** The entry's export names, sorted. */
  names: string[];
}
const probes = new Map<string, Probe>();
const loads = new Map<string, ProcessResult>();

/**
 * Loads every entry of every package in the app, with require() and with import(), a fresh Node
 * process each: an entry must load alone, not because another one loaded something first.
 */
async function loadEntries(entries: readonly Entry[]): Promise<void> {
  const scripts = {
    cjs: (id: string) => `const m = require(${JSON.stringify(id)});
      const file = require('node:fs').realpathSync(require.resolve(${JSON.stringify(id)}));
      process.stdout.write(JSON.stringify({ file, names: Object.keys(m).sort() }));`,
    esm: (id: string) => `import { realpathSync } from 'node:fs';
      import { fileURLToPath } from 'node:url';
      const m = await import(${JSON.stringify(id)});
      const file = realpathSync(fileURLToPath(import.meta.resolve(${JSON.stringify(id)})));
      process.stdout.write(JSON.stringify({ file, names: Object.keys(m).sort() }));`,
  };
  const jobs = entries.flatMap(({ id }) =>
    (['cjs', 'esm'] as const).map((system) => async () => {
      const args = system === 'cjs' ? ['-e', scripts.cjs(id)] : ['--input-type=module', '-e', scripts.esm(id)];
      const result = await run(process.execPath, args, app);
      loads.set(`${system}:${id}`, result);
      if (result.status === 0) probes.set(`${system}:${id}`, JSON.parse(result.stdout) as Probe);
    }),
  );
  await settleAll(jobs, 4);
}
const probed = (id: string, system: 'cjs' | 'esm') => {
  const found = probes.get(`${system}:${id}`);
  if (!found) throw new Error(`${system} ${id} did not load: ${describeRun(loads.get(`${system}:${id}`))}`);
  return found;
};

/** The type programs (consumer-programs.ts), in one process; they emit the examples too. */
async function compile(entries: readonly Entry[]): Promise<void> {
  const names = (entry: Entry) => probes.get(`cjs:${entry.id}`)?.names ?? [];
  const args = writePrograms(app, entries, names, EXAMPLES);
  typeChecks = readTypeChecks(app, await run(process.execPath, [checkTypes, ...args], app));
}

async function runExamples(): Promise<void> {
  const jest = join(work, 'node_modules', 'jest', 'bin', 'jest.js');
  const jobs = SYSTEMS.flatMap((system) =>
    examplesFor(EXAMPLES, system.name)
      .filter((example) => example.kind !== 'module')
      .map((example) => async () => {
        const file = builtExample(app, system.name, example);
        const cwd = dirname(file);
        const key = `${system.name}:${example.file}`;
        if (!existsSync(file)) {
          results.set(key, { status: null, stdout: '', stderr: `${file} was not emitted (see the tsc test)` });
        } else if (example.kind === 'script') {
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

beforeAll(async () => {
  const stale = stalePackages(PACKAGES);
  if (stale.length > 0) {
    throw new Error(
      `the dist of ${stale.join(', ')} is missing or older than its sources: run \`npm run build\` first`,
    );
  }
  let lines: InstallLine[];
  ({ packed, lines } = await pack(root, work));
  installLines = lines;
  // The line `npm run pack` prints for writing and testing handlers, alone, in an empty project,
  // beside the app that installs every tarball.
  const handlersLine = lines.find((line) => line.packages.includes('local'));
  const [all, handlers] = await Promise.all([
    install(root, work, packed),
    handlersLine
      ? installLine(work, 'handlers-app', handlersLine.command)
      : Promise.resolve({ status: null, stdout: '', stderr: 'npm run pack printed no line with the test runner' }),
  ]);
  results.set('install', all);
  results.set('install handlers line', handlers);
  if (handlers.status === 0) {
    writeFileSync(join(work, 'handlers-app', 'check.mjs'), HANDLERS_CHECK);
    results.set('handlers line runs', await run(process.execPath, ['check.mjs'], join(work, 'handlers-app')));
  }
  // The binary a user runs, as they run it: npx finds it in the app's node_modules/.bin.
  results.set('npx durable help', await run('npx', ['--no-install', 'durable', 'help'], app));
  const entries = entriesOf(packed);
  // The type programs import each entry's runtime exports by name: the probes' names.
  await loadEntries(entries);
  await compile(entries);
  await runExamples();
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

describe('npm run pack: the install lines it prints', () => {
  it('prints a line per purpose, each naming every tarball its packages need (installed apart, a sibling is looked up on the registry)', () => {
    expect(installLines.map((line) => line.packages)).toEqual([
      ['protocol', 'sdk', 'engine', 'api', 'local'],
      ['protocol', 'sdk', 'engine', 'api', 'local', 'aws', 'cli'],
      ['protocol', 'sdk', 'engine', 'api', 'aws', 'cdk'],
      ['protocol', 'sdk', 'otel'],
    ]);
    for (const line of installLines) {
      expect(line.command).toBe(`npm install ${line.packages.map((pkg) => tarball(pkg).file).join(' ')}`);
      for (const pkg of line.packages) {
        for (const dep of Object.keys(tarball(pkg).manifest.dependencies ?? {})) {
          if (dep.startsWith('@durable-lambda/'))
            expect(line.packages, `${line.purpose}: ${pkg} needs ${dep}`).toContain(dep.slice(16));
        }
      }
    }
  });

  it('the line for handlers and their tests installs in an empty project, and a handler runs there on the test runner', () => {
    const installed = results.get('install handlers line');
    expect(installed?.status, describeRun(installed)).toBe(0);
    const ran = results.get('handlers line runs');
    expect(ran?.status, describeRun(ran)).toBe(0);
    expect(JSON.parse(ran?.stdout ?? '{}')).toEqual({ status: 'SUCCEEDED', result: 42, invocations: 2 });
  });
});

describe('the durable binary', () => {
  it('ships in @durable-lambda/cli (not in @durable-lambda/api), and `npx durable` runs it from the installed package', () => {
    expect(tarball('cli').manifest.bin).toEqual({ durable: './bin/durable.mjs' });
    expect(tarball('cli').files).toContain('bin/durable.mjs');
    expect(tarball('api').manifest.bin).toBeUndefined();
    expect(tarball('api').files.filter((file) => file.startsWith('bin/'))).toEqual([]);
    expect(realpathSync(join(app, 'node_modules', '.bin', 'durable'))).toBe(
      join(installed('cli'), 'bin', 'durable.mjs'),
    );
    const help = results.get('npx durable help');
    expect(help?.status, describeRun(help)).toBe(0);
    expect(help?.stdout).toMatch(/^Usage: durable/);
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
    // The peers are not in the app (installed with --omit=peer): their copies are linked one folder
    // up, and Node resolves what they import from where the links point, this repository.
    const folderOf = (dir: string) => [app, work, root].map((at) => join(at, dir)).find((at) => existsSync(at)) ?? dir;
    for (const dir of closure) expect(existsSync(folderOf(dir)), `${dir} is installed`).toBe(true);
    const addons = closure.flatMap((dir) => addonsIn(folderOf(dir)));
    expect(addons).toEqual([]);
  });

  it('resolved the peer dependencies a consumer provides, and the copies one folder up are the versions npm chose', () => {
    const lock = readJson(join(app, 'package-lock.json')) as {
      packages: Record<string, { version?: string; peer?: boolean }>;
    };
    const peers = foreignPeers(packed);
    expect(peers).toEqual(expect.arrayContaining(['aws-cdk-lib', 'constructs']));
    for (const name of peers) {
      const locked = lock.packages[`node_modules/${name}`];
      expect(locked, `the lockfile resolves ${name}`).toMatchObject({ peer: true });
      expect(readJson(join(work, 'node_modules', name, 'package.json')).version, name).toBe(locked?.version);
      expect(existsSync(join(app, 'node_modules', name)), `${name} left out of the app`).toBe(false);
    }
  });

  describe.each(
    PACKAGES.flatMap((pkg) =>
      packageEntries(readJson(join(root, 'packages', pkg, 'package.json'))).map(
        (entry) => [entry.id, { pkg, ...entry }] as const,
      ),
    ),
  )('%s, loaded in a fresh Node process (the optional better-sqlite3 left out: no entry loads it)', (id, entry) => {
    it(`require() loads dist/${entry.dist}.cjs and import() loads dist/${entry.dist}.js of the installed package`, () => {
      expect(probed(id, 'cjs').file).toBe(join(installed(entry.pkg), 'dist', `${entry.dist}.cjs`));
      expect(probed(id, 'esm').file).toBe(join(installed(entry.pkg), 'dist', `${entry.dist}.js`));
    });

    it('exposes the same non-empty set of exports to CommonJS and ESM consumers', () => {
      const esm = probed(id, 'esm').names;
      expect(probed(id, 'cjs').names).toEqual(esm);
      expect(esm.length, `${id} exports nothing at runtime`).toBeGreaterThan(0);
    });
  });

  it.each([
    ['consumers', ['d.ts', 'd.cts']],
    ['node10', ['d.cts']],
  ] as const)(
    '%s: resolves every entry through node_modules to its installed dist types, and they check with tsc',
    (program, declarations) => {
      const { status, stdout, files } = typeChecks.get(program) ?? { status: null, stdout: 'not run', files: [] };
      expect(status, `tsc on ${program} failed:\n${stdout}`).toBe(0);
      for (const entry of entriesOf(packed)) {
        for (const extension of declarations) {
          const expected = join(installed(entry.pkg), 'dist', `${entry.dist}.${extension}`);
          expect(files, `${program} should load ${expected}`).toContain(expected);
        }
      }
      // Published sources and this repository's are both out of a consumer's reach.
      const sources = files.filter(
        (file) =>
          /[\\/]@durable-lambda[\\/][^\\/]+[\\/]src[\\/]/.test(file) || file.startsWith(join(root, 'packages') + sep),
      );
      expect(sources, `${program} must not see package sources`).toEqual([]);
    },
  );

  it.each(SYSTEMS.map((system) => [system.name] as const))(
    'compiles the READMEs’ examples as %s with tsc',
    (system) => {
      const result = typeChecks.get('consumers');
      expect(result?.status, describeRun(result)).toBe(0);
      for (const example of examplesFor(EXAMPLES, system)) {
        expect(existsSync(builtExample(app, system, example)), `${example.file} emitted`).toBe(true);
      }
    },
  );

  const runnable = SYSTEMS.flatMap((system) =>
    examplesFor(EXAMPLES, system.name)
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

describe('the published declarations, for a consumer without @types/better-sqlite3', () => {
  it('cannot resolve better-sqlite3 in the consumer app (the premise of the test)', () => {
    const { resolved } = typeChecks.get('consumers') ?? { resolved: {} };
    expect(resolved).toEqual({
      'better-sqlite3': null,
      '@durable-lambda/local': join(installed('local'), 'dist', 'index.d.cts'),
    });
  });

  it('type-check, ESM and CommonJS, every entry, with skipLibCheck off, and never load its types', () => {
    const result = typeChecks.get('consumers');
    expect(result?.status, describeRun(result)).toBe(0);
    for (const dist of ['index.d.ts', 'index.d.cts', 'testing.d.ts', 'testing.d.cts']) {
      expect(result?.files, `loads dist/${dist}`).toContain(join(installed('local'), 'dist', dist));
    }
    expect(result?.files.filter((file) => file.includes('better-sqlite3'))).toEqual([]);
  });
});
