import type { OperationAction, OperationStatus, OperationType } from '@durable-lambda/protocol';

/**
 * AWS's wire model of the Lambda durable-execution API (`GetDurableExecutionState`,
 * `CheckpointDurableExecution`), as AWS's SDK exports it: for transports and tools written
 * against it. (The SDK and the engine speak `@durable-lambda/protocol`, the same shapes with
 * epoch-millisecond timestamps.)
 */

/** A timestamp as it crosses the wire: a Date, or an ISO string before parsing. */
export type WireTimestamp = Date | string;

/** A stored error. */
export interface ErrorObject {
  ErrorMessage?: string | undefined;
  ErrorType?: string | undefined;
  ErrorData?: string | undefined;
  StackTrace?: string[] | undefined;
}

/** The execution operation's details. */
export interface ExecutionDetails {
  InputPayload?: string | undefined;
}

/** A CONTEXT operation's details. */
export interface ContextDetails {
  ReplayChildren?: boolean | undefined;
  Result?: string | undefined;
  Error?: ErrorObject | undefined;
}

/** A STEP operation's details. */
export interface StepDetails {
  Attempt?: number | undefined;
  NextAttemptTimestamp?: Date | undefined;
  Result?: string | undefined;
  Error?: ErrorObject | undefined;
}

/** {@link StepDetails} as received. */
export interface WireStepDetails extends Omit<StepDetails, 'NextAttemptTimestamp'> {
  NextAttemptTimestamp?: WireTimestamp | undefined;
}

/** A WAIT operation's details. */
export interface WaitDetails {
  ScheduledEndTimestamp?: Date | undefined;
}

/** {@link WaitDetails} as received. */
export interface WireWaitDetails {
  ScheduledEndTimestamp?: WireTimestamp | undefined;
}

/** A CALLBACK operation's details. */
export interface CallbackDetails {
  CallbackId?: string | undefined;
  Result?: string | undefined;
  Error?: ErrorObject | undefined;
}

/** A CHAINED_INVOKE operation's details. */
export interface ChainedInvokeDetails {
  Result?: string | undefined;
  Error?: ErrorObject | undefined;
}

/** One operation of a run. */
export interface Operation {
  Id: string | undefined;
  ParentId?: string | undefined;
  Name?: string | undefined;
  Type: OperationType | undefined;
  SubType?: string | undefined;
  StartTimestamp: Date | undefined;
  EndTimestamp?: Date | undefined;
  Status: OperationStatus | undefined;
  ExecutionDetails?: ExecutionDetails | undefined;
  ContextDetails?: ContextDetails | undefined;
  StepDetails?: StepDetails | undefined;
  WaitDetails?: WaitDetails | undefined;
  CallbackDetails?: CallbackDetails | undefined;
  ChainedInvokeDetails?: ChainedInvokeDetails | undefined;
}

/** {@link Operation} as received, timestamps not yet parsed. */
export interface WireOperation
  extends Omit<Operation, 'StartTimestamp' | 'EndTimestamp' | 'StepDetails' | 'WaitDetails'> {
  StartTimestamp: WireTimestamp | undefined;
  EndTimestamp?: WireTimestamp | undefined;
  StepDetails?: WireStepDetails | undefined;
  WaitDetails?: WireWaitDetails | undefined;
}

/** Options of a CONTEXT update. */
export interface ContextOptions {
  ReplayChildren?: boolean | undefined;
}

/** Options of a STEP update. */
export interface StepOptions {
  NextAttemptDelaySeconds?: number | undefined;
}

/** Options of a WAIT update. */
export interface WaitOptions {
  WaitSeconds?: number | undefined;
}

/** Options of a CALLBACK update. */
export interface CallbackOptions {
  TimeoutSeconds?: number | undefined;
  HeartbeatTimeoutSeconds?: number | undefined;
}

/** Options of a CHAINED_INVOKE update. */
export interface ChainedInvokeOptions {
  FunctionName: string | undefined;
  TenantId?: string | undefined;
}

/** One change a checkpoint asks for. */
export interface OperationUpdate {
  Id: string | undefined;
  ParentId?: string | undefined;
  Name?: string | undefined;
  Type: OperationType | undefined;
  SubType?: string | undefined;
  Action: OperationAction | undefined;
  Payload?: string | undefined;
  Error?: ErrorObject | undefined;
  ContextOptions?: ContextOptions | undefined;
  StepOptions?: StepOptions | undefined;
  WaitOptions?: WaitOptions | undefined;
  CallbackOptions?: CallbackOptions | undefined;
  ChainedInvokeOptions?: ChainedInvokeOptions | undefined;
}

/** The operations a checkpoint changed. */
export interface CheckpointUpdatedExecutionState {
  Operations?: WireOperation[] | undefined;
  NextMarker?: string | undefined;
}

/** `CheckpointDurableExecution`'s request. */
export interface CheckpointDurableExecutionRequest {
  DurableExecutionArn: string | undefined;
  CheckpointToken: string | undefined;
  Updates?: OperationUpdate[] | undefined;
  ClientToken?: string | undefined;
}

/** `CheckpointDurableExecution`'s response. */
export interface CheckpointDurableExecutionResponse {
  CheckpointToken?: string | undefined;
  NewExecutionState: CheckpointUpdatedExecutionState | undefined;
}

/** `GetDurableExecutionState`'s request. */
export interface GetDurableExecutionStateRequest {
  DurableExecutionArn: string | undefined;
  CheckpointToken: string | undefined;
  Marker?: string | undefined;
  MaxItems?: number | undefined;
}

/** `GetDurableExecutionState`'s response. */
export interface GetDurableExecutionStateResponse {
  Operations: WireOperation[] | undefined;
  NextMarker?: string | undefined;
}
