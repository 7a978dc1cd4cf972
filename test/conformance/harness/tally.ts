/**
 * Compares a suite's verdicts on one runner with the reviewed lists: a requirement fails the test
 * when it fails without being listed as an expected failure, or passes while listed (the list
 * must shrink as fixes land). Prints one summary line per runner and suite.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXPECTED_FAILURES, type RunnerName } from '../expected-failures';
import { NOT_LOCAL } from '../not-local';
import type { Suite } from './requirement';
import type { Verdict } from './run-on-test-runner';

/** What a suite on a runner came to. */
export interface Tally {
  line: string;
  /** Problems to fail the test with (none: the suite is as the lists say). */
  surprises: string[];
}

const LABEL: Record<RunnerName, string> = { runner: 'test runner', dynamodb: 'production backend (DynamoDB Local)' };

export function tally(suite: Suite, runner: RunnerName, verdicts: readonly Verdict[]): Tally {
  const notRun = [...suite.requirements.map((r) => r.id), ...suite.unwritten].filter((id) => id in NOT_LOCAL).length;
  const unwritten = suite.unwritten.filter((id) => !(id in NOT_LOCAL)).length;
  const surprises: string[] = [];
  let passed = 0;
  let expected = 0;
  for (const verdict of verdicts) {
    const listed = EXPECTED_FAILURES[verdict.id]?.[runner];
    if (verdict.problems.length === 0) {
      passed += 1;
      if (listed)
        surprises.push(`${verdict.id} now passes on the ${LABEL[runner]}: remove it from expected-failures.ts`);
    } else if (listed) {
      expected += 1;
    } else {
      const events = (verdict.history ?? [])
        .map((e) => `${e.EventId} ${e.EventType}${e.Name ? ` ${String(e.Name)}` : ''}`)
        .join(', ');
      surprises.push(
        `${verdict.id} fails on the ${LABEL[runner]}:\n  ${verdict.problems.join('\n  ')}\n  history: ${events}`,
      );
    }
  }
  // CONFORMANCE_DUMP=<dir>: every verdict of the suite, to review failures and their causes.
  const dump = process.env.CONFORMANCE_DUMP;
  if (dump) {
    const rows = verdicts.map((v) => ({
      id: v.id,
      problems: v.problems,
      ...(v.log?.length ? { log: v.log.map((r) => JSON.stringify({ ...r, durableExecutionArn: undefined })) } : {}),
      history: (v.history ?? []).map((e) => `${e.EventId} ${e.EventType}${e.Name ? ` ${String(e.Name)}` : ''}`),
    }));
    writeFileSync(join(dump, `${runner}-${suite.name}.json`), JSON.stringify(rows, null, 1));
  }
  const line =
    `conformance ${suite.name}: ${LABEL[runner]} passes ${passed}/${verdicts.length}` +
    ` (${expected} expected failures${notRun ? `, ${notRun} not runnable locally` : ''}` +
    `${unwritten ? `, ${unwritten} without a handler yet` : ''})`;
  return { line, surprises };
}
