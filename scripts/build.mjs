#!/usr/bin/env node
// Builds the publishable packages into packages/<name>/dist:
//   index.js + index.d.ts (ESM) and index.cjs + index.d.cts (CommonJS), with source maps; the same for
//   each further entry (ENTRIES below: @durable-lambda/local/testing is dist/testing.*).
//
//   node scripts/build.mjs               # all packages
//   node scripts/build.mjs protocol sdk  # only these
//   node scripts/build.mjs --typecheck   # all packages, and the type-check of everything
//                                        # tsconfig.json includes, side by side (npm test)
//
// The JavaScript is bundled by tsup (esbuild) from each package's directory with
// packages/<name>/tsconfig.build.json; sibling @durable-lambda/* packages stay external imports.
// The declarations come from ONE program over the package sources, by TypeScript's native compiler
// (scripts/declaration-program.mjs; tsup's own declaration build checked each entry in a program of
// its own, ~60 of the build's 65 CPU-s), and tsup (rollup-plugin-dts) bundles the emitted .d.ts files
// per entry, keeping sibling packages as imports. So no package needs its siblings built first.
//
// With --typecheck, the line `build: done` (or `build: FAILED`) is printed as soon as dist is
// written, while the type-check (started with it) may still run (scripts/test.mjs starts the packaging tests on it), and the
// exit code is non-zero when either failed.
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';
import { emitPackageDeclarations, typecheck as runTypecheck } from './declaration-program.mjs';

const ORDER = ['protocol', 'sdk', 'engine', 'api', 'local', 'aws', 'cli', 'cdk', 'otel'];
const root = resolve(fileURLToPath(import.meta.url), '../..');
/**
 * Entries beyond src/index.ts, by package: dist/<name>.{js,cjs,d.ts,d.cts} from `file`. The other
 * entries import what `owns` holds (folders end with '/') from dist/<name>.* instead of bundling a
 * copy, so a class is the same one from either entry (instanceof holds across them), as the
 * declarations already share it.
 */
const ENTRIES = {
  local: [
    {
      name: 'testing',
      file: 'src/testing-entry.ts',
      owns: ['src/testing-entry.ts', 'src/testing/', 'src/faults/', 'src/virtual-clock.ts'],
    },
  ],
  aws: [
    // `import '@durable-lambda/aws/register'`: a side-effect entry over the main one.
    { name: 'register', file: 'src/register.ts', owns: ['src/register.ts'] },
    // Not built again (no `file`): register.* imports index.* rather than bundling a second copy.
    { name: 'index', owns: ['src/index.ts'] },
  ],
};

/** The source file an import of `base` (no extension) resolves to, relative to `dir`. */
function sourceFile(dir, base) {
  for (const candidate of [base, `${base}.ts`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return relative(dir, candidate).split(sep).join('/');
  }
  return undefined;
}

/** An esbuild plugin: imports of another entry's modules from outside it become imports of that entry. */
function shareEntries(dir, entries) {
  return {
    name: 'share-entries',
    setup(build) {
      const extension = build.initialOptions.format === 'cjs' ? 'cjs' : 'js';
      build.onResolve({ filter: /^\.\.?\// }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        const target = sourceFile(dir, resolve(dirname(args.importer), args.path));
        const importer = relative(dir, args.importer).split(sep).join('/');
        for (const entry of entries) {
          const owned = (file) => entry.owns.some((own) => (own.endsWith('/') ? file.startsWith(own) : file === own));
          if (target && owned(target) && !owned(importer))
            return { path: `./${entry.name}.${extension}`, external: true };
        }
        return undefined;
      });
    },
  };
}

const args = process.argv.slice(2);
const typecheck = args.includes('--typecheck');
const requested = args.filter((arg) => arg !== '--typecheck');
const unknown = requested.filter((name) => !ORDER.includes(name));
if (unknown.length > 0) {
  console.error(`build: unknown package(s): ${unknown.join(', ')} (expected some of: ${ORDER.join(', ')})`);
  process.exit(2);
}
const selected = requested.length > 0 ? ORDER.filter((name) => requested.includes(name)) : ORDER;

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** Bundles one package: its JavaScript from the sources, its declarations from `declarations`. */
async function buildPackage(name, declarations) {
  const dir = join(root, 'packages', name);
  const pkg = readJson(join(dir, 'package.json'));
  const external = Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies, ...pkg.optionalDependencies });

  // tsup resolves package.json, tsconfig and the dts worker's paths from process.cwd(); esbuild captured its
  // working directory when it was first imported, so it is set explicitly below.
  process.chdir(dir);
  const extra = ENTRIES[name] ?? [];
  const entry = {
    index: 'src/index.ts',
    ...Object.fromEntries(extra.filter((e) => e.file).map((e) => [e.name, e.file])),
  };
  await build({
    config: false, // ignore any tsup.config.* lying around: this script is the single source of truth
    entry,
    outDir: 'dist',
    format: ['esm', 'cjs'],
    // Already emitted and checked: rollup-plugin-dts only bundles these (no program of its own).
    dts: {
      entry: Object.fromEntries(
        Object.entries(entry).map(([key, file]) => [key, declarations.declarationOf(name, file)]),
      ),
    },
    tsconfig: join(dir, 'tsconfig.build.json'),
    target: 'node20',
    platform: 'node',
    sourcemap: true,
    clean: true,
    splitting: false,
    esbuildPlugins: extra.length > 0 ? [shareEntries(dir, extra)] : [],
    external,
    silent: true,
    esbuildOptions(options) {
      options.absWorkingDir = dir;
    },
  });
}

const started = performance.now();
mkdirSync(join(root, '.artifacts'), { recursive: true });
// Side by side: the type-check of everything, and the declarations of the packages (a program of
// their sources only), which the bundles below need.
const checking = typecheck ? runTypecheck() : undefined;
const declarations = await emitPackageDeclarations(selected);
let built = declarations.errors === '' && declarations.problems.length === 0;
if (!built) {
  process.stderr.write(declarations.errors);
  for (const problem of declarations.problems) console.error(`declarations: ${problem}`);
}
console.log(`declarations of ${selected.length} packages in ${Math.round(performance.now() - started)} ms`);
for (const name of built ? selected : []) {
  const begin = performance.now();
  try {
    await buildPackage(name, declarations);
    console.log(`built @durable-lambda/${name} in ${Math.round(performance.now() - begin)} ms`);
  } catch (error) {
    // tsup/esbuild already printed the details above; keep this line short.
    const message = error instanceof Error ? error.message : String(error);
    console.error(`FAILED @durable-lambda/${name}: ${message.split('\n')[0]}`);
    built = false;
    break;
  }
}
process.chdir(root);
declarations.remove();
let checked = true;
if (checking) {
  console.log(`build: ${built ? 'done' : 'FAILED'}`);
  const result = await checking;
  checked = result.ok;
  // The package sources' errors were printed with the declarations already.
  if (!checked && built) process.stderr.write(result.text);
  console.log(
    `typecheck: ${checked ? 'done' : `FAILED (${result.errorCount} errors)`} in ${Math.round(performance.now() - started)} ms`,
  );
}
process.exit(built && checked ? 0 : 1);
