import type { RunRecord } from '@durable-lambda/engine';
import type { ErrorObject, Operation } from '@durable-lambda/protocol';
import type { ErrorWire, OperationWire, RunWire } from './wire';

/** A stored payload as the API shows it: parsed JSON when it is JSON, else the raw string. */
export function parsePayload(payload: string | undefined): unknown {
  if (payload === undefined) return undefined;
  try {
    return JSON.parse(payload);
  } catch {
    return payload;
  }
}

/** A stored error as the API shows it; a missing code becomes `error`. */
export function errorToWire(error: ErrorObject): ErrorWire {
  return {
    code: error.ErrorCode ?? 'error',
    message: error.ErrorMessage ?? '',
    ...(error.ErrorType === undefined ? {} : { type: error.ErrorType }),
  };
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** A run record as the API shows it. */
export function runToWire(run: RunRecord): RunWire {
  return {
    runId: run.runId,
    function: run.functionName,
    status: run.status,
    ...(run.runKey === undefined ? {} : { runKey: run.runKey }),
    ...(run.input === undefined ? {} : { input: parsePayload(run.input) }),
    ...(run.result === undefined ? {} : { result: parsePayload(run.result) }),
    ...(run.error === undefined ? {} : { error: errorToWire(run.error) }),
    createdAt: iso(run.createdAt),
    updatedAt: iso(run.updatedAt),
    ...(run.endedAt === undefined ? {} : { endedAt: iso(run.endedAt) }),
    ...(run.status === 'RUNNING' && run.nextWakeAt !== undefined ? { nextWakeAt: iso(run.nextWakeAt) } : {}),
    invocations: run.invocations,
    lostInvocations: run.lostInvocations,
    ...(run.parent ? { parent: { runId: run.parent.runId, operationId: run.parent.operationId } } : {}),
  };
}

/** The stored result and error of an operation, whatever its kind. */
function outcome(op: Operation): { result?: string; error?: ErrorObject } {
  const details = op.StepDetails ?? op.CallbackDetails ?? op.ContextDetails ?? op.ChainedInvokeDetails;
  return {
    ...(details?.Result === undefined ? {} : { result: details.Result }),
    ...(details?.Error ? { error: details.Error } : {}),
  };
}

/** An operation as the API shows it in a run's history. */
export function operationToWire(op: Operation): OperationWire {
  const { result, error } = outcome(op);
  const step = op.StepDetails;
  const callback = op.CallbackDetails;
  const invoke = op.ChainedInvokeDetails;
  const waitingForAttempt = op.Status === 'PENDING' || op.Status === 'READY';
  return {
    id: op.Id,
    ...(op.ParentId === undefined ? {} : { parentId: op.ParentId }),
    ...(op.Name === undefined ? {} : { name: op.Name }),
    type: op.Type,
    ...(op.SubType === undefined ? {} : { subType: op.SubType }),
    status: op.Status,
    startedAt: iso(op.StartTimestamp),
    ...(op.EndTimestamp === undefined ? {} : { endedAt: iso(op.EndTimestamp) }),
    ...(step ? { attempt: step.Attempt } : {}),
    ...(waitingForAttempt && step?.NextAttemptTimestamp !== undefined
      ? { nextAttemptAt: iso(step.NextAttemptTimestamp) }
      : {}),
    ...(step?.FailedAttempts?.length
      ? {
          failedAttempts: step.FailedAttempts.map((f) => ({
            attempt: f.Attempt,
            at: iso(f.Timestamp),
            error: errorToWire(f.Error),
          })),
        }
      : {}),
    ...(result === undefined ? {} : { result: parsePayload(result) }),
    ...(error ? { error: errorToWire(error) } : {}),
    ...(op.WaitDetails ? { waitUntil: iso(op.WaitDetails.ScheduledEndTimestamp) } : {}),
    ...(callback ? { callbackId: callback.CallbackId } : {}),
    ...(callback?.TimeoutTimestamp === undefined ? {} : { timeoutAt: iso(callback.TimeoutTimestamp) }),
    ...(callback?.HeartbeatDeadline === undefined ? {} : { heartbeatDeadline: iso(callback.HeartbeatDeadline) }),
    ...(invoke?.FunctionName === undefined ? {} : { invokedFunction: invoke.FunctionName }),
    ...(invoke?.ChildRunId === undefined ? {} : { childRunId: invoke.ChildRunId }),
  };
}
