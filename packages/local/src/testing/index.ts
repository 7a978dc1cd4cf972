/** The test runner and its driver (no embedded runtime: nothing here loads a native module). */

export { OperationStatus, OperationType } from '@durable-lambda/sdk';
export { ExecutionStatus, InvocationType } from './aws-enums';
export type { AwsCallbackError, CallbackFailureFields, CallbackFailureInput } from './callback-failure';
export type { CallbackCompletions } from './callback-sender';
export type { DriverHandler, DriverStartOptions, TestDriverOptions } from './driver';
export { TestDriver } from './driver';
export type { Invocation, TestInvocation } from './invocations';
export type {
  CallbackDeadlines,
  InvokeRequest,
  LocalDurableTestRunnerOptions,
  LocalDurableTestRunnerParameters,
  RunOptions,
} from './local-durable-test-runner';
export { LocalDurableTestRunner } from './local-durable-test-runner';
export type { CallbackHolds, NextWake } from './next-wake';
export type { TestErrorObject, TestOperation } from './operation-data';
export type {
  CallbackDetails,
  ChainedInvokeDetails,
  ContextDetails,
  FailedAttempt,
  StepDetails,
  WaitDetails,
  WaitResultDetails,
} from './operation-details';
export type { CallbackResponse, OperationSource } from './operation-view';
export { DurableOperation, WaitingOperationStatus } from './operation-view';
export type { PlainHandler } from './plain-function';
export type { InvocationFailure } from './queued-loop';
export type { RecordedRun, RecordedRunRecord, RecordedRunSource, RecordedRunStore } from './recorded-run';
export {
  parseRecordedRun,
  RECORDED_RUN_FORMAT,
  RECORDED_RUN_VERSION,
  RecordedRunError,
  recordedRunOf,
  recordRunFromStore,
} from './recorded-run';
export type { ReplayDivergence, ReplayedOperation, ReplayOptions, ReplayReport } from './replay-recorded';
export { replayRecordedRun } from './replay-recorded';
export type { PrintConfig } from './result-print';
export { TestRunStoppedError } from './run-errors';
export type { DurableTestRunner, TestResult } from './runner-types';
export type { LocalDurableTestRunnerSetupParameters } from './test-environment';
export type { TestError, TestResultError } from './test-errors';
export type { ResultHistory } from './test-result';
export { DurableTestResult } from './test-result';
