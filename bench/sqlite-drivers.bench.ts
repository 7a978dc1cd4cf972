/**
 * node:sqlite against better-sqlite3 (issue 25): what installing `@durable-lambda/local` costs with
 * and without better-sqlite3's native build, and what each driver does with the store's commits.
 *
 *   tsx bench/sqlite-drivers.bench.ts [--node22 PATH] [--packs DIR] [--runs N] [--rounds N]
 *     [--no-compile22] [--keep DIR]
 *
 * 1. Install: the tarballs `@durable-lambda/local` needs (`npm run pack`, or `--packs DIR` made by
 *    it) installed into empty projects, each with an npm cache of its own (a fresh machine: every
 *    package downloaded from the registry): Node 20 (better-sqlite3 compiled: no prebuilt binary is
 *    downloaded where GitHub is unreachable), Node 22 with `--omit=optional` (no better-sqlite3:
 *    node:sqlite), and, unless `--no-compile22`, Node 22 compiling better-sqlite3 (the same-Node
 *    comparison of step 2).
 * 2. Commits: commit-child.mjs in each project, on each driver its Node can load: runs of 4 step
 *    commits and an end, each one immediate transaction on a WAL file with synchronous = NORMAL;
 *    then the median of a runs-list page (25 runs) and of a run's replay load, ms.
 *
 * `--keep DIR` works in DIR and leaves it: a second run with the same DIR reuses its projects
 * (their install times are then not measured again) and measures the commits only.
 *
 * Node 22: `--node22`, else DURABLE_NODE22, else the one `node scripts/check-tools.mjs node22`
 * installs. Prints a table; nothing is asserted.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { node22Binary } from '../scripts/node22.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHILD = fileURLToPath(new URL('./sqlite-drivers/commit-child.mjs', import.meta.url));
/** The packages `@durable-lambda/local` depends on, and itself. */
const LOCAL_SET = ['protocol', 'sdk', 'engine', 'api', 'local'];
/** npm's own entry, run by either Node (the Node 22 package from the registry has no npm). */
const NPM_CLI = join(
  dirname(dirname(spawnSync('npm', ['root', '-g'], { encoding: 'utf8' }).stdout.trim())),
  'lib',
  'node_modules',
  'npm',
  'bin',
  'npm-cli.js',
);

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const node22 = option('--node22') ?? node22Binary();
if (!node22)
  throw new Error('no Node 22: pass --node22 PATH, set DURABLE_NODE22, or run `node scripts/check-tools.mjs node22`');
const RUNS = Number(option('--runs') ?? 400);
const ROUNDS = Number(option('--rounds') ?? 2);
const kept = option('--keep');
const work = kept ?? mkdtempSync(join(tmpdir(), 'durable-sqlite-drivers-'));

/** Node 22's own folder (its headers are under include/): what node-gyp builds better-sqlite3 against. */
const node22Dir = dirname(dirname(node22));

function packs(): string {
  const given = option('--packs');
  if (given) return given;
  const out = join(work, 'packs');
  const pack = spawnSync(process.execPath, [join(ROOT, 'scripts', 'pack.mjs'), '--out', out], { stdio: 'inherit' });
  if (pack.status !== 0) throw new Error('npm run pack failed');
  return out;
}

interface Install {
  name: string;
  node: string;
  seconds: number;
  /** CPU time of npm and everything it ran (the compiler), s: what the machine's load does not change. */
  cpuSeconds: number;
  project: string;
  betterSqlite3: boolean;
}

/** Installs the tarballs into an empty project with `node` running npm; times it. */
function install(
  name: string,
  node: string,
  tarballs: string[],
  extra: string[],
  env: NodeJS.ProcessEnv = {},
): Install {
  const project = join(work, name);
  if (existsSync(join(project, 'node_modules', '@durable-lambda', 'local'))) {
    const betterSqlite3 = existsSync(join(project, 'node_modules', 'better-sqlite3'));
    return { name, node, seconds: Number.NaN, cpuSeconds: Number.NaN, project, betterSqlite3 };
  }
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  const started = performance.now();
  // Through bash's `time`, whose user and sys times count every process npm waited for.
  const npm = spawnSync(
    'bash',
    [
      '-c',
      'TIMEFORMAT="cpu %U %S"; time "$@"',
      'bash',
      node,
      NPM_CLI,
      'install',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `--cache=${join(work, `cache-${name}`)}`,
      ...extra,
      ...tarballs,
    ],
    // npm runs install scripts with the `node` on the PATH: the same Node as npm itself.
    { cwd: project, encoding: 'utf8', env: { ...process.env, ...env, PATH: `${dirname(node)}:${process.env.PATH}` } },
  );
  const seconds = (performance.now() - started) / 1_000;
  if (npm.status !== 0) throw new Error(`${name}: npm install failed:\n${npm.stderr.slice(-3_000)}`);
  const [, user, sys] = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(npm.stderr) ?? [];
  const cpuSeconds = Number(user) + Number(sys);
  const betterSqlite3 = readdirSync(join(project, 'node_modules')).includes('better-sqlite3');
  return { name, node, seconds, cpuSeconds, project, betterSqlite3 };
}

