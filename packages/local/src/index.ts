/**
 * `@durable-lambda/local`: the durable runtime on your machine. The test runner with a virtual
 * clock (compat with AWS's testing package) and the embedded backend pieces.
 */

export type { LocalDurableTestRunnerOptions, RunOptions } from './testing/local-durable-test-runner';
export { LocalDurableTestRunner } from './testing/local-durable-test-runner';
export type {
  CallbackDetails,
  ContextDetails,
  OperationSource,
  StepDetails,
  TestError,
  WaitDetails,
} from './testing/operation-view';
export { DurableOperation, WaitingOperationStatus } from './testing/operation-view';
export type { TestInvocation } from './testing/test-result';
export { DurableTestResult } from './testing/test-result';
export { VirtualClock } from './virtual-clock';
