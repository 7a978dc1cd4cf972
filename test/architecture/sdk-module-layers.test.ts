import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../packages/sdk/src', import.meta.url));

/** `import … from`, `export … from`, side-effect imports and literal dynamic imports. */
const SPECIFIERS = [
  /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?[^'"`;]*?\sfrom\s+['"]([^'"]+)['"]/g,
  /(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g,
  /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Every file of the package with the package files it imports (type-only imports count too). */
function importGraph(root: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(root)) {
    const text = readFileSync(file, 'utf8');
    const targets = new Set<string>();
    for (const pattern of SPECIFIERS) {
      for (const match of text.matchAll(pattern)) {
        const specifier = match[1] as string;
        if (!specifier.startsWith('.')) continue;
        const base = resolve(dirname(file), specifier);
        const target = [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
        if (!target) throw new Error(`${relative(root, file)} imports ${specifier}, which does not resolve`);
        targets.add(relative(root, target));
      }
    }
    graph.set(relative(root, file), [...targets].sort());
  }
  return graph;
}

/** The import cycles of a graph: its strongly connected components of more than one file, or a self-import. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

const layer = (file: string) => file.split('/')[0] as string;

describe('the SDK’s modules depend on each other one way', () => {
  const graph = importGraph(SRC);

  it('reads the imports it checks: the parser sees the package’s files and their imports', () => {
    // Guards the checks below against passing vacuously on a graph the parser failed to build.
    expect(graph.size).toBeGreaterThan(50);
    expect(graph.get('context/durable-context.ts')).toContain('operations/step.ts');
    expect(graph.get('operations/step.ts')).toContain('types/step.ts');
  });

  it('finds a cycle where there is one (the checker itself can fail)', () => {
    const looped = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cycles(looped)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(cycles(new Map([['self.ts', ['self.ts']]]))).toEqual([['self.ts']]);
  });

  it('has no import cycle, type-only imports included', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('keeps the public types in leaf modules: types/ and errors/ import nothing of the runtime', () => {
    // duration.ts (Duration validation, which RetryAfterError needs) belongs to this leaf layer too.
    const leaf = (file: string) => ['types', 'errors'].includes(layer(file)) || file === 'duration.ts';
    const offending = [...graph].flatMap(([file, targets]) =>
      leaf(file) ? targets.filter((t) => !leaf(t)).map((t) => `${file} -> ${t}`) : [],
    );
    expect(offending).toEqual([]);
  });

  it('runs types, then operations, then the context: no operation imports the context that exposes it', () => {
    const offending = [...graph].flatMap(([file, targets]) =>
      layer(file) === 'operations'
        ? targets.filter((t) => t === 'context/durable-context.ts' || t === 'handler.ts' || t === 'index.ts')
        : [],
    );
    expect(offending).toEqual([]);
  });
});
