/**
 * What `npm run build` left in packages/<name>/dist, read in place: every file each package.json
 * names exists, and each bundle holds only its own package's sources.
 *
 * How consumers reach it (require() and import() of every entry, in a fresh Node process each, and
 * the declarations type-checked as ESM and CommonJS, nodenext and node10) is checked once, where a
 * user reaches it: in the app pack-install.test.ts installs from the packed tarballs, whose dist
 * is this one. This file starts no process.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { PACKAGES, type Pkg, packageEntries } from './support';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const pkgDir = (pkg: Pkg) => join(root, 'packages', pkg);
const readManifest = (pkg: Pkg) => JSON.parse(readFileSync(join(pkgDir(pkg), 'package.json'), 'utf8'));

/** Every file path named by a package.json `exports` value (conditions nested at any depth). */
function exportTargets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(exportTargets);
  if (value && typeof value === 'object') return Object.values(value).flatMap(exportTargets);
  return [];
}

const entries = PACKAGES.flatMap((pkg) => packageEntries(readManifest(pkg)).map((entry) => ({ pkg, ...entry })));

beforeAll(() => {
  const missing = entries.flatMap(({ pkg, dist }) =>
    [`${dist}.js`, `${dist}.cjs`, `${dist}.d.ts`, `${dist}.d.cts`]
      .map((file) => join(pkgDir(pkg), 'dist', file))
      .filter((file) => !existsSync(file)),
  );
  if (missing.length > 0) {
    throw new Error(
      `The packaging test needs the built packages; run \`npm run build\` first.\nMissing:\n  ${missing
        .map((file) => relative(root, file))
        .join('\n  ')}`,
    );
  }
});

describe.each(PACKAGES)('@durable-lambda/%s dist', (pkg) => {
  it('has package.json exports, main, module and types pointing at existing files', () => {
    const manifest = readManifest(pkg);
    const targets = [...exportTargets(manifest.exports), manifest.main, manifest.module, manifest.types];
    expect(exportTargets(manifest.exports)).toEqual(
      expect.arrayContaining(['./dist/index.js', './dist/index.cjs', './dist/index.d.ts', './dist/index.d.cts']),
    );
    for (const target of targets) {
      expect(typeof target, `a target in ${pkg}/package.json`).toBe('string');
      expect(existsSync(join(pkgDir(pkg), target)), `${pkg}/package.json points at ${target}`).toBe(true);
    }
  });

  it('bundles only its own sources (sibling packages stay external imports)', () => {
    const maps = readdirSync(join(pkgDir(pkg), 'dist')).filter((file) => file.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(0);
    for (const file of maps) {
      const map = JSON.parse(readFileSync(join(pkgDir(pkg), 'dist', file), 'utf8')) as { sources: string[] };
      const foreign = map.sources
        .map((source) => resolve(pkgDir(pkg), 'dist', source))
        .filter((source) => !source.startsWith(join(pkgDir(pkg), 'src') + sep));
      expect(foreign, `dist/${file} of ${pkg}`).toEqual([]);
    }
  });
});
