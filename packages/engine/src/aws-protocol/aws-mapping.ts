import {
  type ErrorObject,
  type Operation,
  OperationAction,
  OperationType,
  type OperationUpdate,
} from '@durable-lambda/protocol';
import { EngineInputError } from '../errors';
import type { AwsErrorObject, AwsOperation, AwsOperationUpdate } from './aws-shapes';

const TYPES = new Set<string>(Object.values(OperationType));
const ACTIONS = new Set<string>(Object.values(OperationAction));

/** Our stored error as AWS's `ErrorObject`: our stable `ErrorCode` has no place there. */
export function toAwsError(error: ErrorObject | undefined): AwsErrorObject | undefined {
  if (!error) return undefined;
  const out: AwsErrorObject = {};
  if (error.ErrorType !== undefined) out.ErrorType = error.ErrorType;
  if (error.ErrorMessage !== undefined) out.ErrorMessage = error.ErrorMessage;
  if (error.ErrorData !== undefined) out.ErrorData = error.ErrorData;
  if (error.StackTrace !== undefined) out.StackTrace = [...error.StackTrace];
  return out;
}

/** AWS's `ErrorObject` as ours; only its four known fields are kept. */
export function fromAwsError(error: AwsErrorObject | undefined, field: string): ErrorObject | undefined {
  if (error === undefined || error === null) return undefined;
  if (typeof error !== 'object') throw new EngineInputError(field, 'must be an ErrorObject');
  const out: ErrorObject = {};
  for (const key of ['ErrorType', 'ErrorMessage', 'ErrorData'] as const) {
    const value = error[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw new EngineInputError(`${field}.${key}`, 'must be a string');
    out[key] = value;
  }
  if (error.StackTrace !== undefined) {
    if (!Array.isArray(error.StackTrace) || error.StackTrace.some((line) => typeof line !== 'string')) {
      throw new EngineInputError(`${field}.StackTrace`, 'must be an array of strings');
    }
    out.StackTrace = [...error.StackTrace];
  }
  return out;
}

const date = (ms: number): Date => new Date(ms);

/**
 * The code of the note a RETRY carries where nothing failed (a waitForCondition going on): our
 * engine wants an Error with every RETRY, Lambda's does not, so AWS's SDK sends none. The same
 * code our SDK stores in that case; the note is never shown to AWS's SDK.
 */
const CONTINUE_CODE = 'wait_for_condition_continue';

/**
 * An operation as AWS's SDK expects it: `Date` timestamps, only AWS's detail fields (ours, such
 * as failed-attempt history or a child run's id, stay behind), and `StepDetails.Attempt`
 * counting finished attempts, where ours numbers the current one (so a STARTED step is one less).
 */
export function toAwsOperation(op: Operation): AwsOperation {
  const out: AwsOperation = { Id: op.Id, Type: op.Type, Status: op.Status, StartTimestamp: date(op.StartTimestamp) };
  if (op.ParentId !== undefined) out.ParentId = op.ParentId;
  if (op.Name !== undefined) out.Name = op.Name;
  if (op.SubType !== undefined) out.SubType = op.SubType;
  if (op.EndTimestamp !== undefined) out.EndTimestamp = date(op.EndTimestamp);
  if (op.ExecutionDetails) {
    out.ExecutionDetails =
      op.ExecutionDetails.InputPayload === undefined ? {} : { InputPayload: op.ExecutionDetails.InputPayload };
  }
  const context = op.ContextDetails;
  if (context) {
    out.ContextDetails = {
      ...(context.ReplayChildren === undefined ? {} : { ReplayChildren: context.ReplayChildren }),
      ...withOutcome(context.Result, context.Error),
    };
  }
  const step = op.StepDetails;
  if (step) {
    const finished = op.Status === 'STARTED' ? step.Attempt - 1 : step.Attempt;
    out.StepDetails = {
      ...(finished > 0 ? { Attempt: finished } : {}),
      ...(step.NextAttemptTimestamp === undefined ? {} : { NextAttemptTimestamp: date(step.NextAttemptTimestamp) }),
      ...withOutcome(step.Result, step.Error?.ErrorCode === CONTINUE_CODE ? undefined : step.Error),
    };
  }
  if (op.WaitDetails) out.WaitDetails = { ScheduledEndTimestamp: date(op.WaitDetails.ScheduledEndTimestamp) };
  const callback = op.CallbackDetails;
  if (callback) {
    out.CallbackDetails = { CallbackId: callback.CallbackId, ...withOutcome(callback.Result, callback.Error) };
  }
  const invoke = op.ChainedInvokeDetails;
  if (invoke) out.ChainedInvokeDetails = withOutcome(invoke.Result, invoke.Error);
  return out;
}

function withOutcome(result: string | undefined, error: ErrorObject | undefined) {
  return {
    ...(result === undefined ? {} : { Result: result }),
    ...(error === undefined ? {} : { Error: toAwsError(error) }),
  };
}

/**
 * AWS's update as ours. AWS types every field optional; the fields our engine needs are checked
 * here and named in the error (`Updates[2].Id`), anything else is left to the engine's own rules.
 */
export function fromAwsUpdate(update: AwsOperationUpdate, index: number): OperationUpdate {
  const field = `Updates[${index}]`;
  if (update === null || typeof update !== 'object') throw new EngineInputError(field, 'must be an OperationUpdate');
  const id = requiredString(update.Id, `${field}.Id`);
  // Checked although typed: the update comes from another package's runtime.
  if (typeof update.Type !== 'string' || !TYPES.has(update.Type)) {
    throw new EngineInputError(`${field}.Type`, `must be one of ${[...TYPES].join(', ')}`);
  }
  if (typeof update.Action !== 'string' || !ACTIONS.has(update.Action)) {
    throw new EngineInputError(`${field}.Action`, `must be one of ${[...ACTIONS].join(', ')}`);
  }
  const out: OperationUpdate = {
    Id: id,
    Type: update.Type as OperationUpdate['Type'],
    Action: update.Action as OperationUpdate['Action'],
  };
  if (update.ParentId !== undefined) out.ParentId = requiredString(update.ParentId, `${field}.ParentId`);
  if (update.Name !== undefined) out.Name = requiredString(update.Name, `${field}.Name`);
  if (update.SubType !== undefined) out.SubType = requiredString(update.SubType, `${field}.SubType`);
  if (update.Payload !== undefined) out.Payload = update.Payload;
  const error = fromAwsError(update.Error, `${field}.Error`);
  if (error) out.Error = error;
  else if (out.Action === 'RETRY') {
    out.Error = {
      ErrorType: 'WaitForConditionContinue',
      ErrorMessage: 'condition not met yet: checked again after the delay',
      ErrorCode: CONTINUE_CODE,
    };
  }
  if (update.ContextOptions) {
    out.ContextOptions =
      update.ContextOptions.ReplayChildren === undefined
        ? {}
        : { ReplayChildren: update.ContextOptions.ReplayChildren };
  }
  if (update.StepOptions) {
    const delay = update.StepOptions.NextAttemptDelaySeconds;
    out.StepOptions = delay === undefined ? {} : { NextAttemptDelaySeconds: delay };
  }
  if (update.WaitOptions) {
    const seconds = update.WaitOptions.WaitSeconds;
    if (typeof seconds !== 'number') throw new EngineInputError(`${field}.WaitOptions.WaitSeconds`, 'must be a number');
    out.WaitOptions = { WaitSeconds: seconds };
  }
  if (update.CallbackOptions) {
    const { TimeoutSeconds, HeartbeatTimeoutSeconds } = update.CallbackOptions;
    out.CallbackOptions = {
      ...(TimeoutSeconds === undefined ? {} : { TimeoutSeconds }),
      ...(HeartbeatTimeoutSeconds === undefined ? {} : { HeartbeatTimeoutSeconds }),
    };
  }
  if (update.ChainedInvokeOptions) {
    const { FunctionName, TenantId } = update.ChainedInvokeOptions;
    out.ChainedInvokeOptions = {
      FunctionName: requiredString(FunctionName, `${field}.ChainedInvokeOptions.FunctionName`),
      ...(TenantId === undefined ? {} : { TenantId }),
    };
  }
  return out;
}

function requiredString(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new EngineInputError(field, 'must be a non-empty string');
  return value;
}
