/**
 * The built packages work for real consumers: ESM and CommonJS, at runtime and for types, for every
 * entry (`@durable-lambda/local/testing` too).
 *
 * Unlike the other tests (which vitest aliases to the TypeScript sources), this one looks only at what
 * `npm run build` left in packages/<name>/dist, reached the way a user reaches it: through
 * node_modules/@durable-lambda/<name> (workspace symlinks) and each package.json's `exports`.
 *
 * The slow part (a Node process per entry and module system, and two TypeScript programs over every
 * package's declarations, in one process) runs once, side by side, in `beforeAll`; the
 * tests then only read its results.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { PACKAGES, type Pkg, packageEntries, runProcess, settleAll } from './support';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The whole setup takes about a minute on a loaded 2-core machine; this is far above it. */
const SETUP_TIMEOUT_MS = 15 * 60_000;

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

const entries = PACKAGES.flatMap((pkg) => packageEntries(readManifest(pkg)).map((entry) => ({ pkg, ...entry })));
type Entry = (typeof entries)[number];
/**
 * Under node10 the CDK entry is only resolved (to its .d.cts, the file the nodenext program checks
 * in full): importing it there loads aws-cdk-lib's 7,000 declaration files a second time.
 */
const node10ResolvesOnly = (entry: Entry) => entry.pkg === 'cdk';

interface Probe {
  /** The file Node loaded for the entry, symlinks resolved. */
  file: string;
  /** The entry's export names, sorted. */
  names: string[];
}

/** Loads an entry in a fresh Node process, as `require()` or as `import()`, from the repo root. */
async function probe(id: string, mode: 'cjs' | 'esm'): Promise<Probe> {
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
  const result = await runProcess(process.execPath, args, { cwd: root, env: childEnv });
  if (result.status !== 0) {
    throw new Error(`${mode === 'cjs' ? 'require' : 'import'}('${id}') failed:\n${result.stderr}`);
  }
  return JSON.parse(result.stdout) as Probe;
}

const probes = new Map<string, Probe>();
const probed = (id: string, mode: 'cjs' | 'esm') => {
  const found = probes.get(`${id}:${mode}`);
  if (!found) throw new Error(`no probe of ${id} as ${mode} (the setup failed: see its error)`);
  return found;
};

const consumersDir = join(root, '.artifacts', 'consumers');
/** Type-checks the consumer programs the way tsc does (see the script for the one difference). */
const checkTypes = fileURLToPath(new URL('./fixtures/check-consumer-types.mjs', import.meta.url));

/** One fixture file: imports every runtime export, by name, of every entry, plus the namespace. */
function fixtureSource(style: 'import' | 'import-equals', skip: (entry: Entry) => boolean = () => false): string {
  const lines = entries.flatMap((entry, index) => {
    if (skip(entry)) return [];
    const alias = `${entry.pkg}${index}`;
    const names = probed(entry.id, 'cjs').names.map((name) => `${name} as ${alias}_${name}`);
    return [
      style === 'import' ? `import * as ${alias} from '${entry.id}';` : `import ${alias} = require('${entry.id}');`,
      ...(names.length > 0 ? [`import { ${names.join(', ')} } from '${entry.id}';`] : []),
    ];
  });
  return `${lines.join('\n')}\n`;
}

/**
 * Two programs: nodenext, with an ESM and a CommonJS file in one program (the declarations of both
 * module systems, checked once in full with skipLibCheck off, together with what of aws-cdk-lib's
 * and the other dependencies' declarations they use); node10, for
 * older CommonJS setups that ignore `exports` and read `types` (and `typesVersions` for subpaths):
 * it checks that every entry resolves and its exports type-check there (the CDK's: that it
 * resolves), and leaves the declarations (the same .d.cts files) to the first program.
 */
const programs = [
  {
    name: 'nodenext',
    files: [
      { file: 'index.mts', source: () => fixtureSource('import'), declarations: (dist: string) => `${dist}.d.ts` },
      {
        file: 'index.cts',
        source: () => fixtureSource('import-equals'),
        declarations: (dist: string) => `${dist}.d.cts`,
      },
    ],
    compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', skipLibCheck: false },
  },
  {
    name: 'node10',
    files: [
      {
        file: 'index.ts',
        source: () => fixtureSource('import', node10ResolvesOnly),
        declarations: (dist: string) => `${dist}.d.cts`,
      },
    ],
    resolveOnly: node10ResolvesOnly,
    compilerOptions: { module: 'commonjs', moduleResolution: 'node10', skipLibCheck: true },
  },
];
const typeChecks = new Map<string, { status: number | null; output: string; files: string[] }>();

