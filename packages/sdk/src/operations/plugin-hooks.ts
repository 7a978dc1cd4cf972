import { isTerminal, type Operation } from '@durable-lambda/protocol';
import type { Scope } from '../context/scope';
import { updatedBetweenInvocations } from '../plugins/invocation-info';
import { toOperationInfo } from '../plugins/operation-info';
import { AttemptEndInfoOutcome, type OperationInfo, PluginOperationStatus } from '../types/plugin';

/**
 * Calls the instrumentation plugins' operation hooks (AWS's points: an operation or attempt
 * starts, ends). With no plugins each call returns at once without building anything. Hooks
 * count as work in progress, so the invocation never suspends in the middle of one.
 */

type OperationLike = Pick<Operation, 'Id' | 'Type'> & Partial<Operation>;

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

// Times not yet stored are the backend's clock (virtual under the test runner), as stored ones are.
function infoOf(scope: Scope, op: OperationLike, isReplay: boolean): OperationInfo {
  const now = scope.runtime.invocation.now();
  return toOperationInfo({ StartTimestamp: now, Status: 'STARTED', ...op } as Operation, isReplay);
}

/** When an attempt ended: its stored failure's time, else the record's end, else now. */
function attemptEndOf(scope: Scope, record: Operation, attempt: number, failed: boolean): Date {
  const failure = failed ? record.StepDetails?.FailedAttempts?.find((f) => f.Attempt === attempt) : undefined;
  return new Date(failure?.Timestamp ?? record.EndTimestamp ?? scope.runtime.invocation.now());
}

/**
 * `onOperationStart`; returns the info for the attempt hooks (undefined without plugins).
 * `isReplay` (AWS's): the operation was recorded before this attempt, by default a retry's
 * attempt (2 and on); a context re-entered on replay says so itself.
 */
export async function operationStart(
  scope: Scope,
  op: OperationLike,
  attempt?: number,
  isReplay = attempt !== undefined && attempt > 1,
): Promise<OperationInfo | undefined> {
  if (!scope.plugin.active) return undefined;
  const info: OperationInfo = {
    ...infoOf(scope, op, isReplay),
    status: PluginOperationStatus.STARTED,
  };
  if (attempt !== undefined) info.attempt = attempt;
  await scope.runtime.track(() => scope.plugin.onOperationStart(info));
  return info;
}

/** `onOperationAttemptStart`. */
export async function attemptStart(scope: Scope, info: OperationInfo | undefined, attempt: number): Promise<void> {
  if (!scope.plugin.active || !info) return;
  await scope.runtime.track(() =>
    scope.plugin.onOperationAttemptStart({
      ...info,
      attempt,
      startTimestamp: new Date(scope.runtime.invocation.now()),
    }),
  );
}

/** `onOperationAttemptEnd`, after the attempt's outcome is recorded. */
export async function attemptEnd(scope: Scope, record: Operation, attempt: number, error?: unknown): Promise<void> {
  if (!scope.plugin.active) return;
  const info = infoOf(scope, record, false);
  await scope.runtime.track(() =>
    scope.plugin.onOperationAttemptEnd({
      ...info,
      attempt,
      endTimestamp: attemptEndOf(scope, record, attempt, error !== undefined),
      outcome: error === undefined ? AttemptEndInfoOutcome.SUCCEEDED : AttemptEndInfoOutcome.FAILED,
      ...(error === undefined ? {} : { error: asError(error) }),
    }),
  );
}

/**
 * `onOperationEnd`, once the operation's final outcome is recorded or observed (`isReplay`: an
 * earlier invocation already saw it, see {@link replayedOperation}).
 */
export async function operationEnd(scope: Scope, record: Operation, error?: unknown, isReplay = false): Promise<void> {
  if (!scope.plugin.active) return;
  const info = infoOf(scope, record, isReplay);
  await scope.runtime.track(() =>
    scope.plugin.onOperationEnd({ ...info, ...(error === undefined ? {} : { error: asError(error) }) }),
  );
}

/**
 * A wait, callback or chained invoke that an earlier invocation recorded, met again on replay
 * (AWS's hooks for them): one that has ended is reported by `onOperationEnd`, with `isReplay`
 * false when it ended between the invocations (its time came, its caller answered: this is the
 * first invocation to see the end) and true when an earlier invocation already saw it; one still
 * under way by `onOperationStart` with `isReplay: true` and its stored status. Callers check
 * `scope.plugin.active` first (no promise on the path without plugins).
 */
export async function replayedOperation(scope: Scope, record: Operation, error?: unknown): Promise<void> {
  if (!scope.plugin.active) return;
  if (isTerminal(record.Status)) {
    const endedSince = updatedBetweenInvocations(scope.runtime.invocation).has(record.Id);
    await operationEnd(scope, record, error, !endedSince);
    return;
  }
  const info = toOperationInfo(record, true);
  await scope.runtime.track(() => scope.plugin.onOperationStart(info));
}
