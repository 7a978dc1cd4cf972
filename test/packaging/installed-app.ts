/**
 * The app pack-install.test.ts builds: `npm pack` of every package, and the tarballs installed
 * together into an app in the system's temp folder, outside this repository, the registry's way
 * (our packages only from the tarballs, the rest from the npm cache, optional dependencies left
 * out, so no native module).
 *
 * What a consumer provides around the app sits one folder up, as a workspace root would hoist it:
 * links to this repository's copies. The tools (tsc, Jest, @types/node), with their own optional
 * dependencies (Jest's resolver needs its native binding): installing them afresh took a second
 * npm install of ~300 packages. And the peer dependencies (aws-cdk-lib, constructs,
 * @opentelemetry/api), which a consumer installs itself by definition: npm still resolves them
 * (the lockfile records the versions it chose, and the test checks that the linked copies are
 * those), but `--omit=peer` spares extracting aws-cdk-lib's 160 MB, most of the install's CPU.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PACKAGES, type Pkg, type ProcessResult, runProcess } from './support';

/** A single child process (one npm install, one test file) gets this long before it is killed. */
const PROCESS_TIMEOUT_MS = 10 * 60_000;
/** The tools above the app: this repository's own copies. */
const APP_TOOLS = ['typescript', '@types/node', 'jest', '@jest/globals'];

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

/** Child processes: no loaders or flags inherited from the test runner, no repository above them. */
export const childEnv: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
export const run = (command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = childEnv) =>
  runProcess(command, args, { cwd, env, timeoutMs: PROCESS_TIMEOUT_MS });
export const describeRun = (result: ProcessResult | undefined) =>
  result ? `exit ${result.status}\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}` : 'not run';

/** One packed package. */
export interface Tarball {
  file: string;
  /** The files it holds, relative to its package folder. */
  files: string[];
  /** Its package.json, as packed. */
  manifest: Record<string, unknown> & {
    name: string;
    version: string;
    exports: Record<string, unknown>;
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  };
}

/** An `npm install` line `npm run pack` prints: what it is for, and the packages it installs. */
export interface InstallLine {
  purpose: string;
  packages: Pkg[];
  command: string;
}

/** The files under `dir`, relative to it. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    return entry.isDirectory() ? filesUnder(dir, path) : [path];
  });
}

/**
 * Packs every package into `<work>/tarballs` with `npm run pack` (scripts/pack.mjs, what a user
 * runs) and unpacks each into `<work>/unpacked/<pkg>`; returns the tarballs and the install lines
 * the script prints.
 */
export async function pack(root: string, work: string): Promise<{ packed: Map<Pkg, Tarball>; lines: InstallLine[] }> {
  const tarballs = join(work, 'tarballs');
  const result = await run(process.execPath, [join(root, 'scripts', 'pack.mjs'), '--out', tarballs, '--json'], root);
  if (result.status !== 0) throw new Error(`npm run pack failed: ${describeRun(result)}`);
  const answer = JSON.parse(result.stdout) as { tarballs: Record<string, string>; install: InstallLine[] };
  const packed = new Map<Pkg, Tarball>();
  for (const pkg of PACKAGES) {
    const file = answer.tarballs[pkg];
    if (!file) throw new Error(`npm run pack did not pack @durable-lambda/${pkg}`);
    const unpacked = join(work, 'unpacked', pkg);
    mkdirSync(unpacked, { recursive: true });
    const tar = await run('tar', ['-xzf', file, '-C', unpacked], work);
    if (tar.status !== 0) throw new Error(`tar -xzf ${file} failed: ${describeRun(tar)}`);
    packed.set(pkg, {
      file,
      files: filesUnder(join(unpacked, 'package')),
      manifest: readJson(join(unpacked, 'package', 'package.json')),
    });
  }
  return { packed, lines: answer.install };
}

/**
 * A project of its own at `<work>/<name>`, empty but for a package.json, where `command` (an
 * install line `npm run pack` printed) is run as printed, with flags that only spare time: the npm
 * cache first, no optional dependency (no native module to compile).
 */
export async function installLine(work: string, name: string, command: string): Promise<ProcessResult> {
  const app = join(work, name);
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name, private: true }, null, 2)}\n`);
  const [npm, verb, ...tarballs] = command.split(' ');
  if (npm !== 'npm' || verb !== 'install') throw new Error(`not an npm install line: ${command}`);
  const flags = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', '--omit=optional'];
  return run('npm', ['install', ...flags, ...tarballs], app);
}

/** The peer dependencies of our packages that are not ours: what the consumer provides. */
export function foreignPeers(packed: ReadonlyMap<Pkg, Tarball>): string[] {
  // An optional peer (better-sqlite3 of the local package) is the consumer's choice, not provided here.
  const names = [...packed.values()].flatMap((tarball) =>
    Object.keys(tarball.manifest.peerDependencies ?? {}).filter(
      (name) => tarball.manifest.peerDependenciesMeta?.[name]?.optional !== true,
    ),
  );
  return [...new Set(names.filter((name) => !name.startsWith('@durable-lambda/')))].sort();
}

/** Links `names` from this repository's node_modules into `<work>/node_modules`. */
function linkFromRepository(root: string, work: string, names: readonly string[]): void {
  for (const name of names) {
    const target = join(root, 'node_modules', name);
    if (!existsSync(join(target, 'package.json'))) throw new Error(`${name} is not installed in ${root}/node_modules`);
    const link = join(work, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(target, link, 'dir');
  }
}

/**
 * Our tarballs into `<work>/app` (no optional dependency, peers resolved but not extracted), the
 * tools and the peers one folder up. Nothing of ours comes through the links: the app's imports of
 * `@durable-lambda/*` resolve from its own node_modules, filled from the tarballs only.
 */
export async function install(root: string, work: string, packed: ReadonlyMap<Pkg, Tarball>): Promise<ProcessResult> {
  linkFromRepository(root, work, [...APP_TOOLS, ...foreignPeers(packed)]);
  const app = join(work, 'app');
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'pack-test-app', private: true }, null, 2)}\n`);
  const tarballFiles = PACKAGES.map((pkg) => packed.get(pkg)?.file ?? '');
  const flags = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', '--omit=optional', '--omit=peer'];
  const result = await run('npm', ['install', ...flags, ...tarballFiles], app);
  if (result.status !== 0) throw new Error(`npm install in ${app} failed: ${describeRun(result)}`);
  return result;
}
