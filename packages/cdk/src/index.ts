/**
 * `@durable-lambda/cdk`: AWS CDK constructs deploying durable-lambda functions and the control API.
 */

export {
  bundleDefaults,
  DYNAMODB_SDK_LEFT_OUT,
  ESM_MAIN_FIELDS,
  ESM_REQUIRE_BANNER,
  withoutDynamoDbSdk,
} from './bundle-defaults';
export { API_URL_OUTPUT, DurableApi, type DurableApiProps } from './durable-api';
export {
  DURABLE_ENV,
  DURABLE_SDKS,
  DurableFunction,
  type DurableFunctionAlarms,
  type DurableFunctionProps,
  type DurableSdk,
} from './durable-function';
export type {
  BuiltPipe,
  PipeFilterPattern,
  PipeSource,
  PipeTrigger,
} from './durable-function-pipes';
export {
  type DurableSchedule,
  firingInput,
  SCHEDULE_OVERLAPS,
  type ScheduleInput,
  scheduleExpression,
} from './durable-function-schedules';
export {
  type BuiltTrigger,
  type DurableTrigger,
  type DynamoDbStreamTrigger,
  type EventBridgeTrigger,
  type SqsTrigger,
  TRIGGER_MAX_RECEIVES,
} from './durable-function-triggers';
export {
  DurableReconciler,
  type DurableReconcilerAlarms,
  type DurableReconcilerOptions,
  MAX_RECONCILE_PERIOD,
  RECONCILE_PERIOD,
  RECONCILER_MEMORY_MB,
  type ReconciledFunction,
} from './durable-reconciler';
export {
  API_TABLE_ACTIONS,
  DURABLE_TABLE_LAYOUT,
  DurableTable,
  type DurableTableIndex,
  type DurableTableProps,
  FUNCTION_TABLE_ACTIONS,
  type IDurableTable,
} from './durable-table';
export {
  type CloudFormationTemplate,
  FIXED_COST_ASSUMPTIONS,
  FIXED_COST_PRICES,
  type FixedCostAssumptions,
  type FixedCostEstimate,
  type FixedCostLine,
  type FixedCostPrice,
  FREE_RESOURCE_TYPES,
  fixedMonthlyCost,
  RECONCILER_METRIC_NAMES,
  RUN_METRIC_NAMES,
} from './fixed-cost';
export { OWN_TABLE_WARNING } from './own-table-warning';
export {
  type DurablePayloads,
  PAYLOAD_ENVIRONMENT,
  PAYLOAD_OBJECT_DAYS,
} from './payload-storage';
export { coverQualifiedInvocations } from './qualified-invocations';
export { RunWatchdog, type RunWatchdogOptions, WATCHDOG_PERIOD } from './run-watchdog';
export { METRIC, METRICS_ENV, METRICS_NAMESPACE } from './runtime/metrics';
export { RUNTIME } from './service-function';
export {
  WAKE_QUEUE_MAX_RECEIVES,
  WAKE_QUEUE_VISIBILITY_MARGIN,
  WakeQueue,
  type WakeQueueProps,
} from './wake-queue';
