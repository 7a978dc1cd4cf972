/**
 * `@durable-lambda/sdk`: write durable handlers for AWS Lambda. A handler author imports from
 * here alone.
 */

export type { ChildContextConfig, DurableExecutionConfig, StepConfig, StepDefaults } from './config';
export { RUNTIME_DEFAULTS, StepSemantics } from './config';
export type { ChildFunction, DurableContext, DurableHandler, StepContext, StepFunction } from './context/types';
export type { Duration } from './duration';
export {
  BatchCompletionError,
  CallbackError,
  CallbackExternalError,
  CallbackSubmitterError,
  CallbackTimeoutError,
  ChildContextError,
  DurableOperationError,
  DurableRuntimeFault,
  ErrorCode,
  InvalidArgumentError,
  InvokeError,
  NonRetriableError,
  RetryAfterError,
  StepError,
  StepInterruptedError,
  WaitForConditionError,
} from './errors';
export type { DurableEntry, DurableLambdaHandler, RuntimeOverrides } from './handler';
export { DURABLE_ENTRY, finishOpened, getDurableEntry, withDurableExecution } from './handler';
export type { RetryableFunc, WithRetryConfig } from './helpers/with-retry';
export { withRetry } from './helpers/with-retry';
export type { DurableLogger, LogEntry, LogLevel, LogSink } from './logger';
export type {
  BatchItem,
  BatchResult,
  CompletionConfig,
  CompletionDecision,
  CompletionItemStatus,
  CompletionReason,
  CompletionStatus,
  CustomCompletionConfig,
  MapConfig,
  MapFunc,
  MapFunction,
  NamedParallelBranch,
  ParallelConfig,
  ParallelFunc,
  ParallelFunction,
  ThresholdCompletionConfig,
} from './operations/batch/types';
export {
  BatchItemStatus,
  CompletionOutcome,
  completeBatch,
  continueBatch,
  NestingType,
} from './operations/batch/types';
export type { DurablePromiseCombinators } from './operations/promise-combinators';
export type {
  WaitForConditionCheck,
  WaitForConditionCheckFunc,
  WaitForConditionConfig,
  WaitForConditionContext,
} from './operations/wait-for-condition';
export type {
  WaitForConditionDecision,
  WaitForConditionWaitStrategyFunc,
  WaitStrategy,
  WaitStrategyConfig,
} from './operations/wait-strategy';
export { createWaitStrategy } from './operations/wait-strategy';
export * from './retry';
export type { InvocationResult, RuntimeSettings } from './runtime/invocation-runtime';
export type { Serdes, SerdesContext } from './serdes';
export { defaultSerdes } from './serdes';
