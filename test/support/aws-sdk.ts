import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as AwsSdk from '../../bench/node_modules/@aws/durable-execution-sdk-js/dist-types/index';

/** AWS's `@aws/durable-execution-sdk-js` module, typed by its own dist-types. */
export type AwsDurableSdk = typeof AwsSdk;
export type { AwsSdk };

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NAME = '@aws/durable-execution-sdk-js';

let loaded: Promise<AwsDurableSdk> | undefined;

/**
 * AWS's durable-execution SDK, from bench/node_modules first (where the repository installs it as a
 * bench devDependency), then the root. The ESM entry, as AWS's testing package loads it.
 */
export function importAwsSdk(): Promise<AwsDurableSdk> {
  loaded ??= importBenchPackage<AwsDurableSdk>(NAME);
  return loaded;
}

/**
 * A package the bench installs (AWS's SDK, its testing package, Powertools), from bench/node_modules
 * first, then the root, by its ESM entry: the one AWS's testing package's own imports resolve to, so
 * both share one module instance.
 */
export async function importBenchPackage<T>(name: string): Promise<T> {
  for (const root of [join(ROOT, 'bench'), ROOT]) {
    let main: string;
    try {
      main = createRequire(join(root, 'package.json')).resolve(name);
    } catch {
      continue;
    }
    let dir = dirname(main);
    while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      exports?: { '.'?: { import?: string } };
      module?: string;
    };
    const entry = pkg.exports?.['.']?.import ?? pkg.module ?? main;
    return (await import(pathToFileURL(join(dir, entry)).href)) as T;
  }
  throw new Error(`${name} is not installed: run \`npm install\` in bench/ (it is a bench devDependency)`);
}
