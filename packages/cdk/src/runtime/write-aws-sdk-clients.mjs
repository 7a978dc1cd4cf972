#!/usr/bin/env node
// Run by the bundling of a DurableFunction and of the reconciler after esbuild
// (`node write-aws-sdk-clients.mjs <outputDir>`): writes <outputDir>/node_modules/@aws-sdk/client-scheduler,
// client-lambda and client-sqs, each one ES module bundled from the version @durable-lambda/aws
// depends on, exporting what the production backend uses of it. The backend imports them at their
// first call by a name esbuild does not follow (`importAwsSdk` in lazy-aws-sdk-clients.ts), so the
// function's bundle (index.mjs) holds none of them: a cold start neither loads nor parses them, and
// the first schedule, queued wake-up or invoke loads only its own client. A handler's own imports of
// these packages are bundled into index.mjs as usual, from its own dependencies.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';

const outputDir = process.argv[2];
if (!outputDir) {
  console.error('usage: node write-aws-sdk-clients.mjs <bundle output directory>');
  process.exit(2);
}

/** What the production backend uses of each client (lazy-aws-sdk-clients.ts, sqs-delay-waker.ts). */
const CLIENTS = {
  'client-scheduler': ['SchedulerClient', 'CreateScheduleCommand', 'DeleteScheduleCommand'],
  'client-lambda': ['LambdaClient', 'InvokeCommand'],
  'client-sqs': ['SQSClient', 'SendMessageCommand'],
};

// Must match ESM_REQUIRE_BANNER (bundle-defaults.ts): the SDK's CommonJS dependencies call require.
const REQUIRE_BANNER =
  "import{createRequire as __durableCreateRequire}from'node:module';const require=__durableCreateRequire(import.meta.url);";

// The SDK @durable-lambda/aws depends on, resolved from where that package is installed.
const awsPackage = dirname(createRequire(import.meta.url).resolve('@durable-lambda/aws/package.json'));

await Promise.all(
  Object.entries(CLIENTS).map(async ([client, names]) => {
    const dir = join(outputDir, 'node_modules', '@aws-sdk', client);
    mkdirSync(dir, { recursive: true });
    await build({
      stdin: { contents: `export { ${names.join(', ')} } from '@aws-sdk/${client}';`, resolveDir: awsPackage },
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node22',
      mainFields: ['module', 'main'],
      minifyWhitespace: true,
      minifySyntax: true,
      banner: { js: REQUIRE_BANNER },
      outfile: join(dir, 'index.mjs'),
      logLevel: 'error',
    });
    writeFileSync(
      join(dir, 'package.json'),
      `${JSON.stringify(
        {
          name: `@aws-sdk/${client}`,
          private: true,
          description: `Written by @durable-lambda/cdk: ${names.join(', ')} of @aws-sdk/${client}, bundled, loaded at their first call`,
          type: 'module',
          exports: { '.': './index.mjs' },
        },
        null,
        2,
      )}\n`,
    );
  }),
);
