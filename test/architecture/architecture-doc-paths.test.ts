/**
 * docs/ARCHITECTURE.md names files; a file moved or renamed without its line there fails here.
 * A path (`aws/src/production.ts`) must exist under packages/ or the repository's root; a bare
 * file name (`session.ts`) must be the name of some file in a package's src.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const DOC = readFileSync(join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');

function sourceNames(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else names.add(entry.name);
    }
  };
  for (const pkg of readdirSync(join(ROOT, 'packages'))) {
    if (existsSync(join(ROOT, 'packages', pkg, 'src'))) walk(join(ROOT, 'packages', pkg, 'src'));
  }
  return names;
}

describe('docs/ARCHITECTURE.md', () => {
  const named = [...DOC.matchAll(/`([a-z0-9][\w./-]*\.(?:ts|mts|md))`/g)].map((m) => m[1] as string);

  it('names files', () => {
    expect(named.length).toBeGreaterThan(40);
  });

  it('names only files that exist', () => {
    const names = sourceNames();
    const missing = named.filter((path) =>
      path.includes('/')
        ? !existsSync(join(ROOT, path)) && !existsSync(join(ROOT, 'packages', path))
        : !names.has(path),
    );
    expect(missing).toEqual([]);
  });
});
