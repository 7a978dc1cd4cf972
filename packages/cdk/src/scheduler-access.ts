import * as iam from 'aws-cdk-lib/aws-iam';
import type * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { Stack } from 'aws-cdk-lib/core';
import type { Construct } from 'constructs';

/**
 * The environment variables the production backend (`@durable-lambda/aws`, `PRODUCTION_ENV`)
 * reads; `AWS_REGION` is set by Lambda. A test keeps them equal to the runtime's.
 */
export const DURABLE_ENV = {
  tableName: 'DURABLE_TABLE_NAME',
  scheduleGroup: 'DURABLE_SCHEDULE_GROUP',
  schedulerRoleArn: 'DURABLE_SCHEDULER_ROLE_ARN',
  /** The dead-letter queue of the wake-up schedules (the table's reconciler owns it). */
  scheduleDeadLetterArn: 'DURABLE_SCHEDULE_DLQ_ARN',
  retentionDays: 'DURABLE_RETENTION_DAYS',
  /** Set when `inProcessWaitThreshold` is given: waits due this soon (ms) sleep in the invocation. */
  inProcessWaitMs: 'DURABLE_IN_PROCESS_WAIT_MS',
  /** The on-time wake-up queue's URL (unless `onTimeWakeUps: false`). */
  wakeQueueUrl: 'DURABLE_WAKE_QUEUE_URL',
  /** Set when `leaseWakeUp` is given: what stands behind an invocation's lease. */
  leaseWakeUp: 'DURABLE_LEASE_WAKEUP',
  /** `1` when the table keeps the layout-1 listing indexes (`legacyRunIndexes`). */
  legacyIndexes: 'DURABLE_LEGACY_INDEXES',
} as const;

/**
 * Version pinning's variables (`PINNING_ENV` of `@durable-lambda/aws`): the function's pinning
 * policy, and the aliases that runs of functions it invokes (or, for the reconciler, serves) start on.
 */
export const PINNING_ENV = {
  pinning: 'DURABLE_VERSION_PINNING',
  aliases: 'DURABLE_FUNCTION_ALIASES',
} as const;

/** The reconciler's list of the functions it serves (`RECONCILER_ENV.functions` of `@durable-lambda/aws`). */
export const RECONCILER_FUNCTIONS_ENV = 'DURABLE_RECONCILER_FUNCTIONS';

/** The service principal of EventBridge Scheduler. */
export const SCHEDULER_SERVICE = 'scheduler.amazonaws.com';

/**
 * The role EventBridge Scheduler assumes to deliver the schedules of `group`: trusted by Scheduler
 * only, for this account and this group only (the confused-deputy conditions).
 */
export function schedulerRole(scope: Construct, group: scheduler.CfnScheduleGroup): iam.Role {
  return new iam.Role(scope, 'SchedulerRole', {
    description: 'Assumed by EventBridge Scheduler to invoke a durable-lambda function for its wake-ups',
    assumedBy: new iam.ServicePrincipal(SCHEDULER_SERVICE, {
      conditions: {
        StringEquals: { 'aws:SourceAccount': Stack.of(scope).account },
        ArnEquals: { 'aws:SourceArn': group.attrArn },
      },
    }),
  });
}
