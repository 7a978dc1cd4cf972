import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as ours from '@durable-lambda/local/testing';
import { withDurableExecution } from '@durable-lambda/sdk';
import { importAwsSdk } from '../../support/aws-sdk';

/** The testing module a body runs against, typed as ours (AWS's must offer what the body uses). */
export type TestingModule = Pick<
  typeof ours,
  'LocalDurableTestRunner' | 'WaitingOperationStatus' | 'ExecutionStatus' | 'OperationStatus' | 'OperationType'
>;

/** How a body wraps its handlers: ours, or AWS's `withDurableExecution` (typed as ours). */
export type Wrap = typeof withDurableExecution;

/** One way to run the same test body. */
export interface Target {
  name: string;
  testing(): Promise<TestingModule>;
  wrap(): Promise<Wrap>;
}

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const NAME = '@aws/durable-execution-sdk-js-testing';
let awsTesting: Promise<TestingModule> | undefined;

/**
 * AWS's testing package, loaded as test/support/aws-sdk.ts loads AWS's SDK (bench/node_modules
 * first, by its ESM entry), so its runner and AWS's SDK share one module instance.
 */
export function importAwsTesting(): Promise<TestingModule> {
  awsTesting ??= (async () => {
    for (const root of [join(ROOT, 'bench'), ROOT]) {
      let main: string;
      try {
        main = createRequire(join(root, 'package.json')).resolve(NAME);
      } catch {
        continue;
      }
      let dir = dirname(main);
      while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { module?: string };
      return (await import(pathToFileURL(join(dir, pkg.module ?? 'dist/index.mjs')).href)) as TestingModule;
    }
    throw new Error(`${NAME} is not installed: run \`npm install\` in bench/`);
  })();
  return awsTesting;
}

const awsWrap = async (): Promise<Wrap> => (await importAwsSdk()).withDurableExecution as unknown as Wrap;

/** AWS's runner over AWS's SDK (the reference), ours over AWS's SDK, and ours over ours. */
export const TARGETS: Target[] = [
  { name: 'AWS runner on AWS SDK', testing: importAwsTesting, wrap: awsWrap },
  { name: 'our runner on AWS SDK', testing: async () => ours, wrap: awsWrap },
  { name: 'our runner on our SDK', testing: async () => ours, wrap: async () => withDurableExecution },
];
