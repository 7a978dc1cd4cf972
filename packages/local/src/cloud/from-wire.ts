/**
 * The control API's JSON (`/v1/runs/{runId}/operations`) back into the engine's operation shape,
 * so the cloud runner shows operations through the same mapping AWS's SDK is served with
 * (`toAwsOperation`). The API shows payloads parsed; they are serialized again here, so a payload
 * that was not JSON (or a map's decoded summary) comes back as JSON text, not byte for byte.
 */
import type { ErrorWire, OperationWire, RunStatusWire } from '@durable-lambda/api';
import type { ErrorObject, Operation } from '@durable-lambda/protocol';
import type { CloudExecutionStatus, CloudTestResultError } from './cloud-types';

const ms = (iso: string | undefined): number | undefined => (iso === undefined ? undefined : Date.parse(iso));

/** A payload as the API showed it, as stored text again. */
export function payloadText(value: unknown): string | undefined {
  return value === undefined ? undefined : JSON.stringify(value);
}

/** An error as the API showed it, as the engine's `ErrorObject`. */
export function errorFromWire(error: ErrorWire | undefined): ErrorObject | undefined {
  if (!error) return undefined;
  return {
    ErrorMessage: error.message,
    ErrorCode: error.code,
    ...(error.type === undefined ? {} : { ErrorType: error.type }),
    ...(error.stackTrace === undefined ? {} : { StackTrace: [...error.stackTrace] }),
  };
}

/** AWS's `TestResultError` of an error the API showed: AWS's four fields, no code of ours. */
export function testErrorFromWire(error: ErrorWire | undefined): CloudTestResultError | undefined {
  if (!error) return undefined;
  return {
    errorMessage: error.message,
    errorType: error.type,
    // The control API does not carry `ErrorData`.
    errorData: undefined,
    stackTrace: error.stackTrace === undefined ? undefined : [...error.stackTrace],
  };
}

/** A run's status in AWS's `ExecutionStatus` words: a cancelled run is STOPPED, as on Lambda; a queued one RUNNING. */
export function executionStatus(status: RunStatusWire): CloudExecutionStatus {
  if (status === 'QUEUED') return 'RUNNING';
  return status === 'CANCELLED' ? 'STOPPED' : status;
}

/** True once a run with this status has ended. */
export function runEnded(status: RunStatusWire): boolean {
  return status !== 'RUNNING';
}

/**
 * One operation of the API's history as the engine stores it (what the API shows of it); the
 * execution's input is the run's (`RunWire.input`), which the API shows on the run.
 */
export function operationFromWire(wire: OperationWire, runInput?: unknown): Operation {
  const result = payloadText(wire.result);
  const error = errorFromWire(wire.error);
  const outcome = { ...(result === undefined ? {} : { Result: result }), ...(error ? { Error: error } : {}) };
  const op: Operation = {
    Id: wire.id,
    Type: wire.type,
    Status: wire.status,
    StartTimestamp: Date.parse(wire.startedAt),
    ...(wire.parentId === undefined ? {} : { ParentId: wire.parentId }),
    ...(wire.name === undefined ? {} : { Name: wire.name }),
    ...(wire.subType === undefined ? {} : { SubType: wire.subType }),
    ...(wire.endedAt === undefined ? {} : { EndTimestamp: Date.parse(wire.endedAt) }),
    // Where its events stand in the run's recorded history (issue 23): the history reads that order.
    ...(wire.historyOrder === undefined ? {} : { HistoryOrder: wire.historyOrder }),
  };
  switch (wire.type) {
    case 'EXECUTION':
      op.ExecutionDetails = runInput === undefined ? {} : { InputPayload: payloadText(runInput) as string };
      break;
    case 'STEP': {
      const next = ms(wire.nextAttemptAt);
      op.StepDetails = { Attempt: wire.attempt ?? 1, ...(next === undefined ? {} : { NextAttemptTimestamp: next }) };
      // The attempts that failed before: the history shows each as its own StepFailed event.
      if (wire.failedAttempts?.length) {
        op.StepDetails.FailedAttempts = wire.failedAttempts.map((failed) => {
          const error = errorFromWire(failed.error) ?? {};
          return {
            Attempt: failed.attempt,
            Timestamp: Date.parse(failed.at),
            Error: {
              ...(error.ErrorType === undefined ? {} : { ErrorType: error.ErrorType }),
              ...(error.ErrorMessage === undefined ? {} : { ErrorMessage: error.ErrorMessage }),
              ...(error.ErrorCode === undefined ? {} : { ErrorCode: error.ErrorCode }),
            },
          };
        });
      }
      Object.assign(op.StepDetails, outcome);
      break;
    }
    case 'WAIT':
      op.WaitDetails = { ScheduledEndTimestamp: ms(wire.waitUntil) ?? op.StartTimestamp };
      break;
    case 'CALLBACK':
      op.CallbackDetails = { CallbackId: wire.callbackId ?? '', ...outcome };
      break;
    case 'CONTEXT':
      op.ContextDetails = outcome;
      break;
    case 'CHAINED_INVOKE':
      op.ChainedInvokeDetails = {
        ...(wire.invokedFunction === undefined ? {} : { FunctionName: wire.invokedFunction }),
        ...(wire.childRunId === undefined ? {} : { ChildRunId: wire.childRunId }),
        ...outcome,
      };
      break;
  }
  return op;
}
