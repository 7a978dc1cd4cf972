/**
 * Structural copies of the shapes AWS's durable-execution SDK (`@aws/durable-execution-sdk-js`
 * 2.4.0) exchanges with its backend: Lambda's `GetDurableExecutionState` and
 * `CheckpointDurableExecution`, and the invocation input and output of a durable Lambda handler.
 * Copied rather than imported so the engine never depends on AWS's packages; AWS's own types
 * accept these structurally (checked by the compatibility tests). AWS's type, status and action
 * names are the same literals as ours.
 */

import type { OperationAction, OperationStatus, OperationType } from '@durable-lambda/protocol';

/** AWS's `ErrorObject`: no stable code of ours in it. */
export interface AwsErrorObject {
  ErrorMessage?: string | undefined;
  ErrorType?: string | undefined;
  ErrorData?: string | undefined;
  StackTrace?: string[] | undefined;
}

/** An operation as AWS's SDK reads it (timestamps as `Date`, AWS's `WireTimestamp` also allows ISO strings). */
export interface AwsOperation {
  Id: string | undefined;
  ParentId?: string | undefined;
  Name?: string | undefined;
  Type: OperationType | undefined;
  SubType?: string | undefined;
  StartTimestamp: Date | string | undefined;
  EndTimestamp?: Date | string | undefined;
  Status: OperationStatus | undefined;
  ExecutionDetails?: { InputPayload?: string | undefined } | undefined;
  ContextDetails?:
    | { ReplayChildren?: boolean | undefined; Result?: string | undefined; Error?: AwsErrorObject | undefined }
    | undefined;
  StepDetails?:
    | {
        /** Attempts finished so far (AWS's SDK runs attempt `Attempt + 1`). */
        Attempt?: number | undefined;
        NextAttemptTimestamp?: Date | string | undefined;
        Result?: string | undefined;
        Error?: AwsErrorObject | undefined;
      }
    | undefined;
  WaitDetails?: { ScheduledEndTimestamp?: Date | string | undefined } | undefined;
  CallbackDetails?:
    | { CallbackId?: string | undefined; Result?: string | undefined; Error?: AwsErrorObject | undefined }
    | undefined;
  ChainedInvokeDetails?: { Result?: string | undefined; Error?: AwsErrorObject | undefined } | undefined;
}

/** A change AWS's SDK asks for (every field optional on AWS's side: checked on the way in). */
export interface AwsOperationUpdate {
  Id: string | undefined;
  ParentId?: string | undefined;
  Name?: string | undefined;
  Type: OperationType | undefined;
  SubType?: string | undefined;
  Action: OperationAction | undefined;
  Payload?: string | undefined;
  Error?: AwsErrorObject | undefined;
  ContextOptions?: { ReplayChildren?: boolean | undefined } | undefined;
  StepOptions?: { NextAttemptDelaySeconds?: number | undefined } | undefined;
  WaitOptions?: { WaitSeconds?: number | undefined } | undefined;
  CallbackOptions?: { TimeoutSeconds?: number | undefined; HeartbeatTimeoutSeconds?: number | undefined } | undefined;
  ChainedInvokeOptions?: { FunctionName: string | undefined; TenantId?: string | undefined } | undefined;
}

/** Lambda's `GetDurableExecutionState` request. */
export interface AwsGetStateRequest {
  DurableExecutionArn: string | undefined;
  CheckpointToken: string | undefined;
  Marker?: string | undefined;
  MaxItems?: number | undefined;
}

/** Lambda's `GetDurableExecutionState` response. */
export interface AwsGetStateResponse {
  Operations: AwsOperation[] | undefined;
  NextMarker?: string | undefined;
}

/** Lambda's `CheckpointDurableExecution` request. */
export interface AwsCheckpointRequest {
  DurableExecutionArn: string | undefined;
  CheckpointToken: string | undefined;
  Updates?: AwsOperationUpdate[] | undefined;
  ClientToken?: string | undefined;
}

/** Lambda's `CheckpointDurableExecution` response. */
export interface AwsCheckpointResponse {
  CheckpointToken?: string | undefined;
  NewExecutionState: { Operations?: AwsOperation[] | undefined; NextMarker?: string | undefined } | undefined;
}

/** AWS's `DurableExecutionClient`: the transport its `withDurableExecution` accepts. */
export interface AwsDurableExecutionClient {
  getExecutionState(params: AwsGetStateRequest, logger?: unknown): Promise<AwsGetStateResponse>;
  checkpoint(params: AwsCheckpointRequest, logger?: unknown): Promise<AwsCheckpointResponse>;
}

/** AWS's `DurableExecutionInvocationInput`: what a durable Lambda handler is invoked with. */
export interface AwsInvocationInput {
  DurableExecutionArn: string;
  CheckpointToken: string;
  UpdatedOperationIds?: string[];
  InitialExecutionState: { Operations: AwsOperation[]; NextMarker?: string | undefined };
}

/** AWS's `DurableExecutionInvocationOutput`. */
export type AwsInvocationOutput =
  | { Status: 'SUCCEEDED'; Result?: string }
  | { Status: 'FAILED'; Error: AwsErrorObject }
  | { Status: 'PENDING' };

/** The part of Lambda's `Context` AWS's SDK reads, filled in for an in-process invocation. */
export interface AwsLambdaContext {
  callbackWaitsForEmptyEventLoop: boolean;
  functionName: string;
  functionVersion: string;
  invokedFunctionArn: string;
  memoryLimitInMB: string;
  awsRequestId: string;
  logGroupName: string;
  logStreamName: string;
  tenantId?: string;
  getRemainingTimeInMillis(): number;
  done(): void;
  fail(): void;
  succeed(): void;
}

/** A Lambda handler wrapped by AWS's `withDurableExecution` (its `DurableLambdaHandler`). */
export type AwsDurableLambdaHandler = (event: AwsInvocationInput, context: AwsLambdaContext) => Promise<unknown>;
