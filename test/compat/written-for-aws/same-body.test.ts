/**
 * The two copies of the test file written for AWS's testing package differ only in their import
 * lines: one imports AWS's packages, the other ours, and every other line is the same.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (name: string) => readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');

/** The module specifiers of a file's import statements, and the file with those statements removed. */
function split(source: string): { specifiers: string[]; body: string } {
  const imports = /^import\s[^;]*?\sfrom\s+'([^']+)';\n/gms;
  const specifiers = [...source.matchAll(imports)].map((match) => match[1] as string);
  return { specifiers, body: source.replace(imports, '') };
}

describe('the test file written for AWS, on AWS and on ours', () => {
  const aws = split(read('order-workflow.aws.test.ts'));
  const ours = split(read('order-workflow.ours.test.ts'));

  it('is the same file apart from its import lines', () => {
    expect(ours.body).toBe(aws.body);
    // The body is a real test file, not an empty remainder.
    expect(aws.body).toContain("describe('order workflow'");
  });

  it('imports AWS packages in one copy and ours in the other, nothing else changed', () => {
    // The formatter orders imports by their source, so the two copies list them in different orders.
    expect(aws.specifiers.sort()).toEqual([
      '../../../bench/node_modules/@aws/durable-execution-sdk-js',
      '../../../bench/node_modules/@aws/durable-execution-sdk-js-testing',
      'vitest',
    ]);
    expect(ours.specifiers.sort()).toEqual(['@durable-lambda/local/testing', '@durable-lambda/sdk', 'vitest']);
  });

  it('imports the same names from each package', () => {
    const names = (source: string) =>
      [...source.matchAll(/^import\s*\{([^}]*)\}\s*from/gms)]
        .flatMap((match) =>
          (match[1] as string)
            .split(',')
            .map((name) => name.trim())
            .filter(Boolean),
        )
        .sort();
    expect(names(read('order-workflow.ours.test.ts'))).toEqual(names(read('order-workflow.aws.test.ts')));
  });
});
