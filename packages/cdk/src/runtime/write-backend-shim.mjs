#!/usr/bin/env node
// Run by the DurableFunction's bundling after esbuild (`node write-backend-shim.mjs <outputDir>`):
// writes <outputDir>/node_modules/@durable-lambda/aws, a shim that hands `withDurableExecution`'s
// dynamic `import('@durable-lambda/aws')` the backend bundled into index.js (see backend-inject.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const outputDir = process.argv[2];
if (!outputDir) {
  console.error('usage: node write-backend-shim.mjs <bundle output directory>');
  process.exit(2);
}
const dir = join(outputDir, 'node_modules', '@durable-lambda', 'aws');
mkdirSync(dir, { recursive: true });

const lookup = `const backend = globalThis[Symbol.for('durable-lambda.cdk.backend')];
if (!backend) {
  throw new Error(
    'durable-lambda: no bundled production backend: this @durable-lambda/aws is a shim written by ' +
      '@durable-lambda/cdk, and only a DurableFunction bundle (index.js) registers the backend it forwards to',
  );
}`;
writeFileSync(
  join(dir, 'package.json'),
  `${JSON.stringify(
    {
      name: '@durable-lambda/aws',
      private: true,
      description: 'Shim written by @durable-lambda/cdk: forwards to the backend bundled into index.js',
      exports: { import: './index.mjs', require: './index.cjs' },
    },
    null,
    2,
  )}\n`,
);
writeFileSync(
  join(dir, 'index.mjs'),
  `${lookup}\nexport const createProductionBackend = (env) => backend.createProductionBackend(env);\n`,
);
writeFileSync(
  join(dir, 'index.cjs'),
  `${lookup}\nexports.createProductionBackend = (env) => backend.createProductionBackend(env);\n`,
);
