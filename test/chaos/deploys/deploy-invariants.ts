/**
 * What every run of the deploy world must keep, whatever was deployed, deleted, delivered twice or
 * lost around it. Returns one message per violation.
 *
 * - **Pinned.** Every step of a run ran on the qualifier the run is recorded with: pinned to a
 *   version, only that version's code; on `$LATEST`, only invocations of `$LATEST`; on the alias
 *   (`alias` policy), only invocations through it; never a step before the run was pinned. And a
 *   run is recorded where it was started to run: through the alias, on the version behind it;
 *   opted out, on `$LATEST`.
 * - **Finished.** Every run ends SUCCEEDED with the result its callbacks were completed with,
 *   unless the version it is pinned to was deleted under it (then it waits there, stranded, as
 *   the README says, and never runs elsewhere), or an operator cancelled it through the control
 *   API (then it ends CANCELLED).
 * - **Once.** No idempotency key ran twice anywhere in the world; a step's attempts only grew; a
 *   completed step never ran again; every callback was completed.
 * - **No loop.** The invocations stay within a bound of the runs and the faults.
 */
import { isVersion, splitRunName } from '../../../packages/aws/src/version-pinning';
import type { StepExecution } from './deploy-rig';
import type { DeployEvidence } from './deploy-world';

/** Invocations allowed per run and per injected fault, before counting it a loop. */
const INVOCATIONS_PER_RUN = 40;
const INVOCATIONS_PER_FAULT = 4;

/** Where a run recorded as `qualifier` may run, as a check of one execution (undefined: fine). */
function misplaced(
  qualifier: string | undefined,
  e: StepExecution,
  policy: DeployEvidence['policy'],
): string | undefined {
  const where = `${e.step} attempt ${e.attempt} ran on ${e.container.code} (invoked as ${e.container.invoked}, version ${e.container.version})`;
  if (qualifier === undefined) {
    if (policy === 'latest') return e.container.invoked === '$LATEST' ? undefined : where;
    return `${where} while the run was not pinned`;
  }
  if (isVersion(qualifier)) return e.container.version === qualifier ? undefined : where;
  return e.container.invoked === qualifier ? undefined : where;
}

/** The qualifier a run started `how` must be recorded with (a pattern), under `policy`. */
function expectedQualifier(how: string, policy: DeployEvidence['policy']): RegExp {
  if (how === 'control API, latest') return /^\$LATEST$/;
  if (how === '$LATEST invoke') return policy === 'latest' ? /^$/ : /^\$LATEST$/;
  if (policy === 'version') return /^\d+$/;
  if (policy === 'alias') return /^live$/;
  return how === 'alias invoke' ? /^live$/ : /^$/;
}

export function checkDeployInvariants(evidence: DeployEvidence): string[] {
  const { policy, fn, runs, finals, executions } = evidence;
  const violations: string[] = [...evidence.worldErrors.map((e) => `world: ${e}`)];
  const byRun = new Map<string, StepExecution[]>();
  for (const e of executions) byRun.set(e.runId, [...(byRun.get(e.runId) ?? []), e]);
  for (const [runId, list] of byRun) {
    if (!runs.some((r) => r.runId === runId))
      violations.push(`${list.length} step executions of no run started: ${runId}`);
  }

  for (const started of runs) {
    const run = finals.get(started.runId);
    const ran = byRun.get(started.runId) ?? [];
    const label = `run ${started.tag} (${started.how}, ${run?.functionName ?? 'never created'})`;
    if (!run) {
      if (ran.length > 0) violations.push(`${label}: steps ran but the run is gone`);
      continue;
    }
    const { qualifier } = splitRunName(run.functionName);
    if (!expectedQualifier(started.how, policy).test(qualifier ?? '')) {
      violations.push(`${label}: recorded as ${run.functionName}, not where it was started to run`);
    }
    for (const e of ran) {
      const wrong = misplaced(qualifier, e, policy);
      if (wrong) violations.push(`${label}: ${wrong}`);
    }
    const stranded = qualifier !== undefined && fn.deleted.has(qualifier);
    if (run.status === 'RUNNING' && stranded) continue;
    // An operator's cancel the control API accepted ends the run, whatever ran in it meanwhile.
    if (evidence.cancelled.has(started.runId)) {
      if (run.status !== 'CANCELLED') violations.push(`${label}: cancelled by the operator, yet ended ${run.status}`);
      continue;
    }
    const result = run.result === undefined ? undefined : (JSON.parse(run.result) as { approval?: unknown });
    // The control API stores a callback's result as JSON; the SDK hands it back as that text.
    if (run.status !== 'SUCCEEDED' || result?.approval !== JSON.stringify(started.payload)) {
      violations.push(
        `${label}: ended ${run.status} with ${run.result ?? JSON.stringify(run.error)}; expected SUCCEEDED approved ${started.payload}`,
      );
    }
  }

  const keys = new Map<string, number>();
  for (const e of executions) keys.set(e.idempotencyKey, (keys.get(e.idempotencyKey) ?? 0) + 1);
  for (const [key, n] of keys) if (n > 1) violations.push(`idempotency key ${key} ran ${n} times`);

  const byStep = new Map<string, StepExecution[]>();
  for (const e of executions) {
    const id = `${e.runId}|${e.operationId}`;
    byStep.set(id, [...(byStep.get(id) ?? []), e]);
  }
  for (const [id, list] of byStep) {
    for (let i = 1; i < list.length; i++) {
      const before = list[i - 1] as StepExecution;
      const now = list[i] as StepExecution;
      if (now.attempt <= before.attempt) {
        violations.push(`step ${now.step} (${id}) ran attempt ${now.attempt} after attempt ${before.attempt}`);
      }
    }
    const [runId = '', operationId] = id.split('|');
    const op = evidence.operations.get(runId)?.find((o) => o.Id === operationId);
    if (op?.Status === 'SUCCEEDED' && op.Type === 'STEP') {
      const final = op.StepDetails?.Attempt ?? 1;
      const after = list.filter((e) => e.attempt > final);
      if (after.length > 0) {
        violations.push(
          `completed step ${list[0]?.step} (${id}, attempt ${final}) ran again: attempt ${after[0]?.attempt}`,
        );
      }
    }
  }

  for (const callbackId of evidence.callbacks.keys()) {
    if ((evidence.completions.get(callbackId) ?? 0) > 0) continue;
    const owner = runs.find((r) =>
      evidence.operations.get(r.runId)?.some((o) => o.CallbackDetails?.CallbackId === callbackId),
    );
    if (owner && finals.get(owner.runId)?.status === 'SUCCEEDED') {
      violations.push(`callback ${callbackId} of ${owner.tag} was never accepted, yet its run succeeded`);
    }
  }

  if (evidence.outcome !== 'done') {
    violations.push(`the world ended ${evidence.outcome}: runs still running that are not stranded`);
  }
  const faults =
    Object.values(evidence.cloud.faults).reduce((a, b) => a + b, 0) +
    Object.values(evidence.containerFaults).reduce((a, b) => a + b, 0);
  const allowed = INVOCATIONS_PER_RUN * runs.length + INVOCATIONS_PER_FAULT * faults + 20 * evidence.deploys.length;
  if (evidence.cloud.invocations.length > allowed) {
    violations.push(
      `${evidence.cloud.invocations.length} invocations for ${runs.length} runs and ${faults} faults: a loop`,
    );
  }
  return violations;
}
