/**
 * `@durable-lambda/aws/register`, as built (`npm run build`), in a fresh Node process each: from
 * ESM and from CommonJS it registers the production backend that `withDurableExecution` (without
 * `config.backend`) then runs on, and the registration holds across the two formats' copies of the
 * sdk (a process may load both). Without it, the invocation fails naming `config.backend` and the
 * entry to import. The packed tarballs' entries are loaded by pack-install.test.ts.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from './support';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

beforeAll(() => {
  for (const file of [
    'packages/aws/dist/register.js',
    'packages/aws/dist/register.cjs',
    'packages/sdk/dist/index.cjs',
  ]) {
    if (!existsSync(join(root, file))) throw new Error(`run \`npm run build\` first: ${file} is missing`);
  }
});

/** The environment of a process with no durable-lambda or AWS configuration. */
function bareEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) =>
        !key.startsWith('DURABLE_') && !key.startsWith('AWS_') && !key.startsWith('VITEST') && key !== 'NODE_OPTIONS',
    ),
  );
}

/** Invokes a handler wrapped without a backend once; prints what the invocation failed with. */
const INVOKE = `
  const handler = sdk.withDurableExecution(async () => 'never');
  const failure = await handler({}, { functionName: 'fn', awsRequestId: 'req-1' }).catch((error) => error);
  console.log(JSON.stringify({ registered: typeof sdk.registeredBackend(), name: failure?.name, code: failure?.code, field: failure?.field, message: failure?.message }));
`;

async function run(kind: 'esm' | 'cjs', body: string): Promise<Record<string, string | undefined>> {
  const args =
    kind === 'esm' ? ['--input-type=module', '-e', body] : ['--input-type=commonjs', '-e', `(async () => {${body}})()`];
  const result = await runProcess(process.execPath, args, { cwd: root, env: bareEnv(), timeoutMs: 60_000 });
  const last = result.stdout.trim().split('\n').pop() ?? '';
  expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
  return JSON.parse(last) as Record<string, string | undefined>;
}

/** What the production backend says when the environment configures none of it. */
const PRODUCTION_BACKEND_RAN = {
  registered: 'function',
  name: 'ConfigurationError',
  code: 'missing_configuration',
  message: expect.stringContaining('DURABLE_TABLE_NAME'),
};

describe('@durable-lambda/aws/register (built)', () => {
  it('registers the production backend from ESM', async () => {
    const outcome = await run(
      'esm',
      `import '@durable-lambda/aws/register';
       import * as sdk from '@durable-lambda/sdk';
       ${INVOKE}`,
    );
    expect(outcome).toMatchObject(PRODUCTION_BACKEND_RAN);
  });

  it('registers the production backend from CommonJS', async () => {
    const outcome = await run(
      'cjs',
      `require('@durable-lambda/aws/register');
       const sdk = require('@durable-lambda/sdk');
       ${INVOKE}`,
    );
    expect(outcome).toMatchObject(PRODUCTION_BACKEND_RAN);
  });

  it("holds across the formats: required from CommonJS, seen by the sdk's ES module", async () => {
    const outcome = await run(
      'cjs',
      `require('@durable-lambda/aws/register');
       const sdk = await import('@durable-lambda/sdk');
       ${INVOKE}`,
    );
    expect(outcome).toMatchObject(PRODUCTION_BACKEND_RAN);
  });

  it('is kept by a bundler that honours sideEffects (the side-effect import is the whole point)', async () => {
    // Under the root's node_modules, where @durable-lambda/* link to the packages (their dist).
    const dir = join(root, 'node_modules', '.cache', 'durable-lambda-tests', `register-bundle-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    try {
      writeFileSync(
        join(dir, 'entry.mjs'),
        `import '@durable-lambda/aws/register';\nexport * as sdk from '@durable-lambda/sdk';\n`,
      );
      await build({
        entryPoints: [join(dir, 'entry.mjs')],
        outfile: join(dir, 'bundle.mjs'),
        bundle: true,
        format: 'esm',
        platform: 'node',
        mainFields: ['module', 'main'],
        external: ['@aws-sdk/*', '@smithy/*'],
        logLevel: 'silent',
      });
      const outcome = await run(
        'esm',
        `const { sdk } = await import(${JSON.stringify(pathToFileURL(join(dir, 'bundle.mjs')).href)});\n${INVOKE}`,
      );
      expect(outcome).toMatchObject(PRODUCTION_BACKEND_RAN);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('without it, fails the invocation naming config.backend and the entry to import', async () => {
    const outcome = await run('esm', `import * as sdk from '@durable-lambda/sdk';\n${INVOKE}`);
    expect(outcome).toMatchObject({
      registered: 'undefined',
      name: 'InvalidArgumentError',
      code: 'invalid_argument',
      field: 'config.backend',
      message: expect.stringContaining("import '@durable-lambda/aws/register'"),
    });
  });
});
