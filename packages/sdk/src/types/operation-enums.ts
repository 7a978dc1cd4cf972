/**
 * The wire enumerations of AWS's SDK (`OperationType`, `OperationStatus`, `OperationAction` are
 * the protocol's, shared with the engine), plus AWS's `OperationSubType` and `InvocationStatus`,
 * declared as enums like AWS's so values and types match.
 */
export { OperationAction, OperationStatus, OperationType } from '@durable-lambda/protocol';

/** The SubType each kind of durable operation is stored with (AWS's values). */
export enum OperationSubType {
  /** `context.step`. */
  STEP = 'Step',
  /** `context.wait`. */
  WAIT = 'Wait',
  /** `context.createCallback`. */
  CALLBACK = 'Callback',
  /** `context.runInChildContext`. */
  RUN_IN_CHILD_CONTEXT = 'RunInChildContext',
  /** `context.map`. */
  MAP = 'Map',
  /** One item of a `context.map`. */
  MAP_ITERATION = 'MapIteration',
  /** `context.parallel`. */
  PARALLEL = 'Parallel',
  /** One branch of a `context.parallel`. */
  PARALLEL_BRANCH = 'ParallelBranch',
  /** `context.waitForCallback`. */
  WAIT_FOR_CALLBACK = 'WaitForCallback',
  /** `context.waitForCondition`. */
  WAIT_FOR_CONDITION = 'WaitForCondition',
  /** `context.invoke`. */
  CHAINED_INVOKE = 'ChainedInvoke',
}

/** How one invocation of a durable handler ended (AWS's). */
export enum InvocationStatus {
  /** The run finished with a result. */
  SUCCEEDED = 'SUCCEEDED',
  /** The run failed for good. */
  FAILED = 'FAILED',
  /** The run waits (a time, a callback, a child run) and is resumed by a later invocation. */
  PENDING = 'PENDING',
}
