/**
 * `@durable-lambda/sdk`: write durable handlers for AWS Lambda. A handler author imports from
 * here alone. Every export of AWS's `@aws/durable-execution-sdk-js` 2.4.0 is here with the same
 * name and shape (see test/compat/sdk/runtime-exports.test.ts for the comparison).
 */

export type {
  EventBridgeOutboxEvent,
  OutboxEvent,
  SqsOutboxEvent,
  TransactConditionCheck,
  TransactDelete,
  TransactPut,
  TransactRejection,
  TransactUpdate,
  TransactWrite,
} from '@durable-lambda/protocol';
export { TransactConditionFailedError, TransactRejectedError } from '@durable-lambda/protocol';
// Transports and invocation input (AWS's)
export { DurableExecutionApiClient, type LambdaClientLike } from './client/api-client';
export { DurableExecutionInvocationInputWithClient } from './client/invocation-input';
export { RUNTIME_DEFAULTS } from './config';
// Errors
export {
  BatchCompletionError,
  CallbackError,
  CallbackExternalError,
  CallbackSubmitterError,
  CallbackTimeoutError,
  ChildContextError,
  DurableExecutionClientError,
  type DurableExecutionClientErrorOptions,
  DurableExecutionClientErrorScope,
  DurableOperationError,
  DurableRuntimeFault,
  DurableSdkError,
  ErrorCode,
  type ErrorCodeValue,
  InvalidArgumentError,
  InvokeError,
  isDurableExecutionClientError,
  NonRetriableError,
  PluginLoadError,
  PromiseCombinatorError,
  RetryAfterError,
  SignalTimeoutError,
  StepError,
  StepInterruptedError,
  WaitForConditionError,
} from './errors';
// The handler wrapper
export type { DurableEntry, DurableLambdaHandler, RuntimeOverrides } from './handler';
export { DURABLE_ENTRY, getDurableEntry, withDurableExecution } from './handler';
export type { RetryableFunc, WithRetryConfig } from './helpers/with-retry';
export { withRetry } from './helpers/with-retry';
export { jsonLineSink } from './logger';
export { PATCH_SUBTYPE } from './operations/patch';
export { SIGNAL_SUBTYPE } from './operations/signal';
export { createWaitStrategy } from './operations/wait-strategy';
export * from './retry';
export type { BackendFactory } from './runtime/backend-registry';
export { registerBackend, registeredBackend } from './runtime/backend-registry';
export type { InvocationResult, RuntimeSettings } from './runtime/invocation-runtime';
export type { BackendLoader, BackendSource, RunOpenedInvocation } from './runtime/lambda-entry';
export { backendLoader, finishOpened, serveLambdaEvent } from './runtime/lambda-entry';
export { refreshLogConfig } from './runtime/verbose';
// Serdes
export {
  buildPreview,
  createClassSerdes,
  createClassSerdesWithDates,
  createFileSystemSerdes,
  defaultSerdes,
  FieldMatchMode,
  FileSystemPathEncoding,
  type FileSystemSerdesConfig,
  FileSystemSerdesMode,
  type PreviewConfig,
  type PreviewField,
  PreviewMode,
} from './serdes';
// Public types (leaf modules) and AWS's enumerations
export type {
  BatchItem,
  BatchResult,
  MapConfig,
  ParallelConfig,
} from './types/batch';
export { NestingType } from './types/batch';
export { BatchItemStatus } from './types/batch-status';
export type {
  CreateCallbackConfig,
  CreateCallbackResult,
  WaitForCallbackConfig,
  WaitForCallbackSubmitter,
  WaitForCallbackSubmitterFunc,
} from './types/callback';
export type { AllValues, DurablePromiseCombinators, SettledResults } from './types/combinators';
export type {
  CompletionConfig,
  CompletionDecision,
  CompletionItemStatus,
  CompletionReason,
  CompletionStatus,
  CustomCompletionConfig,
  ThresholdCompletionConfig,
} from './types/completion';
export { CompletionOutcome, completeBatch, continueBatch } from './types/completion';
export type {
  DebounceConfig,
  DurableExecutionConfig,
  FlowKey,
  KeyConcurrencyConfig,
  RateLimitConfig,
  SingletonConfig,
  ThrottleConfig,
} from './types/config';
export type {
  ChildFunc,
  ChildFunction,
  ConcurrencyConfig,
  ConcurrentExecutionItem,
  ConcurrentExecutor,
  DurableContext,
  DurableExecutionHandler,
  DurableHandler,
  MapFunc,
  MapFunction,
  NamedParallelBranch,
  ParallelFunc,
  ParallelFunction,
} from './types/durable-context';
export { DurablePromise } from './types/durable-promise';
export type { Duration } from './types/duration';
export type {
  DurableExecutionClient,
  DurableExecutionInvocationInput,
  DurableExecutionInvocationOutput,
} from './types/invocation';
export type { InvokeConfig } from './types/invoke';
export type {
  DurableContextLogger,
  DurableLogData,
  DurableLogger,
  DurableLoggingContext,
  DurableLogLevelName,
  LogEntry,
  LoggerConfig,
  LogLevel,
  LogSink,
} from './types/logger';
export {
  InvocationStatus,
  OperationAction,
  OperationStatus,
  OperationSubType,
  OperationType,
} from './types/operation-enums';
export type {
  AttemptEndInfo,
  AttemptInfo,
  CustomerFn,
  CustomerFnResult,
  DurableInstrumentationPlugin,
  DurableInstrumentationPluginProvider,
  DurableInstrumentationPluginType,
  InvocationBaseInfo,
  InvocationEndInfo,
  InvocationInfo,
  InvokeInfo,
  OperationChangeInfo,
  OperationEndInfo,
  OperationInfo,
  PluginFailedAttempt,
} from './types/plugin';
export {
  AttemptEndInfoOutcome,
  DURABLE_INSTRUMENTATION_PLUGIN_API_VERSION,
  PluginInvocationStatus,
  PluginOperationStatus,
} from './types/plugin';
export type { CompensationReport, FailedCompensation } from './types/saga';
export type { AnySerdes, AnySerdesDeserializer, Serdes, SerdesConfig, SerdesContext } from './types/serdes';
export type { WaitForSignalOptions } from './types/signal';
export type {
  ChildConfig,
  ChildContextConfig,
  CompensateFunction,
  Compensation,
  CompensationConfig,
  StepConfig,
  StepContext,
  StepDefaults,
  StepFunc,
  StepFunction,
  TransactWriter,
} from './types/step';
export { StepSemantics } from './types/step';
export type {
  WaitForConditionCheck,
  WaitForConditionCheckFunc,
  WaitForConditionConfig,
  WaitForConditionContext,
  WaitForConditionDecision,
  WaitForConditionWaitStrategyFunc,
  WaitStrategy,
  WaitStrategyConfig,
} from './types/wait-condition';
export type {
  CallbackDetails,
  CallbackOptions,
  ChainedInvokeDetails,
  ChainedInvokeOptions,
  CheckpointDurableExecutionRequest,
  CheckpointDurableExecutionResponse,
  CheckpointUpdatedExecutionState,
  ContextDetails,
  ContextOptions,
  ErrorObject,
  ExecutionDetails,
  GetDurableExecutionStateRequest,
  GetDurableExecutionStateResponse,
  Operation,
  OperationUpdate,
  StepDetails,
  StepOptions,
  WaitDetails,
  WaitOptions,
  WireOperation,
  WireStepDetails,
  WireTimestamp,
  WireWaitDetails,
} from './types/wire';
export { SDK_VERSION } from './version';
