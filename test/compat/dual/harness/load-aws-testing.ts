import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as AwsTesting from '../../../../bench/node_modules/@aws/durable-execution-sdk-js-testing/dist-types/index';

/** AWS's `@aws/durable-execution-sdk-js-testing` module, typed by its own dist-types. */
export type AwsDurableTesting = typeof AwsTesting;

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
const NAME = '@aws/durable-execution-sdk-js-testing';

let loaded: Promise<AwsDurableTesting> | undefined;

/**
 * AWS's testing package, loaded as test/support/aws-sdk.ts loads AWS's SDK: from bench/node_modules
 * first, by its ESM entry. Its own `import '@aws/durable-execution-sdk-js'` resolves to the same file
 * `importAwsSdk` loads, so handlers wrapped by that SDK and this runner share one module instance.
 */
export function importAwsTesting(): Promise<AwsDurableTesting> {
  loaded ??= load();
  return loaded;
}

async function load(): Promise<AwsDurableTesting> {
  for (const root of [join(ROOT, 'bench'), ROOT]) {
    let main: string;
    try {
      main = createRequire(join(root, 'package.json')).resolve(NAME);
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
    return (await import(pathToFileURL(join(dir, entry)).href)) as AwsDurableTesting;
  }
  throw new Error(`${NAME} is not installed: run \`npm install\` in bench/ (it is a bench devDependency)`);
}
