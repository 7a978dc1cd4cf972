#!/usr/bin/env node
// `prepack` of every publishable package (npm runs it in the package's folder before `npm pack` and
// `npm publish`): builds the package, and the sibling packages it depends on, when their dist is
// missing or older than their sources; copies the repository's LICENSE in (scripts/postpack.mjs
// removes it again); refuses to pack a package without a README.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { stalePackages, withDependencies } from './stale-packages.mjs';
import { ROOT } from './test-tools.mjs';

const dir = process.cwd();
const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
if (!existsSync(join(dir, 'README.md'))) {
  console.error(`prepack: ${manifest.name} has no README.md; every published package needs one`);
  process.exit(1);
}
const stale = stalePackages(withDependencies(basename(dir)));
if (stale.length > 0) {
  console.error(`prepack: building ${stale.join(', ')}`);
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), ...stale], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
copyFileSync(join(ROOT, 'LICENSE'), join(dir, 'LICENSE'));
