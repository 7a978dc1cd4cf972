/**
 * The grants a `DurableFunction`'s wake-ups need, each as narrow as AWS allows: its role creates
 * and deletes the one-time schedules of its own group, and passes its scheduler role to Scheduler
 * only; the scheduler role invokes the function (any version or alias).
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Stack } from 'aws-cdk-lib/core';
import { acknowledgeWildcardResource, REASONS } from './nag';
import { SCHEDULER_SERVICE } from './scheduler-access';

/** The unqualified ARN of `fn` and the ARNs of all its versions and aliases. */
export function invokeResources(fn: lambda.IFunction): string[] {
  return [fn.functionArn, `${fn.functionArn}:*`];
}

/**
 * Lets `fn` (through `role`, its execution role) schedule its wake-ups in `scheduleGroupName`,
 * and `schedulerRole` invoke it for them.
 */
export function grantWakeUpSchedules(
  stack: Stack,
  fn: lambda.IFunction,
  role: iam.Role,
  scheduleGroupName: string,
  schedulerRole: iam.Role,
): void {
  // One-time wake-up schedules, in its group only.
  const schedules = stack.formatArn({
    service: 'scheduler',
    resource: 'schedule',
    resourceName: `${scheduleGroupName}/*`,
  });
  role.addToPolicy(
    new iam.PolicyStatement({
      actions: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
      resources: [schedules],
    }),
  );
  acknowledgeWildcardResource(role, schedules, REASONS.schedules);
  // The schedules name its scheduler role, passed to Scheduler only.
  role.addToPolicy(
    new iam.PolicyStatement({
      actions: ['iam:PassRole'],
      resources: [schedulerRole.roleArn],
      conditions: { StringEquals: { 'iam:PassedToService': SCHEDULER_SERVICE } },
    }),
  );
  // Scheduler may invoke this function (any version or alias: a run wakes on the version it runs on).
  schedulerRole.addToPolicy(
    new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: invokeResources(fn) }),
  );
  acknowledgeWildcardResource(schedulerRole, `${fn.functionArn}:*`, REASONS.qualifiedInvoke);
}
