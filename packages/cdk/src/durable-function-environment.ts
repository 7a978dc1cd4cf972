/**
 * The environment of a `DurableFunction`'s Lambda function: the variables the production backend
 * (`PRODUCTION_ENV` and `PINNING_ENV` of `@durable-lambda/aws`) and the run metrics read, over the
 * handler's own.
 */
import type { Duration, Stack } from 'aws-cdk-lib/core';
import { Lazy } from 'aws-cdk-lib/core';
import type { DurableFunctionOwnProps, DurableVersionPinning } from './durable-function-props';
import type { IDurableTable } from './durable-table';
import { EXECUTION_TIMEOUT_ENV } from './execution-timeout-prop';
import { payloadEnvironment } from './payload-storage';
import { METRICS_ENV } from './runtime/metrics';
import { DURABLE_ENV, PINNING_ENV } from './scheduler-access';

/** An invoked function whose child runs start on its alias (when it has runs start there). */
export interface AliasTarget {
  readonly functionName: string;
  readonly aliasName: string;
  readonly startsOnAlias: boolean;
}

/** What the environment is made of: the function's parts and its checked props. */
export interface DurableFunctionEnvironmentInputs {
  readonly stack: Stack;
  /** The handler's own variables (`environment`), which ours override. */
  readonly environment: DurableFunctionOwnProps['environment'];
  readonly table: IDurableTable;
  readonly scheduleGroupName: string;
  readonly schedulerRoleArn: string;
  /** The reconciler's dead-letter queue, where undeliverable wake-up schedules go. */
  readonly scheduleDeadLetterArn: string;
  readonly retentionDays: number;
  readonly pinning: DurableVersionPinning;
  /**
   * The functions it invokes whose aliases it names, read at synth (`invokes` may add some after
   * the construct is built).
   */
  readonly aliasTargets: () => Iterable<AliasTarget>;
  readonly inProcessWaitThreshold: Duration | undefined;
  readonly executionTimeoutSeconds: number | undefined;
  /** The wake-up queue's URL (absent with `onTimeWakeUps: false`). */
  readonly wakeQueueUrl: string | undefined;
  readonly leaseWakeUp: DurableFunctionOwnProps['leaseWakeUp'];
  readonly metrics: boolean;
}

/** The function's environment variables. */
export function durableFunctionEnvironment(inputs: DurableFunctionEnvironmentInputs): Record<string, string> {
  const { stack, table, leaseWakeUp } = inputs;
  return {
    ...inputs.environment,
    [DURABLE_ENV.tableName]: table.tableName,
    [DURABLE_ENV.scheduleGroup]: inputs.scheduleGroupName,
    [DURABLE_ENV.schedulerRoleArn]: inputs.schedulerRoleArn,
    [DURABLE_ENV.scheduleDeadLetterArn]: inputs.scheduleDeadLetterArn,
    [DURABLE_ENV.retentionDays]: String(inputs.retentionDays),
    [PINNING_ENV.pinning]: inputs.pinning,
    // Child runs of the functions it invokes start on their aliases, and are pinned there.
    [PINNING_ENV.aliases]: Lazy.string({
      produce: () =>
        stack.toJsonString(
          Object.fromEntries(
            [...inputs.aliasTargets()].flatMap((t) => (t.startsOnAlias ? [[t.functionName, t.aliasName]] : [])),
          ),
        ),
    }),
    ...(inputs.inProcessWaitThreshold === undefined
      ? {}
      : { [DURABLE_ENV.inProcessWaitMs]: String(inputs.inProcessWaitThreshold.toMilliseconds()) }),
    ...(inputs.executionTimeoutSeconds === undefined
      ? {}
      : { [EXECUTION_TIMEOUT_ENV]: String(inputs.executionTimeoutSeconds) }),
    ...(inputs.wakeQueueUrl === undefined ? {} : { [DURABLE_ENV.wakeQueueUrl]: inputs.wakeQueueUrl }),
    ...(leaseWakeUp === undefined ? {} : { [DURABLE_ENV.leaseWakeUp]: leaseWakeUp }),
    ...(table.legacyRunIndexes ? { [DURABLE_ENV.legacyIndexes]: '1' } : {}),
    ...payloadEnvironment(table.payloads),
    ...(inputs.metrics ? { [METRICS_ENV]: 'on' } : {}),
  };
}
