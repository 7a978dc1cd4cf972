import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory of this module: `src/` when run from the sources, `dist/` once built (tsup puts
 * every module of the package into one file there). CommonJS has `__dirname`; ESM `import.meta`.
 */
function moduleDir(): string {
  if (typeof __dirname === 'string') return __dirname;
  return dirname(fileURLToPath(import.meta.url));
}

/**
 * A file of `src/runtime/`: the code the constructs bundle into Lambda functions. The package
 * ships `src/` (package.json `files`), so it is found from the sources and from `dist/` alike.
 */
export function runtimeFile(name: string): string {
  const file = join(resolve(moduleDir(), '..'), 'src', 'runtime', name);
  if (!existsSync(file)) throw new Error(`@durable-lambda/cdk: ${file} is missing (is the package installed whole?)`);
  return file;
}
