/**
 * `@durable-lambda/local`: the durable runtime on your machine. The test runner with a virtual
 * clock (compat with AWS's testing package) and the embedded backend pieces.
 */

export type { DevServer, DevServerOptions } from './dev-server/dev-server';
export { DEFAULT_DEV_DB, DEFAULT_DEV_HOST, DEFAULT_DEV_PORT, startDevServer } from './dev-server/dev-server';
export type { InProcessInvokerOptions } from './embedded/in-process-invoker';
export { FunctionNotFoundError, InProcessInvoker } from './embedded/in-process-invoker';
export type { LocalRuntimeOptions, LocalRuntimeStore } from './embedded/local-runtime';
export { LocalRuntime } from './embedded/local-runtime';
export type { SqliteStoreOptions } from './embedded/sqlite-store';
export { SqliteStore } from './embedded/sqlite-store';
export type { WakeUpTable } from './embedded/sqlite-wake-ups';
export type { TimerWakerOptions } from './embedded/timer-waker';
export { TimerWaker } from './embedded/timer-waker';
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
