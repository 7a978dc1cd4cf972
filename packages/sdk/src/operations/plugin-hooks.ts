import type { Operation } from '@durable-lambda/protocol';
import type { Scope } from '../context/scope';
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

/** `onOperationStart`; returns the info for the attempt hooks (undefined without plugins). */
export async function operationStart(
  scope: Scope,
  op: OperationLike,
  attempt?: number,
): Promise<OperationInfo | undefined> {
  if (!scope.plugin.active) return undefined;
  const info: OperationInfo = {
    ...infoOf(scope, op, attempt !== undefined && attempt > 1),
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

/** `onOperationEnd`, once the operation's final outcome is recorded or observed. */
export async function operationEnd(scope: Scope, record: Operation, error?: unknown): Promise<void> {
  if (!scope.plugin.active) return;
  const info = infoOf(scope, record, false);
  await scope.runtime.track(() =>
    scope.plugin.onOperationEnd({ ...info, ...(error === undefined ? {} : { error: asError(error) }) }),
  );
}
