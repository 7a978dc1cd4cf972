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
export { DatabaseInUseError } from './embedded/sqlite-owner-lock';
export type { SqliteStoreOptions } from './embedded/sqlite-store';
export { SqliteStore } from './embedded/sqlite-store';
export type { WakeUpTable } from './embedded/sqlite-wake-ups';
export type { TimerWakerOptions } from './embedded/timer-waker';
export { TimerWaker } from './embedded/timer-waker';
export type { FaultKind, FaultOptions, FaultProbabilities, FaultRecord, FaultSite } from './faults/fault-plan';
export { DEFAULT_FAULT_PROBABILITY, describeFaults, FAULT_KINDS, FaultPlan } from './faults/fault-plan';
export { FaultScope } from './faults/fault-scope';
export { FaultyInvoker, FaultyWaker } from './faults/faulty-delivery';
export type { InvocationFaultHooks } from './faults/faulty-invocation';
export { FaultyInvocation } from './faults/faulty-invocation';
export type { FaultyStoreHooks } from './faults/faulty-store';
export { FaultyStore } from './faults/faulty-store';
export {
  InjectedFaultError,
  InjectedLostResponseError,
  InjectedThrottlingError,
  isInjectedFault,
} from './faults/injected-errors';
export { keyedRandom, mulberry32 } from './faults/seeded-random';
export type { CallbackCompletions } from './testing/callback-sender';
export type { TestDriverOptions } from './testing/driver';
export { TestDriver } from './testing/driver';
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
export type { InvocationFailure } from './testing/queued-loop';
export { TestRunStoppedError } from './testing/run-errors';
export type { TestInvocation } from './testing/test-result';
export { DurableTestResult } from './testing/test-result';
export { VirtualClock } from './virtual-clock';