function writeProgram(program: (typeof programs)[number]): string {
  const dir = join(consumersDir, program.name);
  mkdirSync(dir, { recursive: true });
  for (const { file, source } of program.files) writeFileSync(join(dir, file), source());
  const only = 'resolveOnly' in program ? program.resolveOnly : undefined;
  const resolveOnly = only ? entries.filter(only).map((entry) => entry.id) : [];
  writeFileSync(join(dir, 'resolve.json'), `${JSON.stringify(resolveOnly)}\n`);
  // Standalone tsconfig (no `extends`): no `paths`, so nothing can reach packages/*/src.
  const tsconfig = {
    compilerOptions: {
      ...program.compilerOptions,
      target: 'es2022',
      lib: ['es2023'],
      types: ['node'],
      strict: true,
      noEmit: true,
      esModuleInterop: true,
    },
    files: program.files.map(({ file }) => file),
  };
  writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
  return dir;
}

beforeAll(async () => {
  const missing = entries.flatMap(({ pkg, dist }) =>
    [`${dist}.js`, `${dist}.cjs`, `${dist}.d.ts`, `${dist}.d.cts`]
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
  const jobs = entries.flatMap(({ id }) =>
    (['cjs', 'esm'] as const).map((mode) => async () => {
      probes.set(`${id}:${mode}`, await probe(id, mode));
    }),
  );
  await settleAll(jobs, 4);
  rmSync(consumersDir, { recursive: true, force: true });
  const dirs = programs.map(writeProgram);
  // Both programs in one process (see the script: tsc with skipLibCheck off spent most of its time
  // checking aws-cdk-lib's own declarations in full).
  const result = await runProcess(process.execPath, [checkTypes, join(root, 'packages'), ...dirs], {
    cwd: root,
    env: childEnv,
  });
  const reports = result.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map(
      (line) =>
        JSON.parse(line) as { project: string; errors: string; files: string[]; resolved: Record<string, string> },
    );
  programs.forEach((program, index) => {
    const report = reports.find((r) => r.project === dirs[index]);
    typeChecks.set(
      program.name,
      report
        ? {
            status: report.errors === '' ? 0 : 1,
            output: report.errors,
            // What the program loaded, and what its resolve-only entries resolved to.
            files: [...report.files, ...Object.values(report.resolved)],
          }
        : {
            status: result.status,
            output: `no report (exit ${result.status}):\n${result.stdout}${result.stderr}`,
            files: [],
          },
    );
  });
}, SETUP_TIMEOUT_MS);

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

  it('bundles only its own sources (sibling packages stay external imports)', () => {
    const maps = readdirSync(join(pkgDir(pkg), 'dist')).filter((file) => file.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(0);
    for (const file of maps) {
      const map = JSON.parse(readFileSync(join(pkgDir(pkg), 'dist', file), 'utf8')) as { sources: string[] };
      const foreign = map.sources
        .map((source) => resolve(pkgDir(pkg), 'dist', source))
        .filter((source) => !source.startsWith(join(pkgDir(pkg), 'src') + sep));
      expect(foreign, `dist/${file} of ${pkg}`).toEqual([]);
    }
  });
});

describe.each(entries.map((entry) => [entry.id, entry] as const))('%s', (_id, entry) => {
  it(`require() loads dist/${entry.dist}.cjs and import() loads dist/${entry.dist}.js through node_modules`, () => {
    expect(probed(entry.id, 'cjs').file).toBe(join(pkgDir(entry.pkg), 'dist', `${entry.dist}.cjs`));
    expect(probed(entry.id, 'esm').file).toBe(join(pkgDir(entry.pkg), 'dist', `${entry.dist}.js`));
  });

  it('exposes the same non-empty set of exports to CommonJS and ESM consumers', () => {
    const cjs = probed(entry.id, 'cjs').names;
    const esm = probed(entry.id, 'esm').names;
    expect(cjs).toEqual(esm);
    expect(esm.length, `${entry.id} exports nothing at runtime`).toBeGreaterThan(0);
  });
});

describe('type consumers (tsc on fixtures in .artifacts/consumers)', () => {
  it.each(programs.map((program) => [program.name, program] as const))(
    '%s: resolves every entry through node_modules to its dist types, and they check',
    (name, program) => {
      const { status, output, files } = typeChecks.get(name) ?? {
        status: null,
        output: 'not run (the setup failed)',
        files: [],
      };
      expect(status, `tsc on .artifacts/consumers/${name} failed:\n${output}`).toBe(0);
      for (const { declarations } of program.files) {
        for (const entry of entries) {
          const expected = join(pkgDir(entry.pkg), 'dist', declarations(entry.dist));
          expect(files, `${name} should load ${relative(root, expected)}`).toContain(expected);
        }
      }
      const sources = files.filter(
        (file) => file.startsWith(join(root, 'packages')) && file.includes(`${sep}src${sep}`),
      );
      expect(sources, `${name} must not see package sources`).toEqual([]);
    },
  );
});
