/**
 * The import graph of the packages' sources, read with the TypeScript parser: every static import and
 * re-export (type-only ones too, since a cycle of types is still a knot a reader must untie), every
 * `import('literal')`, and every `import x = require('literal')`. Used by the architecture test to
 * find import cycles inside a package and imports that run up the floors.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** The repository's root folder. */
export const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '../..');

/** One import found in a source file. */
export interface ImportEdge {
  /** The importing file, relative to the repository root. */
  from: string;
  /** The specifier as written (`./ports`, `@durable-lambda/engine`, `node:fs`). */
  specifier: string;
  /** The imported file relative to the root, when the specifier is relative and resolves. */
  to?: string;
}

/** Every `.ts` file under a folder (declaration files aside), sorted, relative to the root. */
export function sourceFiles(folder: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) found.push(relative(ROOT, path));
    }
  };
  walk(resolve(ROOT, folder));
  return found;
}

/** The specifiers a file imports, in source order. */
export function importSpecifiers(file: string): string[] {
  const text = readFileSync(resolve(ROOT, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const specifiers: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) specifiers.push(node.moduleSpecifier.text);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      specifiers.push(node.moduleReference.expression.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments.length > 0 &&
      ts.isStringLiteralLike(node.arguments[0] as ts.Expression)
    ) {
      specifiers.push((node.arguments[0] as ts.StringLiteralLike).text);
    } else if (ts.isImportTypeNode(node)) {
      // `import('./x').T` in a type position.
      const argument = node.argument;
      if (ts.isLiteralTypeNode(argument) && ts.isStringLiteral(argument.literal)) {
        specifiers.push(argument.literal.text);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers;
}

/** The file a relative specifier names (`./x`, `./x.js`, `./x/index`), or undefined. */
export function resolveRelative(from: string, specifier: string): string | undefined {
  const base = resolve(ROOT, dirname(from), specifier.replace(/\.(m?js|ts)$/, ''));
  for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) {
    if (existsSync(candidate)) return relative(ROOT, candidate);
  }
  return undefined;
}

/** Every import of every source file under a folder. */
export function importEdges(folder: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const from of sourceFiles(folder)) {
    for (const specifier of importSpecifiers(from)) {
      const to = specifier.startsWith('.') ? resolveRelative(from, specifier) : undefined;
      edges.push(to === undefined ? { from, specifier } : { from, specifier, to });
    }
  }
  return edges;
}

/** Files that import each other round in a circle, directly or through others. */
export interface ImportCycle {
  /** Every file of the knot (a strongly connected component of the graph), sorted. */
  files: string[];
  /** One shortest loop through the first of them, so a reader sees the knot: `a.ts -> b.ts -> a.ts`. */
  loop: string[];
}

/**
 * The import cycles among the files the edges join: one per strongly connected component of more
 * than one file (or a file importing itself).
 */
export function importCycles(edges: readonly ImportEdge[]): ImportCycle[] {
  const next = new Map<string, string[]>();
  for (const edge of edges) {
    if (edge.to === undefined) continue;
    const targets = next.get(edge.from) ?? [];
    if (!targets.includes(edge.to)) targets.push(edge.to);
    next.set(edge.from, targets);
  }
  const nodes = [...new Set([...next.keys(), ...[...next.values()].flat()])].sort();
  // Tarjan's strongly connected components.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let counter = 0;
  const connect = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(node, Math.min(low.get(node) as number, low.get(target) as number));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) as number, index.get(target) as number));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      const selfLoop = component.length === 1 && (next.get(node) ?? []).includes(node);
      if (component.length > 1 || selfLoop) components.push(component.sort());
    }
  };
  for (const node of nodes) if (!index.has(node)) connect(node);
  return components.map((files) => ({ files, loop: shortestLoop(files[0] as string, new Set(files), next) }));
}

/** The shortest path from `start` back to itself inside one component (breadth first). */
function shortestLoop(start: string, inside: ReadonlySet<string>, next: ReadonlyMap<string, string[]>): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift() as string;
    for (const target of next.get(node) ?? []) {
      if (!inside.has(target)) continue;
      if (target === start) {
        const loop = [start];
        for (let at = node; at !== start; at = cameFrom.get(at) as string) loop.splice(1, 0, at);
        loop.push(start);
        return loop;
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start, start];
}
