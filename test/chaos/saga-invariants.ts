/**
 * The saga guarantees (issue 27), checked on a saga seed's run after every fault (see
 * `saga-workflow.ts`). A compensation is a step, so its body runs at least once and may run again
 * after a lost attempt (the ledger counts every execution); what must hold exactly:
 *
 * - **Once in the history.** Each registered step that succeeded is undone by exactly one
 *   `compensate <step>` operation in the checkpointed history, SUCCEEDED (or FAILED for the undo
 *   that always fails), with at least one execution of its body, every one of them under that
 *   operation; its succeeded attempt ran exactly once (no idempotency key runs twice: checkSteps).
 * - **Only what succeeded.** No compensation operation and no undo execution for a step that did
 *   not succeed (`hold`), nor for one not planned; an undo never runs before its step's last run.
 * - **Reverse order.** Each round's plan (`saga plan`, one per round and context) lists the steps'
 *   ids last first; the compensations follow it in that order in the history, and their first
 *   executions in the ledger come in that order too.
 * - **Reported.** The run's outcome says what was undone (ErrorData, or the result), and the
 *   control API's derived view (`runCompensations`) agrees with the history and the outcome.
 * - **Cancelled.** A run an operator cancelled ends CANCELLED wherever it was: its rounds and each
 *   round's compensations are a prefix of the plan, each still at most once, in order.
 */
import { isDeepStrictEqual } from 'node:util';
import { runCompensations } from '@durable-lambda/api';
import type { RunRecord } from '@durable-lambda/engine';
import { incarnationId, type Operation } from '@durable-lambda/protocol';
import type { OutsideWorld } from './outside-world';
import { type SagaWorkflow, undoName } from './saga-workflow';

/** What a saga seed did, for the suite's figures. */
export interface SagaTally {
  rounds: number;
  compensations: number;
  /** Undo bodies executed (at least one per compensation). */
  undoExecutions: number;
  /** Executions beyond one per compensation: lost attempts run again (at-least-once). */
  undoRepeats: number;
  /** Compensations that took more than one attempt. */
  retriedCompensations: number;
  /** Runs cancelled by the operator, and of those, runs cancelled once a round had begun. */
  cancelled: number;
  cancelledInRound: number;
}

const seq = (op: Operation): number => Number(op.Id.slice(op.Id.lastIndexOf('-') + 1));

/** The report as the run gives it, with the child's round accepted as present or absent. */
function sameReport(actual: unknown, full: { compensated: string[]; failed: Array<{ step: string }> }): boolean {
  const r = actual as { compensated?: unknown; failed?: Array<{ step?: unknown; error?: unknown }> } | undefined;
  if (!r || !Array.isArray(r.compensated) || !Array.isArray(r.failed)) return false;
  const without = full.compensated.filter((s) => !s.startsWith('pack-'));
  const compensatedOk = isDeepStrictEqual(r.compensated, full.compensated) || isDeepStrictEqual(r.compensated, without);
  const failedOk =
    r.failed.length === full.failed.length &&
    r.failed.every((f, i) => f.step === full.failed[i]?.step && typeof f.error === 'string');
  return compensatedOk && failedOk;
}

