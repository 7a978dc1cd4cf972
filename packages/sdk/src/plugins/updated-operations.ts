import { type DurableInvocation, incarnationId, isTerminal, type Operation } from '@durable-lambda/protocol';

/**
 * AWS's `updatedOperations`: what changed from outside (a wait's time, a callback, a child run, a
 * retry coming due, an operator) between the previous invocation of a run and this one. AWS's
 * backend names them (`UpdatedOperationIds`); ours does not, so the SDK works it out:
 *
 * 1. A backend that names them (an `updatedOperationIds` list on the invocation) is believed.
 * 2. When this process ran the previous invocation (the test runner, the dev server, a warm
 *    Lambda container), the state that invocation left is remembered: what the loaded state has
 *    that differs is exactly what changed. The memory is dropped when it cannot be the previous
 *    invocation's (that one was lost, or another invocation wrote since).
 * 3. Otherwise, from the stored times: what ended from outside at or after the last time any
 *    invocation wrote. The SDK never re-reads the run within an invocation, so nothing that ended
 *    after the last write was seen by the invocation that wrote it. Ties count as updated: at
 *    the same millisecond the order is unknown, and naming an operation twice is better than
 *    never (a change in the middle of a long invocation, before its last write, is missed here).
 */

/** What the rules read of an invocation (and, when a backend names them, its `updatedOperationIds`). */
export type InvocationView = Pick<DurableInvocation, 'runId' | 'incarnation' | 'operations' | 'previousInvocationLost'>;

/** How many runs' states a process remembers (a Lambda container serves one run at a time). */
const REMEMBERED_RUNS = 64;

/**
 * The state each run's last invocation in this process left, by {@link incarnationId} (oldest
 * first): a run created again under an old run's id never diffs against the old run's state.
 */
const leftBy = new Map<string, Map<string, string>>();

/** What an operation's record says, as far as a change to it matters. */
function signatureOf(op: Operation): string {
  const step = op.StepDetails;
  return `${op.Status}|${op.EndTimestamp ?? ''}|${step?.Attempt ?? ''}|${step?.NextAttemptTimestamp ?? ''}`;
}

/**
 * Remembers the state an invocation left (`undefined`: forget it, the next one must not trust it),
 * under its run's {@link incarnationId}.
 */
export function rememberLeftState(id: string, operations: Iterable<Operation> | undefined): void {
  leftBy.delete(id);
  if (!operations) return;
  const state = new Map<string, string>();
  for (const op of operations) state.set(op.Id, signatureOf(op));
  leftBy.set(id, state);
  if (leftBy.size > REMEMBERED_RUNS) leftBy.delete(leftBy.keys().next().value as string);
}

/** Types an invocation ends itself; the others end from outside (time, callers, child runs). */
const ENDED_BY_INVOCATIONS = new Set(['STEP', 'CONTEXT', 'EXECUTION']);

/**
 * True when an invocation may have made this change (so another invocation ran since the one
 * remembered): a new operation, or a step or context moving on other than a retry coming due.
 * Changes to ended operations (an operator's) and to waits, callbacks and invokes are outside ones.
 */
function writableByInvocation(op: Operation, before: string | undefined): boolean {
  if (before === undefined) return true;
  const status = before.slice(0, before.indexOf('|')) as Operation['Status'];
  if (isTerminal(status) || !ENDED_BY_INVOCATIONS.has(op.Type)) return false;
  return !(status === 'PENDING' && op.Status === 'READY');
}

/** The diff against the remembered state; undefined when that state is not the previous invocation's. */
function diffAgainstRemembered(invocation: InvocationView): string[] | undefined {
  const left = leftBy.get(incarnationId(invocation.runId, invocation.incarnation));
  if (!left || invocation.previousInvocationLost) return undefined;
  const changed: string[] = [];
  for (const op of invocation.operations) {
    const before = left.get(op.Id);
    if (before === signatureOf(op)) continue;
    if (writableByInvocation(op, before)) return undefined;
    changed.push(op.Id);
  }
  return changed;
}

/** The latest time an invocation wrote anything, by the stored records. */
function lastInvocationWrite(operations: readonly Operation[]): number {
  let latest = Number.NEGATIVE_INFINITY;
  for (const op of operations) {
    latest = Math.max(latest, op.StartTimestamp);
    if (ENDED_BY_INVOCATIONS.has(op.Type) && op.Type !== 'EXECUTION') latest = Math.max(latest, op.EndTimestamp ?? 0);
    for (const failure of op.StepDetails?.FailedAttempts ?? []) latest = Math.max(latest, failure.Timestamp);
  }
  return latest;
}

/** What ended (or came due) from outside at or after the last write, by the stored times. */
function changedSinceLastWrite(operations: readonly Operation[]): string[] {
  const watermark = lastInvocationWrite(operations);
  const changed: string[] = [];
  for (const op of operations) {
    const outsideEnd = !ENDED_BY_INVOCATIONS.has(op.Type) && isTerminal(op.Status) ? op.EndTimestamp : undefined;
    const due = op.Type === 'STEP' && op.Status === 'READY' ? op.StepDetails?.NextAttemptTimestamp : undefined;
    const at = outsideEnd ?? due;
    if (at !== undefined && at >= watermark) changed.push(op.Id);
  }
  return changed;
}

/** The ids of the operations changed from outside since the previous invocation (see above). */
export function updatedOperationIds(invocation: InvocationView): string[] {
  const named = (invocation as { updatedOperationIds?: unknown }).updatedOperationIds;
  if (Array.isArray(named)) return named.filter((id): id is string => typeof id === 'string');
  if (invocation.operations.every((op) => op.Type === 'EXECUTION')) return [];
  return diffAgainstRemembered(invocation) ?? changedSinceLastWrite(invocation.operations);
}
