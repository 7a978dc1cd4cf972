#!/usr/bin/env node
// `npm run pack [-- --out DIR] [-- --json]`: packs every package of the repository (each package's
// prepack builds what is stale) into DIR (default `packs/`), then prints the `npm install` lines to
// paste into one's own project. The packages are not on the npm registry yet, and a tarball alone
// cannot be installed: its dependencies name sibling packages at their version, so the tarballs a
// package needs are installed together, in one command. Types: ./pack.d.mts.
import { spawnSync } from 'node:child_process';
import { mkdirSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withDependencies } from './stale-packages.mjs';
import { ROOT } from './test-tools.mjs';

/** The publishable packages (folder names under packages/), in dependency order. */
export const PACKAGES = ['protocol', 'sdk', 'engine', 'api', 'local', 'aws', 'cli', 'cdk', 'otel'];

/** What a project installs, by purpose: the packages named and all they depend on. */
export const PURPOSES = [
  {
    purpose: 'write durable handlers and test them (the SDK, the test runner and the dev server)',
    wants: ['sdk', 'local'],
  },
  {
    purpose:
      'run the `durable` CLI: `npx durable dev`, the console, runs of a deployment (with the SDK, the test runner and the AWS adapters)',
    wants: ['sdk', 'cli'],
  },
  {
    purpose: 'deploy them on AWS with the CDK (add to a CDK app; aws-cdk-lib and constructs are its peers)',
    wants: ['sdk', 'aws', 'cdk', 'api'],
  },
  { purpose: 'trace runs with OpenTelemetry (with the SDK)', wants: ['sdk', 'otel'] },
];

/**
 * Packs every package into `out` with `npm pack`; returns each package's tarball (absolute path).
 * @param {string} out the folder for the tarballs (created when missing).
 * @returns {Map<string, string>} folder name under packages/ to its tarball's path.
 */
export function packAll(out) {
  mkdirSync(out, { recursive: true });
  const dir = realpathSync(out);
  const result = spawnSync(
    'npm',
    ['pack', '--json', '--pack-destination', dir, ...PACKAGES.flatMap((pkg) => ['-w', `packages/${pkg}`])],
    { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  if (result.status !== 0) throw new Error(`npm pack failed (exit ${result.status})`);
  // A package's prepack may build it first, and the build's lines come before npm's JSON.
  const at = result.stdout.search(/^\[/m);
  if (at < 0) throw new Error(`npm pack printed no JSON:\n${result.stdout}`);
  const listed = JSON.parse(result.stdout.slice(at));
  const tarballs = new Map();
  for (const pkg of PACKAGES) {
    const entry = listed.find((item) => item.name === `@durable-lambda/${pkg}`);
    if (!entry) throw new Error(`npm pack did not pack @durable-lambda/${pkg}`);
    tarballs.set(pkg, join(dir, entry.filename));
  }
  return tarballs;
}

/**
 * The install commands for each purpose: the tarballs of the packages it wants and of everything
 * they depend on, in one `npm install` (installed apart, a tarball's sibling dependencies would be
 * looked up on the registry, where they are not).
 * @param {Map<string, string>} tarballs from {@link packAll}.
 * @returns {{ purpose: string, packages: string[], command: string }[]}
 */
export function installLines(tarballs) {
  return PURPOSES.map(({ purpose, wants }) => {
    const needed = new Set();
    for (const pkg of wants) for (const dep of withDependencies(pkg)) needed.add(dep);
    const packages = PACKAGES.filter((pkg) => needed.has(pkg));
    return { purpose, packages, command: `npm install ${packages.map((pkg) => tarballs.get(pkg)).join(' ')}` };
  });
}

function main(argv) {
  let out = join(ROOT, 'packs');
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--json') json = true;
    else if (argv[i] === '--out' && argv[i + 1]) out = resolve(argv[++i]);
    else {
      console.error(`npm run pack: unknown argument ${JSON.stringify(argv[i])} (takes --out DIR, --json)`);
      process.exit(2);
    }
  }
  const tarballs = packAll(out);
  const lines = installLines(tarballs);
  if (json) {
    process.stdout.write(`${JSON.stringify({ tarballs: Object.fromEntries(tarballs), install: lines }, null, 2)}\n`);
    return;
  }
  const say = (text = '') => process.stdout.write(`${text}\n`);
  say();
  say(`Packed ${tarballs.size} packages into ${realpathSync(out)}. In your project, paste the line you need:`);
  for (const { purpose, command } of lines) {
    say();
    say(`  # to ${purpose}`);
    say(`  ${command}`);
  }
  say();
  say('Keep the tarballs where they are: package.json records their paths. On Node 20 the dev server');
  say('also needs better-sqlite3 (npm install better-sqlite3); Node 22.13+ has node:sqlite built in.');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
