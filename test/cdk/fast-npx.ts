/**
 * A directory whose `npx` runs the repository's own esbuild and tsx without npx's start-up (~0.7
 * CPU-s each; CDK's local bundling runs `npx --no-install esbuild` once per function), and hands
 * everything else (`npx cdk synth` itself) to the real npx. The same binaries run with the same
 * arguments: only the launcher that finds them in node_modules/.bin is skipped.
 * DURABLE_SYNTH_REAL_NPX=1 keeps the real npx throughout.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { REPO_ROOT } from './support';

/** Writes the `npx` launcher into `<work>/fast-npx` and returns that directory (undefined: use the real npx). */
export function fastNpxDir(work: string): string | undefined {
  if (process.env.DURABLE_SYNTH_REAL_NPX === '1') return undefined;
  const realNpx = spawnSync('sh', ['-c', 'command -v npx'], { encoding: 'utf8' }).stdout.trim();
  const esbuild = join(REPO_ROOT, 'node_modules', '.bin', 'esbuild');
  const tsx = join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  if (!realNpx || !existsSync(esbuild) || !existsSync(tsx)) return undefined;
  const dir = join(work, 'fast-npx');
  mkdirSync(dir);
  const q = (path: string) => `'${path.replace(/'/g, `'\\''`)}'`;
  writeFileSync(
    join(dir, 'npx'),
    [
      '#!/bin/sh',
      `if [ "$1" = "--no-install" ] && [ "$2" = "esbuild" ]; then shift 2; exec ${q(esbuild)} "$@"; fi`,
      `if [ "$1" = "tsx" ]; then shift; exec ${q(process.execPath)} ${q(tsx)} "$@"; fi`,
      `exec ${q(realNpx)} "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(join(dir, 'npx'), 0o755);
  return dir;
}

/**
 * Runs `fn` (synchronous: nothing else runs in this process meanwhile) with the launcher first on
 * this process's PATH, as an in-process `app.synth()` that bundles needs it, and puts PATH back.
 */
export function withFastNpx<T>(fn: () => T): T {
  const dir = fastNpxDir(mkdtempSync(join(process.env.DURABLE_TEST_SCRATCH ?? tmpdir(), 'fast-npx-')));
  if (dir === undefined) return fn();
  const saved = process.env.PATH;
  process.env.PATH = `${dir}${delimiter}${saved ?? ''}`;
  try {
    return fn();
  } finally {
    if (saved === undefined) delete process.env.PATH;
    else process.env.PATH = saved;
  }
}
