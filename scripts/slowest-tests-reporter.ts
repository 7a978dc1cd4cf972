/**
 * A vitest reporter (next to the default one, see vitest.config.mts) that closes a run with its
 * wall time, its slowest test files and every test that used more than half of its timeout: on a
 * loaded 2-core machine those are the ones that fail first, so they are named while they still pass.
 */
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/** How many of the slowest files are listed. */
const SLOWEST = 8;
/** A test above this share of its timeout is listed as close to it. */
const NEAR_TIMEOUT = 0.5;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Prints the run's wall time, its slowest files and its tests near their timeout. */
export default class SlowestTestsReporter implements Reporter {
  private started = performance.now();

  onTestRunStart(): void {
    this.started = performance.now();
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const root = process.cwd();
    const files = testModules
      .map((module) => {
        const diagnostic = module.diagnostic();
        return {
          file: relative(root, module.moduleId),
          ms: diagnostic.duration + diagnostic.collectDuration + diagnostic.setupDuration,
        };
      })
      .sort((a, b) => b.ms - a.ms);
    const near: string[] = [];
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const timeout = test.options.timeout;
        const duration = test.diagnostic()?.duration;
        if (timeout && duration !== undefined && duration > timeout * NEAR_TIMEOUT) {
          near.push(
            `  ${seconds(duration)} of ${seconds(timeout)}  ${relative(root, module.moduleId)} > ${test.fullName}`,
          );
        }
      }
    }
    const lines = [
      '',
      `vitest: ${files.length} test files in ${seconds(performance.now() - this.started)} (wall time); slowest files:`,
      ...files.slice(0, SLOWEST).map(({ file, ms }) => `  ${seconds(ms).padStart(7)}  ${file}`),
    ];
    if (near.length > 0) lines.push(`tests that used over half of their timeout (${near.length}):`, ...near);
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
