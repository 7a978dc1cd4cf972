/**
 * Structural copies of the history events of Lambda's `GetDurableExecutionHistory` (the `Event`
 * type of `@aws-sdk/client-lambda` and its `*Details` types), as AWS's testing package returns
 * them from `getHistoryEvents()`. Copied, not imported, so the engine never depends on AWS's
 * packages; AWS's own `Event` type accepts these structurally (checked by the compat tests).
 */

import type { ErrorObject } from '@durable-lambda/protocol';
import type { AwsErrorObject } from './aws-shapes';

/** Every `EventType` of Lambda's durable-execution history. */
export type AwsHistoryEventType =
  | 'ExecutionStarted'
  | 'ExecutionSucceeded'
  | 'ExecutionFailed'
  | 'ExecutionTimedOut'
  | 'ExecutionStopped'
  | 'ContextStarted'
  | 'ContextSucceeded'
  | 'ContextFailed'
  | 'WaitStarted'
  | 'WaitSucceeded'
  | 'WaitCancelled'
  | 'StepStarted'
  | 'StepSucceeded'
  | 'StepFailed'
  | 'ChainedInvokeStarted'
  | 'ChainedInvokeSucceeded'
  | 'ChainedInvokeFailed'
  | 'ChainedInvokeTimedOut'
  | 'ChainedInvokeStopped'
  | 'CallbackStarted'
  | 'CallbackSucceeded'
  | 'CallbackFailed'
  | 'CallbackTimedOut'
  | 'InvocationCompleted';

/** Lambda's `EventInput`: a serialized input (left out when execution data is not included). */
export interface AwsEventInput {
  Payload?: string | undefined;
  Truncated?: boolean | undefined;
}

/** Lambda's `EventResult`: a serialized result. */
export interface AwsEventResult {
  Payload?: string | undefined;
  Truncated?: boolean | undefined;
}

/** Lambda's `EventError`: an error, as AWS's `ErrorObject`. */
export interface AwsEventError {
  Payload?: AwsErrorObject | undefined;
  Truncated?: boolean | undefined;
}

/** Lambda's `RetryDetails` of a step event. */
export interface AwsRetryDetails {
  /** As AWS's checkpoint server counts it: the attempts finished before this one (at least 1 on a failure). */
  CurrentAttempt?: number | undefined;
  NextAttemptDelaySeconds?: number | undefined;
}

/** Lambda's `ExecutionStartedDetails`. */
export interface AwsExecutionStartedDetails {
  Input: AwsEventInput | undefined;
  /** Seconds; our runs have no execution timeout, so always undefined (as AWS's checkpoint server writes it). */
  ExecutionTimeout: number | undefined;
}
/** Lambda's `ExecutionSucceededDetails`. */
export interface AwsExecutionSucceededDetails {
  Result: AwsEventResult | undefined;
}
/** Lambda's `ExecutionFailedDetails` (also the shape of the stopped and timed-out ones). */
export interface AwsExecutionFailedDetails {
  Error: AwsEventError | undefined;
}
/** Lambda's `ContextStartedDetails` (empty). */
export type AwsContextStartedDetails = Record<string, never>;
/** Lambda's `ContextSucceededDetails`. */
export interface AwsContextSucceededDetails {
  Result: AwsEventResult | undefined;
}
/** Lambda's `ContextFailedDetails`. */
export interface AwsContextFailedDetails {
  Error: AwsEventError | undefined;
}
/** Lambda's `WaitStartedDetails`. */
export interface AwsWaitStartedDetails {
  Duration: number | undefined;
  ScheduledEndTimestamp: Date | undefined;
}
/** Lambda's `WaitSucceededDetails`. */
export interface AwsWaitSucceededDetails {
  Duration?: number | undefined;
}
/** Lambda's `WaitCancelledDetails`. */
export interface AwsWaitCancelledDetails {
  Error?: AwsEventError | undefined;
}
/** Lambda's `StepStartedDetails` (empty). */
export type AwsStepStartedDetails = Record<string, never>;
/** Lambda's `StepSucceededDetails`. */
export interface AwsStepSucceededDetails {
  Result: AwsEventResult | undefined;
  RetryDetails: AwsRetryDetails | undefined;
}
/** Lambda's `StepFailedDetails`. */
export interface AwsStepFailedDetails {
  Error: AwsEventError | undefined;
  RetryDetails: AwsRetryDetails | undefined;
}
/** Lambda's `ChainedInvokeStartedDetails`. */
export interface AwsChainedInvokeStartedDetails {
  FunctionName: string | undefined;
  TenantId?: string | undefined;
  Input?: AwsEventInput | undefined;
  ExecutedVersion?: string | undefined;
  DurableExecutionArn?: string | undefined;
}
/** Lambda's `ChainedInvokeSucceededDetails`. */
export interface AwsChainedInvokeSucceededDetails {
  Result: AwsEventResult | undefined;
}
/** Lambda's `ChainedInvokeFailedDetails` (also the shape of the timed-out and stopped ones). */
export interface AwsChainedInvokeFailedDetails {
  Error: AwsEventError | undefined;
}
/** Lambda's `CallbackStartedDetails`. */
export interface AwsCallbackStartedDetails {
  CallbackId: string | undefined;
  HeartbeatTimeout?: number | undefined;
  Timeout?: number | undefined;
}
/** Lambda's `CallbackSucceededDetails`. */
export interface AwsCallbackSucceededDetails {
  Result: AwsEventResult | undefined;
}
/** Lambda's `CallbackFailedDetails` (also the shape of the timed-out one). */
export interface AwsCallbackFailedDetails {
  Error: AwsEventError | undefined;
}
/** Lambda's `InvocationCompletedDetails`. */
export interface AwsInvocationCompletedDetails {
  StartTimestamp: Date | undefined;
  EndTimestamp: Date | undefined;
  RequestId: string | undefined;
  Error?: AwsEventError | undefined;
}

