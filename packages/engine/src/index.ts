/**
 * `@durable-lambda/engine`: the server side of the checkpoint protocol, on three ports
 * (`Store`, `Waker`, `Invoker`) that adapters implement, and a version policy (`VersionPolicy`,
 * which code runs run on) a backend with code versions gives it.
 */

export type { AwsHandlerResult, RunAwsHandlerOptions } from './aws-protocol/aws-handler';
export {
  awsLambdaContext,
  DurableExecutionInvocationInputWithClient,
  fromAwsOutput,
  isForeignDurableHandler,
  runAwsDurableHandler,
} from './aws-protocol/aws-handler';
export { toAwsHistoryEvents } from './aws-protocol/aws-history';
export type {
  AwsCallbackFailedDetails,
  AwsCallbackStartedDetails,
  AwsCallbackSucceededDetails,
  AwsChainedInvokeFailedDetails,
  AwsChainedInvokeStartedDetails,
  AwsChainedInvokeSucceededDetails,
  AwsContextFailedDetails,
  AwsContextStartedDetails,
  AwsContextSucceededDetails,
  AwsEventError,
  AwsEventInput,
  AwsEventResult,
  AwsExecutionFailedDetails,
  AwsExecutionStartedDetails,
  AwsExecutionSucceededDetails,
  AwsHistoryEvent,
  AwsHistoryEventType,
  AwsHistoryInvocation,
  AwsHistoryOptions,
  AwsInvocationCompletedDetails,
  AwsRetryDetails,
  AwsStepFailedDetails,
  AwsStepStartedDetails,
  AwsStepSucceededDetails,
  AwsWaitCancelledDetails,
  AwsWaitStartedDetails,
  AwsWaitSucceededDetails,
} from './aws-protocol/aws-history-shapes';
export { fromAwsError, fromAwsUpdate, toAwsError, toAwsOperation } from './aws-protocol/aws-mapping';
export type {
  AwsCheckpointRequest,
  AwsCheckpointResponse,
  AwsDurableExecutionClient,
  AwsDurableLambdaHandler,
  AwsErrorObject,
  AwsGetStateRequest,
  AwsGetStateResponse,
  AwsInvocationInput,
  AwsInvocationOutput,
  AwsLambdaContext,
  AwsOperation,
  AwsOperationUpdate,
} from './aws-protocol/aws-shapes';
export type { AwsErrorScope, AwsTransportErrorCode, EngineClientOptions } from './aws-protocol/aws-transport';
export { AwsTransportError, EngineDurableExecutionClient } from './aws-protocol/aws-transport';
export { issueCallbackId, parseCallbackId } from './callback-ids';
export type { QueuedRunEntry, SlotKey } from './concurrency-slots';
export { inQueueOrder, queuedBefore } from './concurrency-slots';
export type { EmulatedChange, EmulatedKeySchema } from './emulated/emulated-tables';
export { itemKey, planTransaction } from './emulated/emulated-tables';
export type { EngineOptions, StartRunRequest } from './engine';
export { Engine, EXECUTION_OPERATION_ID } from './engine';
export type { EngineErrorCode } from './engine-error';
export { ENGINE_ERROR_CODES, EngineError, isEngineErrorCode } from './engine-error';
export {
  CallbackAlreadyCompletedError,
  CallbackNotFoundError,
  EngineInputError,
  FunctionNotFoundError,
  InvalidCallbackIdError,
  PayloadTooLargeError,
  RunKeyConflictError,
  RunNotFoundError,
} from './errors';
export type { ExecutionTimeoutSetting } from './execution-timeout';
/**
 * `expireRun` ends a run past its execution deadline `TIMED_OUT` with its tree (idempotent), and
 * `pastDeadline` says whether a run's deadline has passed: for a host that rebuilds sessions
 * outside `Engine.openRun` (the Lambda-shaped API routes) and must end such a run the same way.
 */