interface Commits {
  node: string;
  driver: string;
  commitsPerSecond: number;
  runsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  listP50Ms: number;
  replayP50Ms: number;
}

function commits(node: string, project: string, driver: 'node' | 'better-sqlite3'): Commits {
  const db = join(work, `commits-${Math.random().toString(36).slice(2)}.sqlite`);
  const child = spawnSync(node, [CHILD, project, db, String(RUNS), '4'], {
    encoding: 'utf8',
    env: { ...process.env, DURABLE_SQLITE_DRIVER: driver },
  });
  if (child.status !== 0) throw new Error(`commits on ${driver}: ${child.stderr.slice(-2_000)}`);
  // A warning node:sqlite prints would show here: the store holds back only its own.
  if (child.stderr.trim()) process.stderr.write(`(stderr of the ${driver} child) ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').pop() as string) as Commits;
}

const dir = packs();
const tarballs = readdirSync(dir)
  .filter((file) => LOCAL_SET.some((pkg) => file === `durable-lambda-${pkg}-0.1.0.tgz`))
  .map((file) => join(dir, file));
console.log(
  `load average at the start: ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')} (${RUNS} runs a measurement)`,
);

const installs = [
  install('node20', process.execPath, tarballs, []),
  install('node22-omit-optional', node22, tarballs, ['--omit=optional']),
  ...(args.includes('--no-compile22')
    ? []
    : [install('node22-compile', node22, tarballs, [], { npm_config_nodedir: node22Dir })]),
];
console.log('\nnpm install of @durable-lambda/local and its tarballs into an empty project (own npm cache)');
for (const row of installs) {
  console.log(
    `  ${row.name.padEnd(22)} ${Number.isNaN(row.seconds) ? '(installed by an earlier run)'.padEnd(28) : `${row.seconds.toFixed(1).padStart(6)} s wall ${row.cpuSeconds.toFixed(1).padStart(6)} s CPU`}   better-sqlite3 installed: ${row.betterSqlite3}`,
  );
}

const byName = (name: string) => installs.find((row) => row.name === name);
const measured: Commits[] = [];
for (let round = 0; round < ROUNDS; round++) {
  // Rounds, the drivers alternating, so a load spike from elsewhere lands on both drivers alike.
  measured.push(commits(process.execPath, (byName('node20') as Install).project, 'better-sqlite3'));
  measured.push(commits(node22, (byName('node22-omit-optional') as Install).project, 'node'));
  const compiled = byName('node22-compile');
  if (compiled) measured.push(commits(node22, compiled.project, 'better-sqlite3'));
}
console.log(`\nSqliteStore commits (WAL, synchronous = NORMAL; ${RUNS} runs x 5 commits, ${ROUNDS} rounds)`);
console.log('  node      driver            commits/s   runs/s   p50 ms   p99 ms   max ms   list p50   replay p50');
for (const row of measured) {
  console.log(
    `  ${row.node.padEnd(9)} ${row.driver.padEnd(16)} ${String(row.commitsPerSecond).padStart(10)} ${String(row.runsPerSecond).padStart(8)} ${row.p50Ms.toFixed(3).padStart(8)} ${row.p99Ms.toFixed(3).padStart(8)} ${row.maxMs.toFixed(1).padStart(8)} ${row.listP50Ms.toFixed(3).padStart(10)} ${row.replayP50Ms.toFixed(3).padStart(12)}`,
  );
}
console.log(
  `load average at the end: ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
if (!kept) rmSync(work, { recursive: true, force: true });
