/**
 * The run-level execution timeout (AWS's `DurableConfig.ExecutionTimeout`, in seconds, up to
 * 366 days). A run started with one has a `deadlineAt`; at it the run ends `TIMED_OUT` with its
 * waiting callbacks, its child runs end `TIMED_OUT` too (each parent told), and nothing runs
 * after. Every path that could run the run checks the deadline first: opening an invocation, each
 * checkpoint of a live one (which is fenced and stops quietly), and the reconciler, which finds
 * the run through the due index (`dueAtOf` includes the deadline) even when nothing is running.
 */
import type { ErrorObject } from '@durable-lambda/protocol';
import { EngineInputError } from './errors';
import type { RunRecord } from './ports';
import { functionBaseName } from './run-query';
import { endChildren, endRun, type TreeEnd, type TreeEndDeps } from './run-tree-end';

/** The longest execution timeout AWS allows: 366 days, in seconds. */
export const MAX_EXECUTION_TIMEOUT_SECONDS = 366 * 86_400;

/** The stable code of a run that passed its execution timeout. */
export const EXECUTION_TIMED_OUT = 'execution_timed_out';

/** An execution timeout, by function: seconds for every function, or a lookup by name. */
export type ExecutionTimeoutSetting = number | ((functionName: string) => number | undefined);

/**
 * Validates an execution timeout in seconds (1 to 366 days, AWS's range) and returns it in ms;
 * undefined stays undefined.
 */
export function parseExecutionTimeout(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_EXECUTION_TIMEOUT_SECONDS) {
    throw new EngineInputError(field, `must be a whole number of seconds from 1 to ${MAX_EXECUTION_TIMEOUT_SECONDS}`);
  }
  return value * 1000;
}

/**
 * The timeout a new run gets, ms: its own, else its function's, else none. A function's is looked
 * up by its bare name: a run of `orders:7` or `orders:live` gets the timeout set for `orders`.
 */
export function executionTimeoutFor(
  setting: ExecutionTimeoutSetting | undefined,
  functionName: string,
  own: number | undefined,
): number | undefined {
  const ownMs = parseExecutionTimeout(own, 'executionTimeoutSeconds');
  if (ownMs !== undefined) return ownMs;
  const seconds = typeof setting === 'function' ? setting(functionBaseName(functionName)) : setting;
  return parseExecutionTimeout(seconds, 'executionTimeout');
}

/** Whether the run's deadline has passed at `now`. */
export function pastDeadline(run: Pick<RunRecord, 'deadlineAt'>, now: number): boolean {
  return run.deadlineAt !== undefined && run.deadlineAt <= now;
}

/** How a run that passed its own deadline ends. */
function timedOut(run: RunRecord): TreeEnd {
  const seconds = run.executionTimeoutMs === undefined ? undefined : run.executionTimeoutMs / 1000;
  const error: ErrorObject = {
    ErrorType: 'ExecutionTimedOut',
    ErrorMessage:
      seconds === undefined ? 'Execution timed out' : `Execution timed out after its timeout of ${seconds} s`,
    ErrorCode: EXECUTION_TIMED_OUT,
  };
  return { status: 'TIMED_OUT', error };
}

/**
 * Ends the run TIMED_OUT when its deadline has passed, with its callbacks and child runs, and
 * tells a waiting parent. Idempotent: a run already ended only has its children finished. Returns
 * the run as it ended, or undefined when its deadline has not passed (or it is gone).
 */
export async function expireRun(deps: TreeEndDeps, runId: string): Promise<RunRecord | undefined> {
  const run = await deps.store.getRun(runId);
  if (!run || !pastDeadline(run, deps.clock.now())) return undefined;
  let ended: RunRecord | undefined = run;
  if (run.status === 'RUNNING' || run.status === 'QUEUED') {
    // Undefined: another writer ended it first (its own close, a cancel); that end stands.
    ended = (await endRun(deps, run, timedOut(run))) ?? (await deps.store.getRun(runId));
  }
  if (!ended || ended.status === 'RUNNING' || ended.status === 'QUEUED') return ended;
  if (ended.status === 'TIMED_OUT' && ended.childrenOpen) await endChildren(deps, ended);
  const latest = (await deps.store.getRun(runId)) ?? ended;
  // Left to the reconciler when it fails: the ended child stays due until its parent is told.
  await deps.outside.childFinished(latest).catch(() => undefined);
  return latest;
}
