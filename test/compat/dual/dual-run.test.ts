/**
 * The dual-run compatibility suite: every case in ./cases runs once on AWS's packages
 * (@aws/durable-execution-sdk-js 2.4.0 + @aws/durable-execution-sdk-js-testing 1.1.4) and once on
 * ours (@durable-lambda/sdk + @durable-lambda/local/testing), and their outcomes must be identical
 * (status, result, getError(), every operation and its details, invocations, history event
 * signatures, what the handler observed), or the difference is documented in known-differences.ts.
 *
 * AWS's runner installs global fake timers (setupTestEnvironment({ skipTime: true })), so AWS's side
 * runs first, all of it, in beforeAll, and its environment is torn down before ours runs: ours never
 * runs under AWS's fake timers (it needs none, and touches no globals).
 *
 * The summaries are compared in full but for what is inherently run-specific (see harness/summary.ts).
 * The test prints the counts: `dual-run: N cases: X identical, Y documented differences`.
 * `DUAL_RUN_DUMP=<dir> npx vitest run test/compat/dual` also writes both sides' summaries to <dir>.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DUAL_CASES } from './cases/index';
import type { DualCase } from './harness/case';
import { awsModules, type DualModules, ourModules } from './harness/modules';
import { caseFailure, type Summary, summarise } from './harness/summary';
import { KNOWN_DIFFERENCES } from './known-differences';

// Taken before AWS's runner fakes the clock, so a case that hangs on AWS's side is cut off in real time.
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;
const CASE_TIMEOUT_MS = 15_000;

/** A case's summary, and whether it replayed when it `needsReplay`. */
interface CaseRun {
  summary: Summary;
  replayed: boolean;
}

async function runCase(testCase: DualCase, modules: DualModules): Promise<CaseRun> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = realSetTimeout(
      () => reject(new Error(`the case did not finish in ${CASE_TIMEOUT_MS} ms on ${modules.side}`)),
      CASE_TIMEOUT_MS,
    );
  });
  try {
    const outcome = await Promise.race([testCase.run(modules), timeout]);
    return {
      summary: summarise(outcome.result, outcome.observed, testCase.countInvocations),
      replayed: outcome.replayed ?? true,
    };
  } catch (error) {
    return { summary: caseFailure(error), replayed: true };
  } finally {
    realClearTimeout(timer);
  }
}

/** `value` without the dotted `paths` (the fields a known difference covers). */
function without(summary: Summary, paths: readonly string[]): unknown {
  const copy = structuredClone(summary) as unknown as Record<string, unknown>;
  for (const path of paths) {
    const keys = path.split('.');
    let node: unknown = copy;
    for (const key of keys.slice(0, -1)) node = (node as Record<string, unknown> | undefined)?.[key];
    if (node && typeof node === 'object') delete (node as Record<string, unknown>)[keys[keys.length - 1] as string];
  }
  return copy;
}

function pick(summary: Summary, paths: readonly string[]): unknown[] {
  return paths.map((path) =>
    path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], summary),
  );
}

const aws = new Map<string, Summary>();
const ours = new Map<string, Summary>();
const tally = { identical: 0, documented: 0, differing: [] as string[] };

let awsEnvironments = 0;
const AWS_REPLAY_TRIES = 3;
/** How many more times AWS's side runs a case whose first outcome ours does not match. */
const AWS_RERUNS = 2;
/** Cases whose first AWS outcome differed from a later one (AWS's side, not ours, varied). */
const awsVaried: string[] = [];

/** Runs `body` in a fresh AWS test environment (its fake timers on), torn down after. */
async function inEnvironment<T>(modules: DualModules, body: () => Promise<T>): Promise<T> {
  const { LocalDurableTestRunner } = modules.testing;
  await LocalDurableTestRunner.setupTestEnvironment({ skipTime: true });
  awsEnvironments += 1;
  try {
    return await body();
  } finally {
    await LocalDurableTestRunner.teardownTestEnvironment();
  }
}

/** Whether `actual` equals `expected` as `toEqual` decides. */
function equalAsExpected(actual: unknown, expected: unknown): boolean {
  try {
    expect(actual).toEqual(expected);
    return true;
  } catch {
    return false;
  }
}

/**
 * AWS's outcome of `testCase` run again, each time in a fresh environment, until one equals `ours`
 * (or the reruns are used up). AWS's runner reads its history while its checkpoint worker may still
 * be writing the last events: on a loaded machine the first outcome can lack `ExecutionSucceeded`.
 * Ours must equal an outcome AWS's side really had; it never runs again itself.
 */