export { EXECUTION_TIMED_OUT, expireRun, MAX_EXECUTION_TIMEOUT_SECONDS, pastDeadline } from './execution-timeout';
export type { SkipCode } from './flow/admission';
export { checkAdmission } from './flow/admission-request';
export type { GateKey, GateKind, GateRecord } from './flow/gate-records';
export type {
  FunctionLimits,
  FunctionLimitsRecord,
  FunctionLimitsStore,
  NoteFunctionLimitsOptions,
} from './function-limits';
export { canonicalLimits, noteFunctionLimits } from './function-limits';
export {
  FIRST_HISTORY_ORDER,
  type HistoryInvocation,
  historyEventCount,
  MAX_HISTORY_INVOCATIONS,
  outsideHistoryOrder,
  withHistoryOrder,
  withInvocation,
} from './history-order';
export { takeLease } from './lease';
export { applyPatch, MemoryStore } from './memory-store';
export type { ActionOutcome, CancelOptions, RetryOptions, SkipOptions } from './operator-actions';
export { OperationNotFoundError, OperationStateError, RunContendedError } from './operator-actions';
export type { OutboxDelivery, OutboxEntry, OutboxPublisher } from './outbox/outbox-port';
export { MemoryOutbox } from './outbox/outbox-port';
export type { CallbackOutcome } from './outside-events';
export { childRunKey, OutsideEvents } from './outside-events';
export { type PayloadCodec, sealedStore } from './payload-codec';
export { checkOperationPayloads, checkRunPayloads, MAX_PAYLOAD_BYTES } from './payload-limit';
export type {
  Clock,
  CommitWrite,
  DueRun,
  IdempotencyRecord,
  Invoker,
  LeaseGrant,
  OperationDeadlines,
  OperationPage,
  OperationPageRequest,
  RevisionBase,
  RunPage,
  RunPatch,
  RunQuery,
  RunRecord,
  RunStatus,
  Store,
  WakeRequest,
  Waker,
} from './ports';
export { dueAfter, dueAtOf, systemClock } from './ports';
export type {
  ReconcileAllOptions,
  ReconcileAllResult,
  ReconcileAllStop,
  ReconcileTarget,
} from './reconcile-all';
export { reconcileAll } from './reconcile-all';
export type { ReconcileOptions, ReconcileReport } from './reconciler';
export { MAX_RECONCILE_CONCURRENCY } from './reconciler';
export { loadReplayOperations, replayScope, replaysChildren } from './replay-scope';
export type { ActionOrigin, RunAction, RunActionKind } from './run-audit';
export { RunStateError } from './run-control';
export { runIdFor } from './run-ids';
export type { InvocationMeter, LastWrite, RunMeter, RunMeterField, RunMeterIncrement } from './run-meter';
export { addToMeter, InvalidMeterError, meterEntries, RUN_METER_FIELDS, wallClockMeter } from './run-meter';
export {
  checkRunSearch,
  decodeRunCursor,
  encodeRunCursor,
  functionBaseName,
  MAX_ERROR_CODE_FILTER_LENGTH,
  runMatchesSearch,
  runOfFunction,
  runQueryLimit,
} from './run-query';
export type { FlowGate, FlowMarks, PublishedState } from './run-record';
export type { TreeEndDeps } from './run-tree-end';
export { PARENT_CANCELLED, PARENT_TIMED_OUT } from './run-tree-end';
export { EngineSession } from './session';
export { decideSignal, type InboxDecision } from './signal-inbox';
export type {
  RunSignals,
  RunSignalView,
  SendSignalOptions,
  SignalReceipt,
  SignalWaitView,
} from './signal-send';
export { viewSignals } from './signal-send';
export type { SignalAppend, SignalRecord, SignalSend } from './signals';
export {
  checkSignalName,
  isSignalWait,
  MAX_SIGNAL_NAME_LENGTH,
  MAX_SIGNAL_PAYLOAD_BYTES,
  RunEndedError,
  SIGNAL_WAIT_SUBTYPE,
} from './signals';
export type { CronExpression, CronField } from './starts/cron';
export {
  CRON_FIELDS,
  CRON_MAX_YEAR,
  CronError,
  cronFiringsBetween,
  isTimeZone,
  nextCronFiring,
  parseCron,
} from './starts/cron';
export { type KickDeps, kickNewRun } from './starts/kick-new-run';
export { scheduleBufferKey, scheduleOfRunKey } from './starts/schedule-buffer';
export type { OverlapDecision, OverlapPolicy, ScheduleFiringEvent } from './starts/schedule-events';
export {
  decideOverlap,
  isScheduleFiring,
  OVERLAP_POLICIES,
  scheduleKeyPrefix,
  scheduleRunKey,
} from './starts/schedule-events';
export type { ScheduleFiringResponse, ScheduleReceiverOptions } from './starts/schedule-receiver';
export { ScheduleReceiver } from './starts/schedule-receiver';
export type { TriggerBatch, TriggerInput, TriggerRecord, TriggerSource } from './starts/trigger-events';
export { isEventBridgeEvent, queueNameOf, triggerBatchOf } from './starts/trigger-events';
export type {
  TriggerBatchResponse,
  TriggerReceiverOptions,
  TriggerRunKey,
  TriggerStartResponse,
} from './starts/trigger-receiver';
export { TriggerReceiver } from './starts/trigger-receiver';
export type { StoreTransactWrite } from './store';
export { transactWritesOf } from './transact-writes';
export type { IdIssuer, UpdateLimits } from './transitions';
export { applyUpdate, callbackTimeout, nextDue, settleDue } from './transitions';
export type { RunStartOrigin, VersionPolicy } from './version-policy';
export { noVersionPinning } from './version-policy';
export type { WakeEvent } from './wake-event';
export { isWakeEvent, wakeEvent } from './wake-event';
export type { WakeNowReport, WokenOperation } from './wake-now';
export { NothingToWakeError, RunBusyError } from './wake-now';
