#!/usr/bin/env node
/**
 * Runs AWS's example test files (the `aws-durable-execution-sdk-js-examples` package of a checkout
 * of AWS's `aws-durable-execution-sdk-js` repository, which is not published to npm) on ours:
 * `@aws/durable-execution-sdk-js` resolves to @durable-lambda/sdk and
 * `@aws/durable-execution-sdk-js-testing` to @durable-lambda/local/testing (SIDE=aws: AWS's 2.4.0 and
 * 1.1.4 from bench/node_modules, to compare). Nothing of AWS's is copied here: the files are read
 * where the checkout is, with a Vitest config written to a temporary folder (Jest globals mapped).
 *
 *   node test/compat/aws-examples/run-aws-examples.mjs <checkout> [filter...]
 *
 * Prints Vitest's summary; not part of `npm test` (the checkout is not in this repository).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const [checkout, ...filters] = process.argv.slice(2);
const examples = checkout && join(resolve(checkout), 'packages/aws-durable-execution-sdk-js-examples/src');
if (!examples || !existsSync(examples)) {
  console.error('usage: run-aws-examples.mjs <checkout of aws-durable-execution-sdk-js> [filter...]');
  process.exit(2);
}
const side = process.env.SIDE === 'aws' ? 'aws' : 'ours';
const work = mkdtempSync(join(tmpdir(), 'aws-examples-'));
symlinkSync(join(root, 'node_modules'), join(work, 'node_modules'));
const src = (pkg, file = 'index.ts') => join(root, 'packages', pkg, 'src', file);
const bench = (pkg, file) => join(root, 'bench/node_modules', pkg, file);
const aliases = {
  '@durable-lambda/local/testing': src('local', 'testing-entry.ts'),
  ...Object.fromEntries(
    ['protocol', 'sdk', 'engine', 'local', 'aws', 'api', 'otel'].map((pkg) => [`@durable-lambda/${pkg}`, src(pkg)]),
  ),
  '@aws/durable-execution-sdk-js-testing':
    side === 'aws'
      ? bench('@aws/durable-execution-sdk-js-testing', 'dist/index.mjs')
      : src('local', 'testing-entry.ts'),
  '@aws/durable-execution-sdk-js':
    side === 'aws' ? bench('@aws/durable-execution-sdk-js', 'dist/index.mjs') : src('sdk'),
  '@aws-sdk/client-lambda': join(root, 'node_modules/@aws-sdk/client-lambda/dist-cjs/index.js'),
  '@aws-sdk/client-dynamodb': join(root, 'node_modules/@aws-sdk/client-dynamodb/dist-cjs/index.js'),
  '@aws-lambda-powertools/logger': bench('@aws-lambda-powertools/logger', 'lib/esm/index.js'),
};
writeFileSync(
  join(work, 'setup.mjs'),
  "import { vi } from 'vitest';\nglobalThis.jest = { setTimeout: (ms) => vi.setConfig({ testTimeout: ms }), fn: vi.fn, spyOn: vi.spyOn };\n",
);
const exactly = (id) => `new RegExp(${JSON.stringify(`^${id.replace(/[/.]/g, (c) => `\\${c}`)}$`)})`;
writeFileSync(
  join(work, 'vitest.config.mjs'),
  `export default {
  resolve: { alias: [${Object.entries(aliases)
    .map(([id, to]) => `{ find: ${exactly(id)}, replacement: ${JSON.stringify(to)} }`)
    .join(', ')}] },
  server: { fs: { allow: ['/'] } },
  test: { globals: true, root: ${JSON.stringify(examples)}, include: ['**/*.test.ts'], setupFiles: [${JSON.stringify(join(work, 'setup.mjs'))}], testTimeout: 60000, hookTimeout: 60000, pool: 'forks', maxWorkers: 1 },
};\n`,
);
const run = spawnSync(
  process.execPath,
  [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--config', join(work, 'vitest.config.mjs'), ...filters],
  { stdio: 'inherit', cwd: work },
);
process.exit(run.status ?? 1);
