#!/usr/bin/env node
// Builds the publishable packages into packages/<name>/dist with tsup:
//   index.js + index.d.ts (ESM) and index.cjs + index.d.cts (CommonJS), with source maps; the same for
//   each further entry (ENTRIES below: @durable-lambda/local/testing is dist/testing.*).
//
//   node scripts/build.mjs              # all packages, in dependency order
//   node scripts/build.mjs protocol sdk # only these (their @durable-lambda deps must be built already)
//
// Each package is built from its own directory with packages/<name>/tsconfig.build.json, which has no
// `paths`: sibling packages resolve through node_modules (workspace symlinks) to their built dist, and
// stay external imports in both the JS and the .d.ts output. Hence the order below.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';

const ORDER = ['protocol', 'sdk', 'engine', 'api', 'local', 'aws', 'cdk', 'otel']; // local imports api (its dev server)
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

const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !ORDER.includes(name));
if (unknown.length > 0) {
  console.error(`build: unknown package(s): ${unknown.join(', ')} (expected some of: ${ORDER.join(', ')})`);
  process.exit(2);
}
const selected = requested.length > 0 ? ORDER.filter((name) => requested.includes(name)) : ORDER;

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

async function buildPackage(name) {
  const dir = join(root, 'packages', name);
  const pkg = readJson(join(dir, 'package.json'));
  const external = Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies, ...pkg.optionalDependencies });

  // The .d.ts build needs the sibling packages' dist types: say so plainly instead of a TS resolution error.
  for (const dep of external.filter((d) => d.startsWith('@durable-lambda/'))) {
    const depDir = join(root, 'packages', dep.slice('@durable-lambda/'.length));
    if (!existsSync(join(depDir, 'dist', 'index.d.ts'))) {
      throw new Error(`${dep} is not built (no ${join(depDir, 'dist', 'index.d.ts')}); build it before ${pkg.name}`);
    }
  }

  // tsup resolves package.json, tsconfig and the dts worker's paths from process.cwd(); esbuild captured its
  // working directory when it was first imported, so it is set explicitly below.
  process.chdir(dir);
  const extra = ENTRIES[name] ?? [];
  const entry = { index: 'src/index.ts', ...Object.fromEntries(extra.map((e) => [e.name, e.file])) };
  await build({
    config: false, // ignore any tsup.config.* lying around: this script is the single source of truth
    entry,
    outDir: 'dist',
    format: ['esm', 'cjs'],
    dts: true,
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

let failed = false;
for (const name of selected) {
  const started = performance.now();
  try {
    await buildPackage(name);
    console.log(`built @durable-lambda/${name} in ${Math.round(performance.now() - started)} ms`);
  } catch (error) {
    // tsup/esbuild/tsc already printed the details above; keep this line short.
    const message = error instanceof Error ? error.message : String(error);
    console.error(`FAILED @durable-lambda/${name}: ${message.split('\n')[0]}`);
    failed = true;
    break; // later packages depend on this one
  }
}
process.chdir(root);
process.exit(failed ? 1 : 0);
