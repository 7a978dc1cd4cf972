/**
 * The shapes the cloud test runner hands tests, copied from AWS's testing package
 * (`@aws/durable-execution-sdk-js-testing` 1.1.4) so assertions written for it hold unchanged.
 * Copied rather than imported: nothing of ours depends on AWS's packages.
 */

/** AWS's `ExecutionStatus`: how a durable execution stands (a cancelled run of ours is `STOPPED`). */
export type CloudExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'STOPPED';

/** AWS's `TestResultError`: an error of a run or an operation, exactly these four fields. */
export interface CloudTestResultError {
  errorMessage: string | undefined;
  errorType: string | undefined;
  errorData: string | undefined;
  stackTrace: string[] | undefined;
}

/** AWS's `Invocation`: one invocation of the handler. */
export interface CloudInvocation {
  startTimestamp: Date | undefined;
  endTimestamp: Date | undefined;
  /** The invocation's request id; our control API records none, so it is undefined. */
  requestId: string | undefined;
  error: CloudTestResultError | undefined;
}

/** AWS's `InvokeRequest`. */
export interface CloudInvokeRequest {
  /** The run's input; left out (or null), the handler receives `{}` as Lambda hands it. */
  payload?: unknown;
}

/** What `waitForData` waits for: AWS's `WaitingOperationStatus` values. */
export type CloudWaitingStatus = 'STARTED' | 'SUBMITTED' | 'COMPLETED';

/** AWS's `StepDetails`. */
export interface CloudStepDetails<TResult = unknown> {
  /** Attempts finished so far (AWS's count: a step running its first attempt has none). */
  readonly attempt: number | undefined;
  readonly nextAttemptTimestamp: Date | undefined;
  readonly result: TResult | undefined;
  readonly error: CloudTestResultError | undefined;
}

/** AWS's `ContextDetails`. */
export interface CloudContextDetails<TResult = unknown> {
  readonly result: TResult | undefined;
  readonly error: CloudTestResultError | undefined;
}

/** AWS's `CallbackDetails`. */
export interface CloudCallbackDetails<TResult = unknown> {
  readonly callbackId: string;
  readonly error?: CloudTestResultError;
  readonly result?: TResult;
}

/** AWS's `ChainedInvokeDetails`. */
export interface CloudChainedInvokeDetails<TResult = unknown> {
  readonly error?: CloudTestResultError;
  readonly result?: TResult;
}

/** AWS's `WaitResultDetails`. */
export interface CloudWaitDetails {
  readonly waitSeconds?: number;
  readonly scheduledEndTimestamp?: Date;
}

/** The columns of `print()`, as AWS's. */
export interface CloudPrintConfig {
  parentId?: boolean;
  name?: boolean;
  type?: boolean;
  subType?: boolean;
  status?: boolean;
  startTime?: boolean;
  endTime?: boolean;
  duration?: boolean;
}
