// Trigger and schedule starts live in the engine (the dev server uses them too); re-exported here.
export {
  decideOverlap,
  isEventBridgeEvent,
  isScheduleFiring,
  OVERLAP_POLICIES,
  type OverlapDecision,
  type OverlapPolicy,
  queueNameOf,
  type ScheduleFiringEvent,
  type ScheduleFiringResponse,
  ScheduleReceiver,
  type ScheduleReceiverOptions,
  scheduleKeyPrefix,
  scheduleOfRunKey,
  scheduleRunKey,
  type TriggerBatch,
  type TriggerBatchResponse,
  type TriggerInput,
  TriggerReceiver,
  type TriggerReceiverOptions,
  type TriggerRecord,
  type TriggerRunKey,
  type TriggerSource,
  type TriggerStartResponse,
  triggerBatchOf,
} from '@durable-lambda/engine';
export { environmentCredentials } from './aws-credentials';
export type { AwsErrorCode } from './aws-error';
export { AWS_ERROR_CODES, AwsError } from './aws-error';
export {
  AWS_SDK_HANDLER,
  type BackendSource,
  isSelfHosted,
  type SelfHostedHandler,
  type SelfHostedOptions,
  selfHosted,
} from './aws-sdk-host';
export { type ConsumedCapacity, capacityUnits, measureConsumedCapacity } from './consumed-capacity';
export {
  BY_FUNCTION_INDEX,
  BY_STATUS_INDEX,
  ChunkMissingError,
  createDurableTable,
  DUE_INDEX,
  DUE_SHARDS,
  type DurableTableOptions,
  DynamoDbStore,
  type DynamoDbStoreOptions,
  dueShard,
  durableTableDefinition,
  idempotencyPk,
  LIST_INDEX,
  LIST_KEY,
  LIST_SHARDS,
  listKeyOf,
  MAX_DUE_RUNS,
  MAX_PAYLOAD_BYTES,
  operationSk,
  runPk,
  TTL_ATTRIBUTE,
} from './dynamodb';
export type { DynamoDbCall, DynamoDbInterceptor, DynamoDbTransport } from './dynamodb/commands';
export {
  DEFAULT_OBJECT_THRESHOLD_BYTES,
  objectKey,
  type PayloadObjectStore,
  runFolder,
} from './dynamodb/payload-objects';
export {
  bareFunctionName,
  EXECUTION_TIMEOUTS_ENV,
  type ExecutionTimeoutMap,
  readExecutionTimeoutMap,
  withExecutionTimeoutMap,
} from './execution-timeout-map';
export {
  currentTally,
  functionMemoryMb,
  InvocationTally,
  type InvocationTallyOptions,
  meteredOpen,
} from './invocation-meter';
export {
  KmsEnvelopeCodec,
  type KmsEnvelopeCodecOptions,
  PayloadSealError,
  RUN_CONTEXT_KEY,
  SEALED_PREFIX,
} from './kms-envelope-codec';
export { FunctionNotFoundError, LambdaInvoker, type LambdaInvokerOptions } from './lambda-invoker';
export { type FunctionArn, parseFunctionArn, targetArnFrom } from './lambda-targets';
export { LambdaVersionPolicy, type LambdaVersionPolicyOptions } from './lambda-version-policy';
export {
  AwsSdkLoadError,
  type LambdaCommand,
  LazySdkClient,
  lazyLambdaClient,
  lazySchedulerClient,
  type SchedulerCommand,
  type SdkClientLike,
  type SendsCommands,
} from './lazy-aws-sdk-clients';
export { type DataKey, type KmsDataKeys, LightKmsClient } from './light-aws/kms-client';
export { LightS3Client, type LightS3ClientOptions, MAX_S3_KEY_BYTES } from './light-aws/s3-client';
export { AwsServiceError, type LightAwsOptions } from './light-aws/signed-request';
export { LightDynamoDbClient, type LightDynamoDbClientOptions } from './light-dynamodb/client';
export { DynamoDbServiceError, type ResponseMetadata } from './light-dynamodb/service-errors';
export {
  LEASE_WAKE_UPS,
  type LeaseWakeUp,
  OnTimeWaker,
  type OnTimeWakerOptions,
  SCHEDULER_HOP_LEAD_MS,
} from './on-time-waker';
export { AwsOutboxPublisher, type AwsOutboxPublisherOptions } from './outbox-publisher';
export { PAYLOAD_ENV, payloadBucketOptions, withPayloadKey } from './payload-protection';
export {
  createProductionBackend,
  ProductionBackend,
  type ProductionParts,
  type ProductionWiring,
} from './production';
export type { ProductionConfig, ProductionEnvironment } from './production-config';
export {
  ConfigurationError,
  DEFAULT_RETENTION_DAYS,
  EXECUTION_TIMEOUT_ENV,
  executionTimeoutSetting,
  PRODUCTION_ENV,
  readProductionConfig,
} from './production-config';
export { registerProductionBackend } from './production-registration';
export {
  DEFAULT_RECONCILE_LIMIT,
  RECONCILER_ENV,
  type ReconcilerConfig,
  readReconcilerConfig,
} from './reconciler-config';
export {
  createReconcilerHandler,
  type ReconcilerHandler,
  type ReconcilerHandlerOptions,
} from './reconciler-handler';
export {
  type ReconcileInvocationOptions,
  type ReconcileInvocationResult,
  reconcileInvocation,
  SHARDS_AT_ONCE,
  WAKE_UPS_IN_FLIGHT_WHEN_BEHIND,
} from './reconciler-passes';
export {
  RECONCILER_METRIC,
  RECONCILER_METRICS_NAMESPACE,
  type ReconcilerStop,
  type ReconcilerSummary,
} from './reconciler-summary';
export {
  atExpression,
  CLIENT_TOKEN_PATTERN,
  SCHEDULE_NAME_PATTERN,
  scheduleClientToken,
  scheduledSecond,
  scheduleName,
} from './schedule-names';
export { SCHEDULE_RETRY_POLICY, SchedulerWaker, type SchedulerWakerOptions } from './scheduler-waker';
export { ServedFunctions } from './served-functions';
export {
  type AwsCredentials,
  type AwsCredentialsProvider,
  createSignedFetch,
  defaultCredentials,
  functionUrlRegion,
  NoAwsCredentialsError,
  type SignedFetchOptions,
} from './signed-fetch';
export {
  DELAY_ROUNDINGS,
  type DelayRounding,
  delaySecondsFor,
  HOP_HOLD_BUDGET_MS,
  lazySqsClient,
  type SendPhase,
  SQS_MAX_DELAY_SECONDS,
  type SqsCommand,
  SqsDelayWaker,
  type SqsDelayWakerOptions,
  type WakeHint,
} from './sqs-delay-waker';
export {
  PINNING_ENV,
  type PinningConfig,
  qualifiedRunName,
  type RunningCode,
  readPinningConfig,
  runningCode,
  runsElsewhere,
  splitRunName,
  VERSION_PINNINGS,
  type VersionPinning,
} from './version-pinning';
export {
  batchResponse,
  isSqsEvent,
  type SqsBatchResponse,
  type SqsEventLike,
  type SqsRecordLike,
  type TimedWakeEvent,
  timedWakeEvent,
} from './wake-queue-events';
export { WakeQueueReceiver, type WakeQueueReceiverOptions } from './wake-queue-receiver';
export { QUEUE_WAKE_UP_COST, SQS_REQUESTS_PER_WAKE_UP, scheduleCost, wakeUpCost } from './wake-up-cost';
