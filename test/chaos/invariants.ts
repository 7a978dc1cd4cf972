import { isDeepStrictEqual } from 'node:util';
import type { RunRecord } from '@durable-lambda/engine';
import type { TestDriver } from '@durable-lambda/local';
import { incarnationId, type Operation } from '@durable-lambda/protocol';
import type { Execution, OutsideWorld } from './outside-world';
import type { ReferenceWorkflow } from './workflows';

/** What one chaos run left behind, to check. */
export interface RunEvidence {
  driver: TestDriver;
  world: OutsideWorld;
  workflow: ReferenceWorkflow;
  main: RunRecord;
  /** Invocations of the same workflow without faults. */
  baselineInvocations: number;
  /**
   * How the main run must end: SUCCEEDED with the expected result (the default), CANCELLED, or
   * any end (a run with an execution timeout; if it succeeded, with the expected result).
   */
  expect?: 'SUCCEEDED' | 'CANCELLED' | 'ENDED';
  /** An operator acted on the run: callbacks of an ended run may have been refused, and a rerun poll counts on. */
  operated?: boolean;
  /** Runs of the world beyond the first (re-created, retried): each may take its invocations again. */
  extraRuns?: number;
}

/** Invocations allowed per injected fault, above twice the fault-free count: more is a loop. */
const INVOCATIONS_PER_FAULT = 6;

/**
 * The guarantees every run keeps under faults. Returns one message per violation (none when
 * all hold): the run finished with the expected status and result; no completed step ran
 * again; an at-most-once step ran at most once per attempt; attempt numbers only grew; no
 * idempotency key was executed twice; each callback accepted exactly one completion and refused
 * every duplicate; the run took a sane number of invocations.
 */
export async function checkInvariants(evidence: RunEvidence): Promise<string[]> {
  const { driver, world, workflow, main } = evidence;
  const expect = evidence.expect ?? 'SUCCEEDED';
  const violations: string[] = [];
  const result = main.result === undefined ? undefined : JSON.parse(main.result);
  const wanted = main.status === 'SUCCEEDED' || expect === 'SUCCEEDED';
  const asExpected =
    expect === 'CANCELLED'
      ? main.status === 'CANCELLED'
      : (expect === 'ENDED' && main.status !== 'SUCCEEDED' && main.status !== 'RUNNING') ||
        (main.status === 'SUCCEEDED' && sameResult(result, workflow.expected, evidence.operated === true));
  if (!asExpected) {
    violations.push(
      `finished ${main.status} with ${main.result ?? JSON.stringify(main.error)}; expected ${wanted ? `SUCCEEDED with ${JSON.stringify(workflow.expected)}` : expect}`,
    );
  }
  violations.push(...(await checkSteps(driver, world, evidence.operated === true)));
  let invocations = 0;
  for (const list of driver.invocations.values()) invocations += list.length;
  const allowed =
    2 * evidence.baselineInvocations * (1 + (evidence.extraRuns ?? 0)) + INVOCATIONS_PER_FAULT * driver.faults.length;
  if (invocations > allowed) {
    violations.push(
      `took ${invocations} invocations (${evidence.baselineInvocations} without faults, ${driver.faults.length} faults): a loop`,
    );
  }
  return violations;
}

/**
 * The step and callback guarantees over every run of the driver: no completed step ran again; an
 * at-most-once step ran at most once per attempt; attempt numbers only grew; no idempotency key
 * was executed twice; each callback accepted exactly one completion (`operated`: callbacks of
 * runs an operator ended may have been refused).
 */
