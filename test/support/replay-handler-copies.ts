/**
 * Modified copies of an example's handler module, as a developer would change it before a deploy:
 * the example's source with text edits applied, written to a temporary folder with its imports made
 * absolute (so the copy loads under Vitest and under the CLI's tsx alike). Each edit must match the
 * source exactly once: a copy never silently equals the original when the example changes.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
let folder: string | undefined;

/** Writes `examples/<example>/handler.ts` with `edits` applied as `<name>.ts`; returns its path. */
export function handlerCopy(example: string, name: string, edits: ReadonlyArray<readonly [string, string]>): string {
  const source = join(root, 'examples', example, 'handler.ts');
  let text = readFileSync(source, 'utf8');
  for (const [from, to] of edits) {
    const count = text.split(from).length - 1;
    if (count !== 1)
      throw new Error(`handlerCopy ${name}: ${JSON.stringify(from)} appears ${count} times in ${source}`);
    text = text.replace(from, to);
  }
  text = text
    .replaceAll("from '@durable-lambda/sdk'", `from ${JSON.stringify(join(root, 'packages/sdk/src/index.ts'))}`)
    .replace(/from '\.\.\/([^']+)'/g, (_m, path: string) => `from ${JSON.stringify(join(root, 'examples', path))}`);
  folder ??= mkdtempSync(join(tmpdir(), 'durable-replay-'));
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${name}.ts`);
  writeFileSync(file, text);
  return file;
}

/** Deletes the copies written so far (call it in `afterAll`). */
export function removeHandlerCopies(): void {
  if (folder) rmSync(folder, { recursive: true, force: true });
  folder = undefined;
}
