/**
 * The TypeScript consumers of the installed packages (pack-install.test.ts), type-checked in ONE
 * process by fixtures/check-consumer-types.mjs: two programs, where three test files had six that
 * each parsed @types/node and our declarations again (and one of them aws-cdk-lib's 2,600 files):
 *
 * - `consumers` (nodenext, skipLibCheck off, emits): every entry imported by ESM (`index.mts`) and by
 *   CommonJS (`index.cts`), each runtime export by name, so both the .d.ts and the .d.cts
 *   declarations are checked in full; and the READMEs' examples in `esm/` and `cjs/` (a
 *   package.json `type` each), compiled to `build/` to be run.
 * - `node10`: older CommonJS setups that ignore `exports` and read `types` (and `typesVersions` for
 *   subpaths): every entry resolves, and its exports type-check there (the CDK's: only that it
 *   resolves, to the .d.cts the first program checks: importing it loads aws-cdk-lib's
 *   declarations a second time).
 *
 * And with the first program's options, better-sqlite3 is resolved, as a declaration naming it
 * would be: it must not be found (so that program proves that ours type-check without
 * @types/better-sqlite3), where `@durable-lambda/local` is (so the lookup itself works).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReadmeExample } from './readme-examples';
import type { PackageEntry, Pkg, ProcessResult } from './support';

/** An entry of one of our packages. */
export type Entry = PackageEntry & { pkg: Pkg };

/** The two module systems the examples are compiled to: a folder each, with its package.json `type`. */
export const SYSTEMS = [
  { name: 'esm', type: 'module' },
  { name: 'cjs', type: 'commonjs' },
] as const;
export type System = (typeof SYSTEMS)[number]['name'];
/** Scripts may use top-level await: ESM only. Tests and the modules they import: both. */
export const examplesFor = (examples: readonly ReadmeExample[], system: System) =>
  examples.filter((e) => system === 'esm' || e.kind !== 'script');
/** Where the `consumers` program emits an example. */
export const builtExample = (app: string, system: System, example: ReadmeExample) =>
  join(app, 'build', system, example.file.replace(/\.ts$/, '.js'));

/** The programs, by their folder name under `<app>/types`. */
export const PROGRAMS = ['consumers', 'node10'] as const;
/** What the consumers program only resolves (see the file's comment). */
export const RESOLVED_BY_CONSUMERS = ['better-sqlite3', '@durable-lambda/local'];
export type Program = (typeof PROGRAMS)[number];
/** The folder of a program (the script reads its tsconfig.json). */
export const programDir = (app: string, program: Program) => join(app, 'types', program);

/** What the script reports for a program. */
export interface TypeCheck extends ProcessResult {
  /** The files of the program (tsc's --listFiles), and what its resolve-only entries resolved to. */
  files: string[];
  /** The program's resolve-only specifiers and the files they resolved to (null: not found). */
  resolved: Record<string, string | null>;
}

/** One file importing every entry, the namespace and each runtime export (`names`) by name. */
function entriesSource(
  entries: readonly Entry[],
  names: (entry: Entry) => readonly string[],
  style: 'import' | 'import-equals',
  skip: (entry: Entry) => boolean = () => false,
): string {
  const lines = entries.flatMap((entry, index) => {
    if (skip(entry)) return [];
    const alias = `${entry.pkg}${index}`;
    const named = names(entry).map((name) => `${name} as ${alias}_${name}`);
    return [
      style === 'import' ? `import * as ${alias} from '${entry.id}';` : `import ${alias} = require('${entry.id}');`,
      ...(named.length > 0 ? [`import { ${named.join(', ')} } from '${entry.id}';`] : []),
    ];
  });
  return `${lines.join('\n')}\n`;
}

const writeJson = (file: string, value: unknown) => writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
const BASE_OPTIONS = { target: 'es2022', lib: ['es2023'], types: ['node'], strict: true };

/** The CDK entry is only resolved by the node10 program (see the file's comment). */
export const node10ResolvesOnly = (entry: Entry) => entry.pkg === 'cdk';

/**
 * Writes the two programs under `<app>/types` and the examples' folders, and returns the script's
 * arguments after its path: the folder of our installed declarations, then the programs' folders.
 */
export function writePrograms(
  app: string,
  entries: readonly Entry[],
  names: (entry: Entry) => readonly string[],
  examples: readonly ReadmeExample[],
): string[] {
  const consumers = programDir(app, 'consumers');
  const examplePaths: string[] = [];
  for (const system of SYSTEMS) {
    const dir = join(consumers, system.name);
    mkdirSync(dir, { recursive: true });
    writeJson(join(dir, 'package.json'), { type: system.type });
    // The emitted examples run from build/<system>: the same module system as their sources.
    mkdirSync(join(app, 'build', system.name), { recursive: true });
    writeJson(join(app, 'build', system.name, 'package.json'), { type: system.type });
    for (const example of examplesFor(examples, system.name)) {
      writeFileSync(join(dir, example.file), example.source);
      examplePaths.push(`${system.name}/${example.file}`);
    }
  }
  writeFileSync(join(consumers, 'index.mts'), entriesSource(entries, names, 'import'));
  writeFileSync(join(consumers, 'index.cts'), entriesSource(entries, names, 'import-equals'));
  writeJson(join(consumers, 'resolve.json'), RESOLVED_BY_CONSUMERS);
  // Standalone tsconfigs (no `extends`): nothing of this repository's settings or `paths`.
  writeJson(join(consumers, 'tsconfig.json'), {
    compilerOptions: {
      ...BASE_OPTIONS,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      skipLibCheck: false,
      rootDir: '.',
      outDir: join(app, 'build'),
    },
    files: ['index.mts', 'index.cts', ...examplePaths],
  });

  const node10 = programDir(app, 'node10');
  mkdirSync(node10, { recursive: true });
  writeFileSync(join(node10, 'index.ts'), entriesSource(entries, names, 'import', node10ResolvesOnly));
  writeJson(
    join(node10, 'resolve.json'),
    entries.filter(node10ResolvesOnly).map((entry) => entry.id),
  );
  writeJson(join(node10, 'tsconfig.json'), {
    compilerOptions: {
      ...BASE_OPTIONS,
      module: 'commonjs',
      moduleResolution: 'node10',
      skipLibCheck: true,
      noEmit: true,
      esModuleInterop: true,
    },
    files: ['index.ts'],
  });

  return [join(app, 'node_modules', '@durable-lambda'), ...PROGRAMS.map((program) => programDir(app, program))];
}

/** The script's one JSON line per program, as a result each (its whole output when it printed none). */
export function readTypeChecks(app: string, result: ProcessResult): Map<Program, TypeCheck> {
  const reports = result.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map(
      (line) =>
        JSON.parse(line) as {
          project: string;
          errors: string;
          files: string[];
          resolved: Record<string, string | null>;
        },
    );
  const checks = new Map<Program, TypeCheck>();
  for (const program of PROGRAMS) {
    const report = reports.find((r) => r.project === programDir(app, program));
    checks.set(
      program,
      report
        ? {
            status: report.errors === '' ? 0 : 1,
            stdout: report.errors,
            stderr: '',
            files: [...report.files, ...Object.values(report.resolved).filter((file) => file !== null)],
            resolved: report.resolved,
          }
        : { ...result, stdout: `no report for ${program}:\n${result.stdout}`, files: [], resolved: {} },
    );
  }
  return checks;
}
