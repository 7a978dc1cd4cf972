import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { Duration } from 'aws-cdk-lib/core';
import type { DurableFunction } from './durable-function';
import type { DurableFunctionAlarms } from './durable-function-props';
import type { DurableReconcilerAlarms } from './durable-reconciler';
import { WATCHDOG_PERIOD } from './run-watchdog';

/**
 * The alarms of a {@link DurableFunction}: failed runs, stuck runs, throttles, asynchronous
 * invocations that failed every attempt (its failure queue, or Lambda's delivery metrics); and,
 * with its wake-up queue, the reconciler's alarm on the dead-letter queue the table's functions
 * share (one alarm for all of them: the message names its run and function).
 */
export function createFunctionAlarms(
  durable: DurableFunction,
  expected: Duration,
  actions: cloudwatch.IAlarmAction[],
  reconciler: DurableReconcilerAlarms,
): DurableFunctionAlarms {
  const alarm = (id: string, metric: cloudwatch.IMetric, description: string) => {
    const created = new cloudwatch.Alarm(durable, id, {
      metric,
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
    if (actions.length > 0) created.addAlarmAction(...actions);
    return created;
  };
  const period = WATCHDOG_PERIOD;
  // By `FunctionName` Lambda's metrics sum every version and alias, so an event dropped by a
  // qualifier defined outside the stack (no destination of ours) alarms as well.
  const dropped = durable.function.metric('AsyncEventsDropped', { period, statistic: 'Sum' });
  const undelivered = durable.function.metric('DestinationDeliveryFailures', { period, statistic: 'Sum' });
  const asyncFailures: cloudwatch.IMetric = durable.failureQueue
    ? new cloudwatch.MathExpression({
        expression: 'FILL(queued, 0) + FILL(dropped, 0)',
        usingMetrics: {
          queued: durable.failureQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
          dropped,
        },
        period,
      })
    : new cloudwatch.MathExpression({
        expression: 'FILL(dropped, 0) + FILL(undelivered, 0)',
        usingMetrics: { dropped, undelivered },
        period,
      });
  return {
    failedRuns: alarm('FailedRunsAlarm', durable.metricFailedRuns(), 'A durable run of this function ended FAILED'),
    stuckRuns: alarm(
      'StuckRunsAlarm',
      durable.metricStuckRuns(),
      `A durable run of this function is still RUNNING ${expected.toHumanString()} after it started`,
    ),
    throttles: alarm(
      'ThrottlesAlarm',
      durable.function.metricThrottles({ period, statistic: 'Sum' }),
      'Lambda throttled invocations of this durable function',
    ),
    asyncFailures: alarm(
      'AsyncFailuresAlarm',
      asyncFailures,
      'An asynchronous invocation of this durable function failed every attempt',
    ),
    ...(durable.wakeQueue ? { wakeUpsDeadLettered: reconciler.deadLetteredWakeUps } : {}),
  };
}
