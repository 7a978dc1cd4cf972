// The packages' declarations from ONE TypeScript program (scripts/build.mjs bundles them per entry).
//
// tsup's own declaration build type-checked each entry of each package in a program of its own
// (aws-cdk-lib's and every sibling's declarations loaded again each time: ~60 CPU-s of a 65 CPU-s
// build). Here one program, with tsconfig.json's options and `paths`, checks the package sources
// once and emits their .d.ts files into a temporary folder; with `typecheck` it also holds
// everything else tsconfig.json includes (tests, examples, bench, scripts), so `npm test`'s
// type-check and build share one program instead of checking the sources twice.
//
// The emitted files import sibling packages as `@durable-lambda/<name>` (tsc keeps the specifiers
// written in the sources), so they stay external imports in the bundles, as before. A declaration
// that reaches into another package's folder by a relative path (tsc writes one when an inferred type
// comes from a sibling module its index does not export) would pull a copy of the sibling's types
// into the bundle: that is refused here, naming the file, as tsup's per-package build refused it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { ROOT } from './test-tools.mjs';

const toPosix = (path) => path.split(sep).join('/');
/** `packages/<name>/src/...` of a source file, else undefined. */
function packageOf(file) {
  const match = /^packages\/([^/]+)\/src\//.exec(toPosix(relative(ROOT, file)));
  return match?.[1];
}

/** A diagnostic as tsc prints it (path relative to the repository). */
const host = {
  getCanonicalFileName: (name) => name,
  getCurrentDirectory: () => ROOT,
  getNewLine: () => '\n',
};
export const formatDiagnostics = (diagnostics) => ts.formatDiagnosticsWithColorAndContext(diagnostics, host);

/**
 * tsconfig.json's program, made to emit declarations (only for the files asked, see
 * `emitPackageDeclarations`). With `typecheck` false it holds the package sources only.
 */
export function createDeclarationProgram({ typecheck }) {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(formatDiagnostics([diagnostic]));
    },
  });
  if (!parsed) throw new Error('tsconfig.json could not be read');
  const rootNames = typecheck ? parsed.fileNames : parsed.fileNames.filter((file) => packageOf(file) !== undefined);
  const options = {
    ...parsed.options,
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    declarationMap: false,
    rootDir: ROOT,
    // Only where emitDeclarations writes; never next to the sources.
    outDir: join(ROOT, '.artifacts', 'unused-declaration-out'),
  };
  const program = ts.createProgram({ rootNames, options, projectReferences: parsed.projectReferences });
  return { program, configErrors: parsed.errors };
}

/** Relative module specifiers of a declaration file (imports, exports and `import("...")` types). */
function relativeSpecifiers(text) {
  const { importedFiles, referencedFiles } = ts.preProcessFile(text, true, true);
  return [...importedFiles, ...referencedFiles].map((ref) => ref.fileName).filter((name) => name.startsWith('.'));
}

/**
 * Emits the declarations of `packages`' sources into a fresh temporary folder (the repository's
 * layout below it: `<dir>/packages/<name>/src/index.d.ts`). Returns the folder, the errors (type
 * errors in those sources, declaration errors, a declaration reaching into another package) and a
 * `remove()` for the folder.
 */
export function emitPackageDeclarations(program, packages) {
  const wanted = new Set(packages);
  const dir = mkdtempSync(join(ROOT, '.artifacts', 'declarations-'));
  const diagnostics = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
  const problems = [];
  for (const source of program.getSourceFiles()) {
    const pkg = source.isDeclarationFile ? undefined : packageOf(source.fileName);
    if (!pkg || !wanted.has(pkg)) continue;
    diagnostics.push(...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source));
    const result = program.emit(
      source,
      (fileName, text) => {
        for (const specifier of relativeSpecifiers(text)) {
          const target = resolve(dirname(source.fileName), specifier);
          if (packageOf(`${target}.ts`) !== pkg && packageOf(join(target, 'index.ts')) !== pkg) {
            problems.push(
              `${toPosix(relative(ROOT, source.fileName))}: its declarations import '${specifier}', outside @durable-lambda/${pkg}; ` +
                'give the inferred type an explicit annotation from the sibling package’s index',
            );
          }
        }
        const out = join(dir, relative(join(ROOT, '.artifacts', 'unused-declaration-out'), fileName));
        mkdirSync(dirname(out), { recursive: true });
        writeFileSync(out, text);
      },
      undefined,
      true,
    );
    diagnostics.push(...result.diagnostics);
  }
  const errors = diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error);
  return {
    dir,
    /** The emitted declaration of a package's source file (`src/index.ts` → its .d.ts). */
    declarationOf: (pkg, file) => join(dir, 'packages', pkg, file.replace(/\.ts$/, '.d.ts')),
    errors: errors.length > 0 ? formatDiagnostics(errors) : '',
    errorCount: errors.length,
    problems,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * The type errors of every file of the program but the package sources `emitPackageDeclarations`
 * checked already (with `typecheck`: tests, examples, bench, scripts), and the options' ones.
 */
export function remainingDiagnostics(program, checkedPackages) {
  const checked = new Set(checkedPackages);
  const diagnostics = [];
  for (const source of program.getSourceFiles()) {
    const pkg = source.isDeclarationFile ? undefined : packageOf(source.fileName);
    if (pkg && checked.has(pkg)) continue;
    if (program.isSourceFileFromExternalLibrary(source) || program.isSourceFileDefaultLibrary(source)) continue;
    diagnostics.push(...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source));
  }
  const errors = diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error);
  return { count: errors.length, text: errors.length > 0 ? formatDiagnostics(errors) : '' };
}
