import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import HeavyFirstSequencer from './scripts/heavy-first-sequencer';

const source = (pkg: string, file = 'index.ts') =>
  fileURLToPath(new URL(`./packages/${pkg}/src/${file}`, import.meta.url));
/** `@durable-lambda/<pkg>` exactly (subpaths have their own entries below). */
const exactly = (id: string) => new RegExp(`^${id}$`);

/** Directories whose test files may share a worker's loaded modules (see `projects` below). */
const SHARED_DIRS = [
  'test/sdk',
  'test/engine',
  'test/cdk',
  'test/api',
  'test/cli',
  'test/aws',
  'test/store-conformance',
  // AWS parity of our SDK and of our test runner (where AWS's runner runs too, only around its own
  // runs, as it did in test/sdk and test/local); not the other compat folders, see below.
  'test/compat/sdk',
  'test/compat/testing',
  'test/browser',
  'test/chaos',
  'test/local',
  'examples',
];
/**
 * A file there that needs a module graph of its own (it mocks a module with `vi.mock`, which a
 * shared graph has loaded already) says so in its name: `*.own-modules.test.ts`.
 */
const SHARED_MODULES = [
  ...SHARED_DIRS.map((dir) => `${dir}/**/!(*.own-modules).test.ts`),
  // The compat files that run AWS's SDK on our runner and backends (it installs no global); not the
  // folders below, whose files run AWS's own test runner, which fakes the global timers.
  'test/compat/!(*.own-modules).test.ts',
];

// Tests run against the TypeScript sources; the packaging tests check the built dist and the packed
// tarballs separately.
export default defineConfig({
  resolve: {
    alias: [
      { find: exactly('@durable-lambda/local/testing'), replacement: source('local', 'testing-entry.ts') },
      { find: exactly('@durable-lambda/aws/register'), replacement: source('aws', 'register.ts') },
      ...['protocol', 'sdk', 'engine', 'local', 'aws', 'api', 'cli', 'cdk', 'otel'].map((pkg) => ({
        find: exactly(`@durable-lambda/${pkg}`),
        replacement: source(pkg),
      })),
    ],
  },
  test: {
    projects: [
      // Files that leave no global behind (no fake timers left on, no global provider, no patched
      // process): a worker runs them one after another with their modules loaded once, which halves
      // the CPU time of these directories (aws-cdk-lib and our sources are evaluated once per worker,
      // not once per file).
      { extends: true, test: { name: 'shared-modules', include: SHARED_MODULES, isolate: false } },
      // Files that install globals (AWS's runner fakes the global timers; the OpenTelemetry tests set
      // the global tracer provider; a compat file sets process.env) or read the build: a fresh module
      // graph each, in a fresh process (~1 CPU-s a file more than a shared one).
      {
        extends: true,
        test: {
          name: 'isolated',
          include: ['test/**/*.test.ts', 'examples/**/*.own-modules.test.ts'],
          exclude: ['**/node_modules/**', ...SHARED_MODULES],
        },
      },
    ],
    // Far above what any test takes alone: `npm test` runs the type-check and build next to the tests,
    // and a test must pass on a loaded machine, never only on an idle one.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ['test/support/global-setup.ts'],
    // DURABLE_TEST_CPU_LOG=<file>: one line per test file with the CPU seconds it cost (see the setup file).
    setupFiles: process.env.DURABLE_TEST_CPU_LOG ? ['test/support/cpu-per-file-setup.ts'] : [],
    // Many test files wait (on DynamoDB Local, Chromium, child processes) as much as they compute:
    // two workers a core, at most eight (vitest's default is one fewer than the cores). The type-check
    // and build take half a minute, so most of the run is the workers alone. On two cores, measured:
    // two workers left a core idle a third of the time after the first three minutes (6 min 0 s),
    // three left short gaps (4 min 52 s - 5 min 34 s), four kept both busy to the end (4 min 27 s).
    // DURABLE_TEST_WORKERS sets it.
    maxWorkers: Number(process.env.DURABLE_TEST_WORKERS) || Math.min(8, availableParallelism() * 2),
    // The AWS SDK's notice that its releases after early 2027 need Node 22, once per worker: we pin
    // exact @aws-sdk versions, and the notice would bury the tests' own output.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    reporters: ['default', './scripts/slowest-tests-reporter.ts'],
    sequence: { sequencer: HeavyFirstSequencer },
  },
});