export function checkSaga(
  workflow: SagaWorkflow,
  main: RunRecord,
  ops: readonly Operation[],
  world: OutsideWorld,
  /** An operator's cancel landed: the run ends CANCELLED wherever it was, the rest undone or not. */
  cancelled = false,
): { violations: string[]; tally: SagaTally } {
  const v: string[] = [];
  const expectation = workflow.saga;
  const expected = workflow.expected as Record<string, unknown>;
  const tally: SagaTally = {
    rounds: 0,
    compensations: 0,
    undoExecutions: 0,
    undoRepeats: 0,
    retriedCompensations: 0,
    cancelled: cancelled ? 1 : 0,
    cancelledInRound: cancelled && ops.some((o) => o.Name === 'saga plan') ? 1 : 0,
  };

  // The outcome.
  if (cancelled) {
    if (main.status !== 'CANCELLED') v.push(`ended ${main.status} after a cancel landed; expected CANCELLED`);
  } else if (expectation.variant === 'throw') {
    const report = (expected as { report: { compensated: string[]; failed: Array<{ step: string }> } }).report;
    if (main.status !== 'FAILED' || main.error?.ErrorMessage !== 'saga gives up') {
      v.push(`ended ${main.status} with ${JSON.stringify(main.error ?? main.result)}; expected FAILED 'saga gives up'`);
    } else if (!sameReport(JSON.parse(main.error.ErrorData ?? 'null'), report)) {
      v.push(`ErrorData ${main.error.ErrorData} does not report ${JSON.stringify(report)}`);
    }
  } else {
    const result = main.result === undefined ? undefined : (JSON.parse(main.result) as Record<string, unknown>);
    type Report = { compensated: string[]; failed: Array<{ step: string }> };
    const { first, report, ...rest } = expected as { first: Report; report: Report };
    const { first: gotFirst, report: gotReport, ...gotRest } = result ?? {};
    if (main.status !== 'SUCCEEDED' || !isDeepStrictEqual(gotRest, rest)) {
      v.push(
        `ended ${main.status} with ${main.result ?? JSON.stringify(main.error)}; expected ${JSON.stringify(expected)}`,
      );
    } else if (!sameReport(gotFirst, first) || !sameReport(gotReport, report)) {
      v.push(`reports ${JSON.stringify([gotFirst, gotReport])} differ from ${JSON.stringify([first, report])}`);
    }
  }

  const named = (name: string) => ops.filter((o) => o.Type === 'STEP' && o.Name === name);
  const pack = ops.find((o) => o.Type === 'CONTEXT' && o.Name === 'pack');
  const contextId = (context: 'top' | 'pack') => (context === 'top' ? undefined : pack?.Id);
  const execId = incarnationId(main.runId, main.incarnation);
  const executions = world.executions.filter((e) => e.execId === execId);
  const firstRun = (step: string) => executions.find((e) => e.step === step)?.seq;
  const lastRun = (step: string) => executions.filter((e) => e.step === step).at(-1)?.seq;

  // Plans: one per round and context, listing the expected steps' ids last first.
  const planned = new Set<string>();
  for (const context of ['top', 'pack'] as const) {
    const rounds = expectation.rounds.filter((r) => r.context === context);
    const plans = named('saga plan')
      .filter((p) => p.ParentId === contextId(context))
      .sort((a, b) => seq(a) - seq(b));
    // A cancelled run stops wherever it was: fewer rounds, never more.
    if (cancelled ? plans.length > rounds.length : plans.length !== rounds.length) {
      v.push(
        `${plans.length} saga plans in context ${context}; expected ${cancelled ? 'at most ' : ''}${rounds.length}`,
      );
      continue;
    }
    rounds.slice(0, plans.length).forEach((round, i) => {
      const plan = plans[i] as Operation;
      const ids = round.steps.map((s) => named(s)[0]?.Id);
      const got = plan.Status === 'SUCCEEDED' ? JSON.parse(plan.StepDetails?.Result ?? 'null') : plan.Status;
      if (cancelled && plan.Status !== 'SUCCEEDED') {
        if (round.steps.some((s) => named(`compensate ${s}`).length > 0)) {
          v.push(`compensations ran after plan ${plan.Id}, which never succeeded`);
        }
        return;
      }
      if (!isDeepStrictEqual(got, ids))
        v.push(
          `saga plan ${plan.Id} holds ${JSON.stringify(got)}; expected ${JSON.stringify(ids)} (${round.steps.join(', ')})`,
        );
      let after = seq(plan);
      let previousFirst = 0;
      for (const s of round.steps) {
        planned.add(s);
        const forward = named(s);
        if (forward.length !== 1 || forward[0]?.Status !== 'SUCCEEDED') {
          v.push(`step ${s} was undone but is ${forward.map((o) => o.Status).join('/') || 'absent'} in the history`);
        }
        const undo = named(`compensate ${s}`);
        // Cancelled: the round's compensations that started are a prefix of its plan.
        if (cancelled && undo.length === 0) {
          if (executions.some((e) => e.step === undoName(s)))
            v.push(`the undo of ${s} ran with no compensation recorded`);
          after = Number.POSITIVE_INFINITY;
          continue;
        }
        if (undo.length !== 1) {
          v.push(`${undo.length} compensate ${s} operations in the history; expected exactly 1`);
          continue;
        }
        const op = undo[0] as Operation;
        const wanted = expectation.failing.includes(s) ? 'FAILED' : 'SUCCEEDED';
        const underWay = op.Status === 'STARTED' || op.Status === 'PENDING' || op.Status === 'READY';
        if (op.Status !== wanted && !(cancelled && underWay))
          v.push(`compensate ${s} ended ${op.Status}; expected ${wanted}`);
        if (op.ParentId !== plan.ParentId || seq(op) <= after) {
          v.push(`compensate ${s} (${op.Id}) is out of its round's order after plan ${plan.Id}`);
        }
        after = seq(op);
        const runs = executions.filter((e) => e.step === undoName(s));
        tally.compensations += 1;
        tally.undoExecutions += runs.length;
        tally.undoRepeats += Math.max(0, runs.length - 1);
        if ((op.StepDetails?.Attempt ?? 1) > 1) tally.retriedCompensations += 1;
        if (op.Status === 'SUCCEEDED' && runs.length === 0) v.push(`compensate ${s} succeeded but its undo never ran`);
        const stray = runs.filter((e) => e.operationId !== op.Id);
        if (stray.length > 0)
          v.push(`undo of ${s} ran under ${stray.map((e) => e.operationId).join(', ')}, not ${op.Id}`);
        const first = firstRun(undoName(s));
        if (first !== undefined) {
          if (first < previousFirst) v.push(`undo of ${s} first ran before the undo planned ahead of it`);
          previousFirst = first;
          if ((lastRun(s) ?? 0) > first) v.push(`undo of ${s} ran before its step's last run`);
        }
      }
    });
    tally.rounds += plans.length;
  }

  // Nothing else undone: no compensation operation or undo execution beyond the plans.
  for (const op of ops) {
    const name = op.Name ?? '';
    if (op.Type === 'STEP' && name.startsWith('compensate ') && !planned.has(name.slice('compensate '.length))) {
      v.push(`${name} (${op.Id}) is in the history but undoes nothing planned`);
    }
  }
  for (const s of expectation.neverUndone) {
    if (named(s)[0]?.Status === 'SUCCEEDED') v.push(`step ${s} succeeded; it must fail for good`);
    if (executions.some((e) => e.step === undoName(s))) v.push(`the undo of ${s}, which never succeeded, ran`);
  }
  for (const e of executions) {
    if (e.step.startsWith('undo-') && !planned.has(e.step.slice('undo-'.length))) {
      v.push(`${e.step} ran (${e.operationId}) but its step was never planned`);
    }
  }

  if (cancelled) return { violations: v, tally };
  // The control API's view, derived from the same history, agrees.
  const view = runCompensations(main, ops);
  const shown = view.rounds.map((r) => r.compensations.map((c) => `${c.step}:${c.status}`));
  const wantedView = expectation.rounds.map((r) =>
    r.steps.map((s) => `${s}:${expectation.failing.includes(s) ? 'failed' : 'succeeded'}`),
  );
  if (!isDeepStrictEqual(shown, wantedView)) {
    v.push(`the API shows rounds ${JSON.stringify(shown)}; expected ${JSON.stringify(wantedView)}`);
  }
  if (
    expectation.variant === 'throw' &&
    !isDeepStrictEqual(view.summary, JSON.parse(main.error?.ErrorData ?? 'null'))
  ) {
    v.push(`the API's summary ${JSON.stringify(view.summary)} differs from the run's ErrorData`);
  }
  return { violations: v, tally };
}
