/**
 * The order vitest starts test files in (see vitest.config.mts): the few files that take a minute
 * or more first, longest first, then vitest's own order (its timings cache of earlier runs, else
 * larger files first). On a fresh clone vitest has no timings, and by size alone the longest file
 * (the DynamoDB chaos run, a short file) started last, adding its whole length to the wall time.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that run far longer than the rest, in seconds on an idle 2-core machine (from the slowest
 * files `npm test` prints). Only the order depends on these: a stale figure costs wall time, never
 * a result.
 */
const HEAVY_SECONDS: Readonly<Record<string, number>> = {
  'test/chaos/chaos-dynamodb.test.ts': 30,
  'test/cli/cli-dev.test.ts': 30,
  'test/cdk/synth-cli.test.ts': 54,
  'test/packaging/pack-install.test.ts': 60,
  'test/packaging/dist-packages.test.ts': 1,
  'test/bench/figures-table-shape.test.ts': 20,
  'test/chaos/chaos-memory.test.ts': 14,
  'test/chaos/chaos-deploys-dynamodb.test.ts': 25,
  'test/chaos/chaos-deploys-memory.test.ts': 12,
  'test/compat/aws-sdk-on-lambda.dynamodb.test.ts': 27,
  'test/store-conformance/dynamodb-store.conformance.test.ts': 25,
};

/**
 * Files that mostly wait on the real clock (a wall time several times their CPU time, from the per-file
 * CPU log): started right after the long ones, while the type-check, the build and the packaging
 * tests keep both cores busy, so their waiting costs nothing. Run at the end, where only the two
 * vitest workers are left, a worker waiting there leaves a core idle.
 */
const WAITING_FILES: ReadonlySet<string> = new Set([
  'test/local/runtime/seeded-faults.test.ts',
  'test/compat/dual/dual-run.test.ts',
  'test/compat/sdk/batches-invokes-and-callback-timeouts.test.ts',
  'test/browser/dashboard.test.ts',
  'test/compat/aws-history-signatures.own-modules.test.ts',
  'test/local/runtime/reconciler.test.ts',
  'test/compat/aws-sdk-on-our-backend.local-runtime.test.ts',
  'test/api/aws-routes-cloud-runner.test.ts',
  'test/local/runtime/local-runtime-and-invoker.test.ts',
  'test/sdk/step/timeout.test.ts',
  'examples/test/report-job.test.ts',
]);

/** Starts the known long files first, then the waiting ones, then follows vitest's order. */
export default class HeavyFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const weight = (spec: TestSpecification) => {
      const file = relative(this.ctx.config.root, spec.moduleId).split('\\').join('/');
      return HEAVY_SECONDS[file] ?? (WAITING_FILES.has(file) ? 1 : 0);
    };
    // Array.prototype.sort is stable: files of equal weight keep vitest's order.
    return [...ordered].sort((a, b) => weight(b) - weight(a));
  }
}
