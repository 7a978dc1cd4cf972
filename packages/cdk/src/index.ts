/**
 * `@durable-lambda/cdk`: AWS CDK constructs deploying durable-lambda functions and the control API.
 */
export { DurableApi, type DurableApiProps } from './durable-api';
export {
  DURABLE_ENV,
  DURABLE_SDKS,
  DurableFunction,
  type DurableFunctionAlarms,
  type DurableFunctionProps,
  type DurableSdk,
} from './durable-function';
export {
  DurableReconciler,
  type DurableReconcilerAlarms,
  type DurableReconcilerOptions,
  RECONCILE_PERIOD,
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
export { coverQualifiedInvocations } from './qualified-invocations';
export { RunWatchdog, type RunWatchdogOptions, WATCHDOG_PERIOD } from './run-watchdog';
export { METRIC, METRICS_NAMESPACE } from './runtime/metrics';
export { RUNTIME } from './service-function';
export {
  WAKE_QUEUE_MAX_RECEIVES,
  WAKE_QUEUE_VISIBILITY_MARGIN,
  WakeQueue,
  type WakeQueueProps,
} from './wake-queue';
