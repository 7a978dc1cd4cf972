/**
 * `@durable-lambda/sdk`: write durable handlers for AWS Lambda. A handler author imports from
 * here alone.
 */
export { withDurableExecution, getDurableEntry, finishOpened, DURABLE_ENTRY } from './handler';
export type { DurableEntry, DurableLambdaHandler, RuntimeOverrides } from './handler';
export type { DurableContext, DurableHandler, StepContext, StepFunction, ChildFunction } from './context/types';
export { StepSemantics, RUNTIME_DEFAULTS } from './config';
export type { StepConfig, ChildContextConfig, DurableExecutionConfig, StepDefaults } from './config';
export type { Duration } from './duration';
export {
  ErrorCode,
  NonRetriableError,
  RetryAfterError,
  InvalidArgumentError,
  DurableOperationError,
  StepError,
  StepInterruptedError,
  ChildContextError,
  CallbackError,
  InvokeError,
  WaitForConditionError,
  DurableRuntimeFault,
} from './errors';
export { defaultSerdes } from './serdes';
export type { Serdes, SerdesContext } from './serdes';
export type { DurableLogger, LogEntry, LogLevel, LogSink } from './logger';
export type { InvocationResult, RuntimeSettings } from './runtime/invocation-runtime';
export * from './retry';
