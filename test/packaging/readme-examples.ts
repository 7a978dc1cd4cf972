/**
 * The runnable examples of the packages' READMEs: every ```ts block whose first line names its file
 * (`// order.ts`). Tests (`*.test.ts`) run under Jest when they import `@jest/globals`, else under
 * `node:test`; other files that print are scripts, whose `console.log` lines carry their expected
 * output as a comment (at the end of the line, or alone on the next line); the rest are modules the
 * tests import.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One example file taken from a README. */
export interface ReadmeExample {
  /** The README it comes from, relative to the repository root. */
  readme: string;
  /** Its file name, e.g. `order.test.ts`. */
  file: string;
  source: string;
  /** A test (by its runner), a script (run, its output checked) or a module (imported by a test). */
  kind: 'jest' | 'node-test' | 'script' | 'module';
  /** What a script prints, one entry per line, as its comments say. */
  expectedOutput: string[];
}

const BLOCK = /```ts\n\/\/ ([\w.-]+\.ts)\n([\s\S]*?)```/g;

/** The output a script's comments promise, in order: one per `console.log` statement that has one. */
function expectedOutput(source: string): string[] {
  const lines = source.split('\n');
  const expected: string[] = [];
  lines.forEach((line, index) => {
    if (!line.includes('console.log(')) return;
    // The statement may span lines (the formatter wraps long ones): its comment follows its end.
    let end = index;
    while (end < lines.length - 1 && !/\);\s*(\/\/.*)?$/.test(lines[end] ?? '')) end += 1;
    const sameLine = /\);\s*\/\/ (.+)$/.exec(lines[end] ?? '');
    const nextLine = /^\s*\/\/ (.+)$/.exec(lines[end + 1] ?? '');
    const comment = sameLine?.[1] ?? nextLine?.[1];
    if (comment !== undefined) expected.push(comment);
  });
  return expected;
}

/** The runnable examples of the given READMEs (paths relative to `root`). */
export function readmeExamples(root: string, readmes: readonly string[]): ReadmeExample[] {
  return readmes.flatMap((readme) =>
    [...readFileSync(join(root, readme), 'utf8').matchAll(BLOCK)].map(([, file = '', body = '']) => {
      const source = `// ${file}\n${body}`;
      const test = file.endsWith('.test.ts');
      const output = test ? [] : expectedOutput(source);
      const kind: ReadmeExample['kind'] = test
        ? source.includes("'@jest/globals'")
          ? 'jest'
          : 'node-test'
        : output.length > 0
          ? 'script'
          : 'module';
      return { readme, file, source, kind, expectedOutput: output };
    }),
  );
}