/** An event of Lambda's `GetDurableExecutionHistory` (the fields AWS's `Event` type has). */
export interface AwsHistoryEvent {
  EventType: AwsHistoryEventType;
  /** The operation's subtype (`Step`, `Map`, `WaitForCallback`, …); none on execution and invocation events. */
  SubType?: string;
  /** 1, 2, 3, … in the order of the history. */
  EventId: number;
  /** The operation's id; none on `InvocationCompleted`. */
  Id?: string;
  Name?: string;
  EventTimestamp: Date;
  ParentId?: string;
  ExecutionStartedDetails?: AwsExecutionStartedDetails;
  ExecutionSucceededDetails?: AwsExecutionSucceededDetails;
  ExecutionFailedDetails?: AwsExecutionFailedDetails;
  ExecutionTimedOutDetails?: { Error?: AwsEventError | undefined };
  ExecutionStoppedDetails?: AwsExecutionFailedDetails;
  ContextStartedDetails?: AwsContextStartedDetails;
  ContextSucceededDetails?: AwsContextSucceededDetails;
  ContextFailedDetails?: AwsContextFailedDetails;
  WaitStartedDetails?: AwsWaitStartedDetails;
  WaitSucceededDetails?: AwsWaitSucceededDetails;
  WaitCancelledDetails?: AwsWaitCancelledDetails;
  StepStartedDetails?: AwsStepStartedDetails;
  StepSucceededDetails?: AwsStepSucceededDetails;
  StepFailedDetails?: AwsStepFailedDetails;
  ChainedInvokeStartedDetails?: AwsChainedInvokeStartedDetails;
  ChainedInvokeSucceededDetails?: AwsChainedInvokeSucceededDetails;
  ChainedInvokeFailedDetails?: AwsChainedInvokeFailedDetails;
  ChainedInvokeTimedOutDetails?: AwsChainedInvokeFailedDetails;
  ChainedInvokeStoppedDetails?: AwsChainedInvokeFailedDetails;
  CallbackStartedDetails?: AwsCallbackStartedDetails;
  CallbackSucceededDetails?: AwsCallbackSucceededDetails;
  CallbackFailedDetails?: AwsCallbackFailedDetails;
  CallbackTimedOutDetails?: AwsCallbackFailedDetails;
  InvocationCompletedDetails?: AwsInvocationCompletedDetails;
}

/** One invocation, for `InvocationCompleted` events. */
export interface AwsHistoryInvocation {
  startTimestamp: Date;
  /** Absent while the invocation runs: no `InvocationCompleted` is written for it yet. */
  endTimestamp?: Date;
  requestId?: string;
  /** How the invocation itself failed (a handler crash), not how the run did. */
  error?: ErrorObject;
  /** Where its end stands in the run's recorded order (`RunRecord.historyInvocations`); absent when not recorded. */
  order?: number;
}

/** Options of {@link toAwsHistoryEvents}. */
export interface AwsHistoryOptions {
  /** The run's invocations, oldest first: each ended one becomes an `InvocationCompleted` event. */
  invocations?: readonly AwsHistoryInvocation[];
  /**
   * Lambda's `IncludeExecutionData`: with `false`, inputs, results and errors are left out (their
   * `Payload` fields). Default `true`, as Lambda's.
   */
  includeExecutionData?: boolean;
  /**
   * The run's outcome, as its record keeps it (`RunRecord` fits): our EXECUTION operation stores
   * its status but not its result or error, which the execution's terminal event carries.
   */
  run?: { result?: string; error?: ErrorObject };
  /**
   * How a step event's `RetryDetails.CurrentAttempt` counts. `service` (Lambda's, as AWS's
   * conformance requirements have it): the attempt the event ends, 1 for the first failure, 2
   * for a success after one failure. `testing-library` (the default, AWS's local checkpoint
   * server): the attempts finished before it, at least 1 on a failure, so one lower on a retry.
   * Our test runner, history route and console use `service`.
   */
  attemptCounting?: 'service' | 'testing-library';
}
