/** The cloud test runner: AWS's `CloudDurableTestRunner` over durable-lambda's control API. */

export type { CloudDurableTestRunnerConfig, CloudDurableTestRunnerParameters } from './cloud-durable-test-runner';
export { CloudDurableTestRunner } from './cloud-durable-test-runner';
export { CloudDurableOperation } from './cloud-operation';
export { CloudTestResult } from './cloud-test-result';
export type {
  CloudCallbackDetails,
  CloudChainedInvokeDetails,
  CloudContextDetails,
  CloudExecutionStatus,
  CloudInvocation,
  CloudInvokeRequest,
  CloudPrintConfig,
  CloudStepDetails,
  CloudTestResultError,
  CloudWaitDetails,
  CloudWaitingStatus,
} from './cloud-types';