export async function checkSteps(driver: TestDriver, world: OutsideWorld, operated: boolean): Promise<string[]> {
  const violations: string[] = [];
  // By execution (`<runId>[.<incarnation>]`): a run id used again names a new execution.
  const ops = new Map<string, Operation>();
  const current = new Set<string>();
  /** Steps an operator skipped: stored SUCCEEDED at an attempt that may never have run. */
  const skipped = new Set<string>();
  for (const runId of driver.runIds()) {
    const run = await driver.engine.getRun(runId);
    if (!run) continue;
    const execId = incarnationId(runId, run.incarnation);
    current.add(execId);
    for (const a of run.actions ?? []) if (a.action === 'skip_step') skipped.add(`${execId}|${a.operationId}`);
    for (const op of await driver.engine.getOperations(runId)) ops.set(`${execId}|${op.Id}`, op);
  }
  const byStep = new Map<string, Execution[]>();
  const keys = new Map<string, number>();
  for (const e of world.executions) {
    const id = `${e.execId}|${e.operationId}`;
    byStep.set(id, [...(byStep.get(id) ?? []), e]);
    keys.set(e.idempotencyKey, (keys.get(e.idempotencyKey) ?? 0) + 1);
  }
  for (const [key, n] of keys) {
    if (n > 1) violations.push(`idempotency key ${key} was executed ${n} times (one attempt, one execution)`);
  }
  for (const [id, runs] of byStep) {
    const op = ops.get(id);
    const name = runs[0]?.step;
    if (!op) {
      // An execution replaced after its retention has no operations left to compare with.
      if (current.has(id.split('|')[0] as string))
        violations.push(`step ${name} (${id}) ran but has no stored operation`);
      continue;
    }
    for (let i = 1; i < runs.length; i++) {
      const before = runs[i - 1] as Execution;
      const now = runs[i] as Execution;
      if (now.attempt <= before.attempt) {
        violations.push(
          `step ${name} (${id}) ran attempt ${now.attempt} after attempt ${before.attempt}: attempts must grow`,
        );
      }
    }
    if (world.atMostOnce.has(id)) {
      const perAttempt = new Map<number, number>();
      for (const e of runs) perAttempt.set(e.attempt, (perAttempt.get(e.attempt) ?? 0) + 1);
      for (const [attempt, n] of perAttempt) {
        if (n > 1) violations.push(`at-most-once step ${name} (${id}) ran attempt ${attempt} ${n} times`);
      }
    }
    if (op.Status === 'SUCCEEDED') {
      const final = op.StepDetails?.Attempt ?? 1;
      const end = op.EndTimestamp ?? Number.POSITIVE_INFINITY;
      const after = runs.filter((e) => e.attempt > final || e.at > end);
      if (after.length) {
        violations.push(
          `completed step ${name} (${id}, attempt ${final}) ran again: attempts ${after.map((e) => e.attempt).join(', ')}`,
        );
      }
      if (!skipped.has(id) && !runs.some((e) => e.attempt === final)) {
        violations.push(`step ${name} (${id}) succeeded at attempt ${final}, which never ran`);
      }
    }
  }
  for (const { callbackId, payload } of world.callbacks.values()) {
    const op = [...ops.values()].find((o) => o.CallbackDetails?.CallbackId === callbackId);
    // An operator's cancel or timeout ends a waiting callback, and a run replaced after its
    // retention takes its callbacks with it: their completions are refused.
    if (operated && op?.Status !== 'SUCCEEDED') continue;
    const tally = driver.callbackCompletions.get(callbackId);
    if (!tally || tally.accepted + tally.lost !== 1) {
      violations.push(
        `callback ${callbackId} landed ${tally ? tally.accepted + tally.lost : 0} completions; expected 1`,
      );
    }
    if (op?.Status !== 'SUCCEEDED' || op.CallbackDetails?.Result !== payload) {
      violations.push(
        `callback ${callbackId} ended ${op?.Status} with ${op?.CallbackDetails?.Result}; expected ${payload}`,
      );
    }
  }
  return violations;
}

/**
 * The result compared with the expected one. A run an operator retried from a step or repaired
 * replays its `waitForCondition` from its last stored state, so its poll may count past 3.
 */
function sameResult(result: unknown, expected: unknown, operated: boolean): boolean {
  if (isDeepStrictEqual(result, expected)) return true;
  if (!operated || typeof result !== 'object' || result === null || typeof expected !== 'object') return false;
  const { polled, ...rest } = result as { polled?: { n?: number } };
  const { polled: _p, ...wantedRest } = expected as { polled?: unknown };
  return typeof polled?.n === 'number' && polled.n >= 3 && isDeepStrictEqual(rest, wantedRest);
}
