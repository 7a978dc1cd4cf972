/**
 * The built packages work for real consumers: ESM and CommonJS, at runtime and for types.
 *
 * Unlike the other tests (which vitest aliases to the TypeScript sources), this one looks only at what
 * `npm run build` left in packages/<name>/dist, reached the way a user reaches it: through
 * node_modules/@durable-lambda/<name> (workspace symlinks) and each package.json's `exports`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PACKAGES = ['protocol', 'sdk', 'engine', 'local', 'api', 'aws', 'cdk'] as const;
type Pkg = (typeof PACKAGES)[number];

const pkgDir = (pkg: Pkg) => join(root, 'packages', pkg);
const readManifest = (pkg: Pkg) => JSON.parse(readFileSync(join(pkgDir(pkg), 'package.json'), 'utf8'));
/** Environment for child processes: no loaders or flags inherited from the test runner. */
const childEnv = { ...process.env, NODE_OPTIONS: '' };

/** Every file path named by a package.json `exports` value (conditions nested at any depth). */
function exportTargets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(exportTargets);
  if (value && typeof value === 'object') return Object.values(value).flatMap(exportTargets);
  return [];
}

interface Probe {
  /** The file Node loaded for the package, symlinks resolved. */
  file: string;
  /** The package's export names, sorted. */
  names: string[];
}

/** Loads the package in a fresh Node process, as `require()` or as `import()`, from the repo root. */
function probe(pkg: Pkg, mode: 'cjs' | 'esm'): Probe {
  const id = `@durable-lambda/${pkg}`;
  const script =
    mode === 'cjs'
      ? `const m = require(${JSON.stringify(id)});
         const file = require('node:fs').realpathSync(require.resolve(${JSON.stringify(id)}));
         process.stdout.write(JSON.stringify({ file, names: Object.keys(m).sort() }));`
      : `import { realpathSync } from 'node:fs';
         import { fileURLToPath } from 'node:url';
         const m = await import(${JSON.stringify(id)});
         const file = realpathSync(fileURLToPath(import.meta.resolve(${JSON.stringify(id)})));
         process.stdout.write(JSON.stringify({ file, names: Object.keys(m).sort() }));`;
  const args = mode === 'cjs' ? ['-e', script] : ['--input-type=module', '-e', script];
  const result = spawnSync(process.execPath, args, { cwd: root, env: childEnv, encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`${mode === 'cjs' ? 'require' : 'import'}('${id}') failed:\n${result.stderr}`);
  }
  return JSON.parse(result.stdout) as Probe;
}

const probes = new Map<string, Probe>();
const probed = (pkg: Pkg, mode: 'cjs' | 'esm') => {
  const key = `${pkg}:${mode}`;
  let found = probes.get(key);
  if (!found) {
    found = probe(pkg, mode);
    probes.set(key, found);
  }
  return found;
};

beforeAll(() => {
  const missing = PACKAGES.flatMap((pkg) =>
    ['index.js', 'index.cjs', 'index.d.ts', 'index.d.cts']
      .map((file) => join(pkgDir(pkg), 'dist', file))
      .filter((file) => !existsSync(file)),
  );
  if (missing.length > 0) {
    throw new Error(
      `The packaging test needs the built packages; run \`npm run build\` first.\nMissing:\n  ${missing
        .map((file) => relative(root, file))
        .join('\n  ')}`,
    );
  }
});

describe.each(PACKAGES)('@durable-lambda/%s dist', (pkg) => {
  it('has package.json exports, main, module and types pointing at existing files', () => {
    const manifest = readManifest(pkg);
    const targets = [...exportTargets(manifest.exports), manifest.main, manifest.module, manifest.types];
    expect(exportTargets(manifest.exports)).toEqual(
      expect.arrayContaining(['./dist/index.js', './dist/index.cjs', './dist/index.d.ts', './dist/index.d.cts']),
    );
    for (const target of targets) {
      expect(typeof target, `a target in ${pkg}/package.json`).toBe('string');
      expect(existsSync(join(pkgDir(pkg), target)), `${pkg}/package.json points at ${target}`).toBe(true);
    }
  });

  it('require() loads dist/index.cjs and import() loads dist/index.js through node_modules', () => {
    expect(probed(pkg, 'cjs').file).toBe(join(pkgDir(pkg), 'dist', 'index.cjs'));
    expect(probed(pkg, 'esm').file).toBe(join(pkgDir(pkg), 'dist', 'index.js'));
  });

  it('exposes the same non-empty set of exports to CommonJS and ESM consumers', () => {
    const cjs = probed(pkg, 'cjs').names;
    const esm = probed(pkg, 'esm').names;
    expect(cjs).toEqual(esm);
    expect(esm.length, `@durable-lambda/${pkg} exports nothing at runtime`).toBeGreaterThan(0);
  });

  it('bundles only its own sources (sibling packages stay external imports)', () => {
    for (const file of ['index.js.map', 'index.cjs.map']) {
      const map = JSON.parse(readFileSync(join(pkgDir(pkg), 'dist', file), 'utf8')) as { sources: string[] };
      const foreign = map.sources
        .map((source) => resolve(pkgDir(pkg), 'dist', source))
        .filter((source) => !source.startsWith(join(pkgDir(pkg), 'src') + sep));
      expect(foreign, `dist/${file} of ${pkg}`).toEqual([]);
    }
  });
});

