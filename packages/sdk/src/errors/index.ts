export {
  DurableExecutionClientError,
  type DurableExecutionClientErrorOptions,
  DurableExecutionClientErrorScope,
  isDurableExecutionClientError,
  PluginLoadError,
} from './client-errors';
export { codeOf, ErrorCode, type ErrorCodeValue, withCode } from './codes';
export {
  BatchCompletionError,
  CallbackError,
  CallbackExternalError,
  CallbackSubmitterError,
  CallbackTimeoutError,
  ChildContextError,
  DurableOperationError,
  InvokeError,
  PromiseCombinatorError,
  SignalTimeoutError,
  StepError,
  WaitForConditionError,
} from './durable-errors';
export {
  type ContextErrorMapper,
  causeChain,
  contextFailure,
  findInChain,
  storedFailure,
  toErrorObject,
  withStackTrace,
} from './error-object';
export { InvalidArgumentError } from './invalid-argument';
export { AttemptFailure, DurableRuntimeFault } from './runtime-errors';
export { DurableSdkError } from './sdk-error';
export { NonRetriableError, RetryAfterError, StepInterruptedError } from './step-errors';
