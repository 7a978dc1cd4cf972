export {
  BY_FUNCTION_INDEX,
  BY_STATUS_INDEX,
  ChunkMissingError,
  createDurableTable,
  DynamoDbStore,
  type DynamoDbStoreOptions,
  durableTableDefinition,
  idempotencyPk,
  MAX_PAYLOAD_BYTES,
  operationSk,
  runPk,
  TTL_ATTRIBUTE,
} from './dynamodb';
export { FunctionNotFoundError, LambdaInvoker, type LambdaInvokerOptions } from './lambda-invoker';
export { type FunctionArn, parseFunctionArn, targetArnFrom } from './lambda-targets';
export { createProductionBackend, ProductionBackend } from './production';
export type { ProductionConfig, ProductionEnvironment } from './production-config';
export { ConfigurationError, DEFAULT_RETENTION_DAYS, PRODUCTION_ENV, readProductionConfig } from './production-config';
export {
  atExpression,
  CLIENT_TOKEN_PATTERN,
  SCHEDULE_NAME_PATTERN,
  scheduleClientToken,
  scheduledSecond,
  scheduleName,
} from './schedule-names';
export { SchedulerWaker, type SchedulerWakerOptions } from './scheduler-waker';
