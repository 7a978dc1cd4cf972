/**
 * How the bench starts a TypeScript process of its own (a section, a memory child): node with tsx's
 * loader imported and the root tsconfig named, as `tsx --tsconfig <root>/tsconfig.json <file>`
 * does, but in one node process instead of two. tsx's CLI only starts a second node that imports
 * the same loader (plus a preflight that relays signals from the CLI's process); that extra process
 * cost ~0.3 CPU-s a start, on every section and child. The code that runs `file` is the same.
 */
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The arguments for `process.execPath` that run `file` (a .ts file) with `args`. */
export function tsxArgv(file: string, args: string[] = []): string[] {
  return ['--import', pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href, file, ...args];
}

/** The environment `tsxArgv` needs on top of `base`: tsx's loader reads the tsconfig to use from it. */
export function tsxEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...base, TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.json') };
}
