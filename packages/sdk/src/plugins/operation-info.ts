import type { Operation } from '@durable-lambda/protocol';
import { storedFailure } from '../errors/error-object';
import type { OperationInfo, PluginOperationStatus } from '../types/plugin';

const date = (ms: number | undefined): Date | undefined => (ms === undefined ? undefined : new Date(ms));

/** An operation as plugin hooks see it (AWS's `OperationInfo`), from its stored record. */
export function toOperationInfo(op: Operation, isReplay: boolean): OperationInfo {
  const stored =
    op.StepDetails?.Error ?? op.CallbackDetails?.Error ?? op.ChainedInvokeDetails?.Error ?? op.ContextDetails?.Error;
  const result =
    op.StepDetails?.Result ??
    op.CallbackDetails?.Result ??
    op.ChainedInvokeDetails?.Result ??
    op.ContextDetails?.Result;
  const info: OperationInfo = {
    id: op.Id,
    type: op.Type,
    status: op.Status as PluginOperationStatus,
    isReplay,
  };
  if (op.Name !== undefined) info.name = op.Name;
  if (op.SubType !== undefined) info.subType = op.SubType;
  if (op.ParentId !== undefined) info.parentId = op.ParentId;
  const start = date(op.StartTimestamp);
  if (start) info.startTimestamp = start;
  const end = date(op.EndTimestamp);
  if (end) info.endTimestamp = end;
  if (result !== undefined) info.result = result;
  if (stored !== undefined && op.Status !== 'SUCCEEDED') info.error = storedFailure(stored);
  if (op.StepDetails?.Attempt !== undefined) info.attempt = op.StepDetails.Attempt;
  addStoredDetails(info, op);
  return info;
}

/** Ours: the stored attempt history and the details of waits, callbacks and invokes. */
function addStoredDetails(info: OperationInfo, op: Operation): void {
  const failures = op.StepDetails?.FailedAttempts;
  if (failures && failures.length > 0) {
    info.failedAttempts = failures.map((f) => ({
      attempt: f.Attempt,
      timestamp: new Date(f.Timestamp),
      error: storedFailure(f.Error),
    }));
  }
  const next = date(op.StepDetails?.NextAttemptTimestamp);
  if (next) info.nextAttemptTimestamp = next;
  const scheduledEnd = date(op.WaitDetails?.ScheduledEndTimestamp);
  if (scheduledEnd) info.scheduledEndTimestamp = scheduledEnd;
  if (op.CallbackDetails?.CallbackId !== undefined) info.callbackId = op.CallbackDetails.CallbackId;
  const invoke = op.ChainedInvokeDetails;
  if (invoke?.FunctionName !== undefined) info.invokedFunctionName = invoke.FunctionName;
  if (invoke?.ChildRunId !== undefined) info.childRunId = invoke.ChildRunId;
}

/** Every operation, by id, as plugin hooks see them. */
export function toOperationInfoMap(operations: Iterable<Operation>, isReplay: boolean): Record<string, OperationInfo> {
  const out: Record<string, OperationInfo> = {};
  for (const op of operations) out[op.Id] = toOperationInfo(op, isReplay);
  return out;
}