async function awsRerun(testCase: DualCase, ours: Summary): Promise<Summary | undefined> {
  const modules = await awsModules();
  for (let rerun = 0; rerun < AWS_RERUNS; rerun += 1) {
    const { summary } = await inEnvironment(modules, () => runCase(testCase, modules));
    if (equalAsExpected(ours, summary)) return summary;
  }
  return undefined;
}

beforeAll(async () => {
  const modules = await awsModules();
  // A run that ends with an operation still running (a wait nobody awaited) leaves work in AWS's
  // checkpoint worker, and later runs in that environment stop ending invocations at their waits.
  // So cases that need a replay run first, each in a fresh environment, then all others in one, those
  // that leave operations running last (one environment per case would start a worker thread per
  // case: teardown leaves them running).
  for (const testCase of DUAL_CASES.filter((c) => c.needsReplay)) {
    let run: CaseRun | undefined;
    for (let tries = 0; tries < AWS_REPLAY_TRIES && !run?.replayed; tries += 1) {
      run = await inEnvironment(modules, () => runCase(testCase, modules));
    }
    aws.set(
      testCase.name,
      run?.replayed ? run.summary : caseFailure(new Error(`AWS's runner did not replay in ${AWS_REPLAY_TRIES} tries`)),
    );
  }
  await inEnvironment(modules, async () => {
    const rest = DUAL_CASES.filter((c) => !c.needsReplay);
    const lastly = (c: DualCase) => (c.leavesOperationsRunning ? 1 : 0);
    for (const testCase of [...rest].sort((a, b) => lastly(a) - lastly(b))) {
      aws.set(testCase.name, (await runCase(testCase, modules)).summary);
    }
  });
}, 180_000);

afterAll(() => {
  // DUAL_RUN_DUMP=<dir> writes both sides' summaries there, to read a difference in full.
  const dump = process.env.DUAL_RUN_DUMP;
  if (dump) {
    mkdirSync(dump, { recursive: true });
    writeFileSync(join(dump, 'aws.json'), JSON.stringify(Object.fromEntries(aws), null, 2));
    writeFileSync(join(dump, 'ours.json'), JSON.stringify(Object.fromEntries(ours), null, 2));
  }
  const total = DUAL_CASES.length;
  console.log(
    `dual-run: ${total} cases: ${tally.identical} identical, ${tally.documented} documented differences` +
      ` (AWS's side in ${awsEnvironments} test environments)` +
      (awsVaried.length ? `; AWS's side varied, ours matched a rerun: ${awsVaried.join(', ')}` : '') +
      (tally.differing.length ? `, ${tally.differing.length} differing:\n  - ${tally.differing.join('\n  - ')}` : ''),
  );
});

describe('ours matches AWS, case by case', () => {
  it('has unique case names and no stale known difference', () => {
    const names = DUAL_CASES.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    expect(Object.keys(KNOWN_DIFFERENCES).filter((name) => !names.includes(name))).toEqual([]);
  });

  for (const testCase of DUAL_CASES) {
    it(testCase.name, async () => {
      const reference = aws.get(testCase.name);
      expect(reference, "AWS's side did not run").toBeDefined();
      const { summary, replayed } = await runCase(testCase, ourModules());
      ours.set(testCase.name, summary);
      expect(replayed, 'the case needs a replay, and ours did not replay').toBe(true);
      const known = KNOWN_DIFFERENCES[testCase.name];
      try {
        if (!known) {
          if (!equalAsExpected(summary, reference) && (await awsRerun(testCase, summary))) {
            awsVaried.push(testCase.name);
            tally.identical += 1;
            return;
          }
          expect(summary).toEqual(reference);
          tally.identical += 1;
          return;
        }
        expect(without(summary, known.paths)).toEqual(without(reference as Summary, known.paths));
        known.checkOurs(summary);
        const same =
          JSON.stringify(pick(summary, known.paths)) === JSON.stringify(pick(reference as Summary, known.paths));
        if (same && known.sometimes) {
          tally.identical += 1;
          return;
        }
        expect(same, 'documented as different, yet identical: remove it').toBe(false);
        known.checkAws?.(reference as Summary);
        tally.documented += 1;
      } catch (error) {
        tally.differing.push(testCase.name);
        throw error;
      }
    });
  }
});
