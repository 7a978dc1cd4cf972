// Which packages' dist is missing or older than what their build reads (used by scripts/prepack.mjs
// and the packaging tests). Types: ./stale-packages.d.mts.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './test-tools.mjs';

const packageDir = (name) => join(ROOT, 'packages', name);

/** Newest modification time of the files under `path` (0 when it does not exist). */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((entry) => newest(join(path, entry))));
}

/** Oldest modification time of the files in `dist` (0 when it is empty or missing). */
function oldestOutput(dist) {
  if (!existsSync(dist)) return 0;
  const times = readdirSync(dist).map((entry) => statSync(join(dist, entry)).mtimeMs);
  return times.length > 0 ? Math.min(...times) : 0;
}

/** True when anything the package's build reads is newer than the oldest file it wrote. */
export function isStale(name) {
  const at = packageDir(name);
  const built = oldestOutput(join(at, 'dist'));
  const inputs = [join(at, 'src'), join(at, 'package.json'), join(at, 'tsconfig.build.json')];
  const scripts = ['build.mjs', 'declaration-program.mjs'].map((file) => newest(join(ROOT, 'scripts', file)));
  return built === 0 || Math.max(...inputs.map(newest), ...scripts) > built;
}

/** The package (a folder name under packages/) and every @durable-lambda package it depends on. */
export function withDependencies(name, seen = new Set()) {
  if (seen.has(name)) return seen;
  seen.add(name);
  const manifest = JSON.parse(readFileSync(join(packageDir(name), 'package.json'), 'utf8'));
  const deps = { ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies };
  for (const dep of Object.keys(deps).filter((d) => d.startsWith('@durable-lambda/'))) {
    withDependencies(dep.slice('@durable-lambda/'.length), seen);
  }
  return seen;
}

/** The stale ones among `names` (folder names under packages/). */
export function stalePackages(names) {
  return [...names].filter(isStale);
}
