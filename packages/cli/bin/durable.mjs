#!/usr/bin/env node
// The `durable` CLI launcher. It runs the built package (dist/index.js, made by `npm run build`);
// when dist is missing (a checkout that was not built) or DURABLE_CLI_SOURCE=1 is set, it runs the
// TypeScript sources through tsx instead (a dev dependency of the repository, not of the package).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dist = new URL('../dist/index.js', import.meta.url);
const fromSource = process.env.DURABLE_CLI_SOURCE === '1' || !existsSync(fileURLToPath(dist));

async function load() {
  if (!fromSource) return import(dist.href);
  let esm;
  let cjs;
  try {
    [esm, cjs] = await Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]);
  } catch {
    process.stderr.write(
      'durable: @durable-lambda/cli is not built (no dist/index.js) and tsx is not installed to run its sources.\n' +
        'Run `npm run build` (or `npm install`) in the repository first.\n',
    );
    process.exit(2);
  }
  // The repository's tsconfig maps @durable-lambda/* to their sources (used by `durable dev`).
  const tsconfig = fileURLToPath(new URL('../../../tsconfig.json', import.meta.url));
  // Registered for the whole process, as `node --import tsx` does, not scoped (tsImport): a scoped
  // import puts a fresh random namespace into every module's URL, which is part of tsx's cache key,
  // so every start compiled all the sources again (~0.8 CPU-s) and added ~70 files to the cache.
  // The entries `durable dev` loads then import as they are, through the same hooks.
  esm.register(existsSync(tsconfig) ? { tsconfig } : {});
  cjs.register();
  return import('../src/main.ts');
}

const { runCli } = await load();
process.exitCode = await runCli(process.argv.slice(2));