describe('type consumers (tsc on fixtures in .artifacts/consumers)', () => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const consumersDir = join(root, '.artifacts', 'consumers');

  /** One fixture: imports every runtime export, by name, of every package, plus the namespace. */
  const fixtureSource = (style: 'import' | 'import-equals') => {
    const lines = PACKAGES.flatMap((pkg) => {
      const id = `@durable-lambda/${pkg}`;
      const names = probed(pkg, 'cjs').names.map((name) => `${name} as ${pkg}_${name}`);
      return [
        style === 'import' ? `import * as ${pkg} from '${id}';` : `import ${pkg} = require('${id}');`,
        ...(names.length > 0 ? [`import { ${names.join(', ')} } from '${id}';`] : []),
      ];
    });
    return `${lines.join('\n')}\n`;
  };

  const fixtures = [
    {
      name: 'esm-nodenext',
      file: 'index.mts',
      declarations: 'index.d.ts',
      source: () => fixtureSource('import'),
      compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' },
    },
    {
      name: 'cjs-nodenext',
      file: 'index.cts',
      declarations: 'index.d.cts',
      source: () => fixtureSource('import-equals'),
      compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' },
    },
    {
      // Older CommonJS setups ignore `exports` and read the top-level `types` field.
      name: 'cjs-node10',
      file: 'index.ts',
      declarations: 'index.d.cts',
      source: () => fixtureSource('import'),
      compilerOptions: { module: 'commonjs', moduleResolution: 'node10' },
    },
  ];

  const runTsc = (project: string) =>
    new Promise<{ status: number | null; output: string }>((done, fail) => {
      const child = spawn(process.execPath, [tsc, '-p', project, '--listFiles'], { cwd: root, env: childEnv });
      let output = '';
      child.stdout.on('data', (chunk) => {
        output += chunk;
      });
      child.stderr.on('data', (chunk) => {
        output += chunk;
      });
      child.on('error', fail);
      child.on('close', (status) => done({ status, output }));
    });

  it('resolve every package through node_modules to the dist types, for ESM and CommonJS', async () => {
    rmSync(consumersDir, { recursive: true, force: true });
    for (const fixture of fixtures) {
      const dir = join(consumersDir, fixture.name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, fixture.file), fixture.source());
      // Standalone tsconfig (no `extends`): no `paths`, so nothing can reach packages/*/src.
      const tsconfig = {
        compilerOptions: {
          ...fixture.compilerOptions,
          target: 'es2022',
          lib: ['es2023'],
          types: ['node'],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          esModuleInterop: true,
        },
        files: [fixture.file],
      };
      writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
    }

    const results = await Promise.all(fixtures.map((fixture) => runTsc(join(consumersDir, fixture.name))));

    fixtures.forEach((fixture, index) => {
      const { status, output } = results[index] ?? { status: null, output: '' };
      expect(status, `tsc on .artifacts/consumers/${fixture.name} failed:\n${output}`).toBe(0);
      const files = output.split('\n').map((line) => line.trim());
      for (const pkg of PACKAGES) {
        expect(files, `${fixture.name} should load ${pkg}'s dist/${fixture.declarations}`).toContain(
          join(pkgDir(pkg), 'dist', fixture.declarations),
        );
      }
      const sources = files.filter(
        (file) => file.startsWith(join(root, 'packages')) && file.includes(`${sep}src${sep}`),
      );
      expect(sources, `${fixture.name} must not see package sources`).toEqual([]);
    });
  }, 60_000);
});
