import { type AwsErrorObject, type AwsOperation, toAwsOperation } from '@durable-lambda/engine';
import type { ErrorObject, Operation } from '@durable-lambda/protocol';
import { withHidden } from './test-errors';

/** AWS's `ErrorObject`, with our stable code when the error has one (non-enumerable). */
export type TestErrorObject = AwsErrorObject & { readonly ErrorCode?: string };

/**
 * An operation as `getOperationData()` returns it: AWS's `Operation` (`Date` timestamps, AWS's
 * fields, enumerable), plus, non-enumerable, what ours stores beside: an error's `ErrorCode`, a
 * chained invoke's `FunctionName`, `Input` and `ChildRunId`. So `toEqual` against AWS's shape
 * passes and tests written for ours still read those fields.
 */
export type TestOperation = AwsOperation & {
  ChainedInvokeDetails?:
    | (NonNullable<AwsOperation['ChainedInvokeDetails']> & {
        readonly FunctionName?: string;
        readonly Input?: string;
        readonly ChildRunId?: string;
      })
    | undefined;
};

function hideCode(aws: AwsErrorObject | undefined, ours: ErrorObject | undefined): void {
  if (aws && ours?.ErrorCode !== undefined) withHidden(aws, { ErrorCode: ours.ErrorCode });
}

/** Our stored operation as {@link TestOperation}. */
export function toTestOperation(op: Operation): TestOperation {
  const out: TestOperation = toAwsOperation(op);
  hideCode(out.StepDetails?.Error, op.StepDetails?.Error);
  hideCode(out.ContextDetails?.Error, op.ContextDetails?.Error);
  hideCode(out.CallbackDetails?.Error, op.CallbackDetails?.Error);
  const invoke = op.ChainedInvokeDetails;
  if (out.ChainedInvokeDetails && invoke) {
    hideCode(out.ChainedInvokeDetails.Error, invoke.Error);
    const extras: Record<string, string> = {};
    if (invoke.FunctionName !== undefined) extras.FunctionName = invoke.FunctionName;
    if (invoke.Input !== undefined) extras.Input = invoke.Input;
    if (invoke.ChildRunId !== undefined) extras.ChildRunId = invoke.ChildRunId;
    withHidden(out.ChainedInvokeDetails, extras);
  }
  return out;
}
