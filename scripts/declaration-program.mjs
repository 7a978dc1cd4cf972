// The packages' declarations and the repository's type-check, by TypeScript's native compiler
// (TypeScript 7, installed as `typescript-native`; scripts/build.mjs bundles the declarations per
// entry).
//
// TypeScript 5.9's compiler spent ~45 CPU-s of `npm test` on one program over everything (aws-cdk-lib's
// 7,000 declaration files included); the native one checks the same program in ~10, on more than one
// thread. So it does both jobs here, as two processes side by side:
// - `typecheck()`: tsconfig.json as it is (packages, tests, examples, bench, scripts), no emit;
// - `emitPackageDeclarations()`: the package sources only, emitting their .d.ts files into a
//   temporary folder.
// TypeScript 5.9 (the `typescript` package) stays for what needs its JavaScript API: tsup's
// declaration bundler (rollup-plugin-dts) and the packaging tests, which check what we publish as a
// TypeScript 5 consumer sees it.
//
// The emitted files import sibling packages as `@durable-lambda/<name>` (tsc keeps the specifiers
// written in the sources), so they stay external imports in the bundles. A declaration that reaches
// into another package's folder by a relative path (tsc writes one when an inferred type comes from a
// sibling module its index does not export) would pull a copy of the sibling's types into the bundle:
// that is refused here, naming the file.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { ROOT } from './test-tools.mjs';

const toPosix = (path) => path.split(sep).join('/');
/** `packages/<name>/src/...` of a source file, else undefined. */
function packageOf(file) {
  const match = /^packages\/([^/]+)\/src\//.exec(toPosix(relative(ROOT, file)));
  return match?.[1];
}

/** The native compiler's command line (its package's bin, whatever `node_modules/.bin/tsc` links to). */
function nativeTsc() {
  const manifest = createRequire(join(ROOT, 'package.json')).resolve('typescript-native/package.json');
  return join(dirname(manifest), 'bin', 'tsc');
}

/** Runs the native tsc with `args`; resolves with its exit code and what it printed. */
function runTsc(args) {
  return new Promise((done) => {
    const child = spawn(process.execPath, [nativeTsc(), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', (error) => done({ code: 1, output: `${output}${error.message}\n` }));
    child.on('close', (code) => done({ code: code ?? 1, output }));
  });
}

/** Errors in tsc's output: one `path(line,col): error TS...` line each (the `--pretty false` format). */
const countErrors = (output) => output.split('\n').filter((line) => /\berror TS\d+:/.test(line)).length;

/** Type-checks everything tsconfig.json includes. */
export async function typecheck() {
  const { code, output } = await runTsc(['-p', 'tsconfig.json', '--noEmit', '--pretty', 'false']);
  return { ok: code === 0, text: output, errorCount: countErrors(output) };
}

/** Relative module specifiers of a declaration file (imports, exports and `import("...")` types). */
function relativeSpecifiers(text) {
  const { importedFiles, referencedFiles } = ts.preProcessFile(text, true, true);
  return [...importedFiles, ...referencedFiles].map((ref) => ref.fileName).filter((name) => name.startsWith('.'));
}

/** Every file under `dir`, recursively. */
function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/**
 * Emits the declarations of `packages`' sources into a fresh temporary folder (the repository's
 * layout below it: `<dir>/packages/<name>/src/index.d.ts`). Resolves with the folder, the errors
 * (type errors in those sources, declaration errors, a declaration reaching into another package)
 * and a `remove()` for the folder.
 */
export async function emitPackageDeclarations(packages) {
  const dir = mkdtempSync(join(ROOT, '.artifacts', 'declarations-'));
  const out = join(dir, 'out');
  // tsconfig.json's options and paths, its files narrowed to these packages' sources.
  const project = join(dir, 'tsconfig.json');
  writeFileSync(
    project,
    JSON.stringify({
      extends: toPosix(relative(dir, join(ROOT, 'tsconfig.json'))),
      compilerOptions: {
        noEmit: false,
        declaration: true,
        emitDeclarationOnly: true,
        declarationMap: false,
        rootDir: toPosix(relative(dir, ROOT)),
        outDir: 'out',
      },
      include: packages.map((pkg) => toPosix(relative(dir, join(ROOT, 'packages', pkg, 'src')))),
    }),
  );
  const { code, output } = await runTsc(['-p', project, '--pretty', 'false']);
  const problems = [];
  for (const file of code === 0 ? filesUnder(out) : []) {
    const source = join(ROOT, relative(out, file)).replace(/\.d\.ts$/, '.ts');
    const pkg = packageOf(source);
    for (const specifier of relativeSpecifiers(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(source), specifier);
      if (packageOf(`${target}.ts`) !== pkg && packageOf(join(target, 'index.ts')) !== pkg) {
        problems.push(
          `${toPosix(relative(ROOT, source))}: its declarations import '${specifier}', outside @durable-lambda/${pkg}; ` +
            'give the inferred type an explicit annotation from the sibling package’s index',
        );
      }
    }
  }
  return {
    dir,
    /** The emitted declaration of a package's source file (`src/index.ts` → its .d.ts). */
    declarationOf: (pkg, file) => join(out, 'packages', pkg, file.replace(/\.ts$/, '.d.ts')),
    errors: code === 0 ? '' : output || `tsc exited with ${code}\n`,
    errorCount: code === 0 ? 0 : Math.max(1, countErrors(output)),
    problems,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
