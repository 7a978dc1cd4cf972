/**
 * AWS's language-neutral conformance requirements for durable execution, written in our words
 * (`suites/`), run on our test runner with time skipped. Prints how many pass per suite; fails
 * only when the outcome differs from the reviewed list of expected failures.
 */
import { describe, expect, it } from 'vitest';
import { runOnTestRunner, type Verdict } from './harness/run-on-test-runner';
import { tally } from './harness/tally';
import { NOT_LOCAL } from './not-local';
import { SUITES } from './suites';

describe('conformance requirements on the test runner', () => {
  for (const suite of SUITES) {
    it(`${suite.name} suite`, async () => {
      const verdicts: Verdict[] = [];
      const runnable = suite.requirements.filter((req) => !(req.id in NOT_LOCAL));
      for (const req of runnable) {
        verdicts.push(
          await runOnTestRunner(req).catch((error: unknown) => ({ id: req.id, problems: [`threw: ${String(error)}`] })),
        );
      }
      const { line, surprises } = tally(suite, 'runner', verdicts);
      console.log(line);
      expect(surprises).toEqual([]);
    });
  }
});
