/** The test runner and its driver (no embedded runtime: nothing here loads a native module). */

export type { CallbackCompletions } from './callback-sender';
export type { TestDriverOptions } from './driver';
export { TestDriver } from './driver';
export type { LocalDurableTestRunnerOptions, RunOptions } from './local-durable-test-runner';
export { LocalDurableTestRunner } from './local-durable-test-runner';
export type {
  CallbackDetails,
  ContextDetails,
  OperationSource,
  StepDetails,
  TestError,
  WaitDetails,
} from './operation-view';
export { DurableOperation, WaitingOperationStatus } from './operation-view';
export type { InvocationFailure } from './queued-loop';
export { TestRunStoppedError } from './run-errors';
export type { TestInvocation } from './test-result';
export { DurableTestResult } from './test-result';
