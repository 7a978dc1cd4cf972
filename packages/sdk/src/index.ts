/**
 * `@durable-lambda/sdk`: write durable handlers for AWS Lambda. A handler author imports from
 * here alone.
 */

export type { ChildContextConfig, DurableExecutionConfig, StepConfig, StepDefaults } from './config';
export { RUNTIME_DEFAULTS, StepSemantics } from './config';
export type { ChildFunction, DurableContext, DurableHandler, StepContext, StepFunction } from './context/types';
export type { Duration } from './duration';
export {
  CallbackError,
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
export type { DurableLogger, LogEntry, LogLevel, LogSink } from './logger';
export * from './retry';
export type { InvocationResult, RuntimeSettings } from './runtime/invocation-runtime';
export type { Serdes, SerdesContext } from './serdes';
export { defaultSerdes } from './serdes';
