/**
 * Our packages reach each other only by imports a reader, the type-checker and a bundler can see:
 * no source file under packages/ loads one of our packages (`@durable-lambda/*`) through a module
 * name held in a variable (`const specifier = '@durable-lambda/aws'; import(specifier)`), the trick
 * that hid the sdk -> aws and api -> local circles. The production backend reaches the sdk through
 * the explicit entry `@durable-lambda/aws/register` instead.
 *
 * Third-party modules a user installs optionally (the AWS SDK's clients, tsx, better-sqlite3, the
 * plugins named in the environment) are still loaded by a name a bundler does not follow, so that
 * a function's bundle neither pulls them in nor fails without them; those are not ours to wire.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const OURS = /^@durable-lambda\//;

/** Every source file of the packages (TypeScript and JavaScript modules), relative to the root. */
function packageSources(): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (name !== 'node_modules' && name !== 'dist') walk(path);
      } else if (/\.(ts|mts|cts|mjs|cjs|js)$/.test(name) && !name.endsWith('.d.ts')) {
        found.push(relative(ROOT, path));
      }
    }
  };
  for (const pkg of readdirSync(join(ROOT, 'packages')).sort()) {
    const src = join(ROOT, 'packages', pkg, 'src');
    if (statSync(join(ROOT, 'packages', pkg)).isDirectory() && existsDir(src)) walk(src);
  }
  return found;
}

function existsDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A module load found in a file: `import(x)` or `require(x)`, with what its argument names. */
interface Load {
  file: string;
  line: number;
  /** The argument as written. */
  argument: string;
  /** The module name it holds, when the argument is a variable bound to a string literal. */
  heldName?: string;
}

/** The `import(...)` and `require(...)` calls of a file whose argument is not a string literal. */
function variableLoads(file: string): Load[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  // Every name bound to a string literal anywhere in the file (`const specifier = '...'`).
  const literals = new Map<string, string>();
  const loads: Array<{ node: ts.Expression; argument: ts.Expression }> = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer &&
      ts.isStringLiteralLike(node.initializer)
    ) {
      literals.set(node.name.text, node.initializer.text);
    }
    if (ts.isCallExpression(node) && node.arguments.length > 0) {
      const callee = node.expression;
      const isImport = callee.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(callee) && callee.text === 'require';
      const argument = node.arguments[0] as ts.Expression;
      if ((isImport || isRequire) && !ts.isStringLiteralLike(argument)) loads.push({ node, argument });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return loads.map(({ node, argument }) => ({
    file,
    line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
    argument: argument.getText(source),
    ...(ts.isIdentifier(argument) && literals.has(argument.text) ? { heldName: literals.get(argument.text) } : {}),
  }));
}

describe('imports between our packages', () => {
  const sources = packageSources();

  it('reads the sources of every package', () => {
    expect(sources.some((file) => file === 'packages/sdk/src/handler.ts')).toBe(true);
    expect(sources.some((file) => file === 'packages/aws/src/aws-sdk-host.ts')).toBe(true);
  });

  it('never load one of our packages by a module name held in a variable', () => {
    const hidden = sources
      .flatMap(variableLoads)
      .filter((load) => load.heldName !== undefined && OURS.test(load.heldName))
      .map((load) => `${load.file}:${load.line}: ${load.argument} = '${load.heldName}'`);
    expect(hidden).toEqual([]);
  });

  it('finds such a load where there is one (the check itself)', () => {
    const probe = join('test', 'architecture', 'fixtures', 'hidden-import.ts');
    const loads = variableLoads(probe);
    expect(loads.map((load) => load.heldName)).toEqual(['@durable-lambda/aws', '@durable-lambda/local']);
  });

  it('never name one of our packages in a dynamic import from the sdk', () => {
    const sdk = sources.filter((file) => file.startsWith('packages/sdk/'));
    const named = sdk.filter((file) =>
      /import\(\s*['"`]@durable-lambda\//.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    expect(named).toEqual([]);
  });
});
