/**
 * How flow control ends runs: a run skipped at its admission (`rateLimit`, `debounce`,
 * `singleton: 'skip'`) ends CANCELLED with its reason, its lease let go in the same fenced write;
 * a singleton's holder is cancelled by the newer run (`singleton: 'cancel'`), recorded in its
 * actions as done by that run and applied once per pair.
 */
import { RunNotFoundError } from '../errors';
import { cancelRunAction, type OperatorDeps } from '../operator-actions';
import { RunStateError } from '../run-control';
import type { RunPatch, RunRecord } from '../run-record';
import { endRun, type TreeEnd, type TreeEndDeps } from '../run-tree-end';

/**
 * Ends `run` (leased by the caller, as of its fence) as `end` says, with `extra` (its flow marks)
 * and the lease released; a waiting parent hears of it. Nothing is written if the fence moved.
 */
export async function endSkipped(deps: TreeEndDeps, run: RunRecord, end: TreeEnd, extra: RunPatch): Promise<void> {
  const ended = await endRun(deps, run, end, { ...extra, leaseExpiresAt: null }, { fence: run.fence });
  // Left to the reconciler when it fails: an ended child stays due until its parent is told.
  if (ended?.parent) await deps.outside.childFinished(ended).catch(() => undefined);
}

/** Cancels `runId` for the singleton run `byRunId`; a run that ended or is gone meanwhile is no error. */
export async function cancelForSingleton(deps: OperatorDeps, runId: string, byRunId: string): Promise<void> {
  try {
    await cancelRunAction(deps, runId, { actor: `singleton:${byRunId}`, actionId: `singleton:${byRunId}` });
  } catch (error) {
    if (!(error instanceof RunStateError) && !(error instanceof RunNotFoundError)) throw error;
  }
}
