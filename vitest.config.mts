import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

// Tests run against the TypeScript sources; the packaging test checks the built dist separately.
export default defineConfig({
  resolve: {
    alias: {
      '@durable-lambda/protocol': source('protocol'),
      '@durable-lambda/sdk': source('sdk'),
      '@durable-lambda/engine': source('engine'),
      '@durable-lambda/local': source('local'),
      '@durable-lambda/aws': source('aws'),
      '@durable-lambda/api': source('api'),
      '@durable-lambda/cdk': source('cdk'),
    },
  },
  test: {
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    testTimeout: 20_000,
    globalSetup: ['test/support/global-setup.ts'],
  },
});
