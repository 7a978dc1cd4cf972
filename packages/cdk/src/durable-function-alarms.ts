import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Duration } from 'aws-cdk-lib/core';
import type { Construct } from 'constructs';
import type { DurableReconcilerAlarms } from './durable-reconciler';
import { WATCHDOG_PERIOD } from './run-watchdog';

/** The alarms of a `DurableFunction` (with `alarms` on). */
export interface DurableFunctionAlarms {
  /** A run ended FAILED (`RunsFailed` ≥ 1 in 5 minutes). */
  readonly failedRuns: cloudwatch.Alarm;
  /** A run is still RUNNING past `expectedRunDuration` (`StuckRuns` ≥ 1). */
  readonly stuckRuns: cloudwatch.Alarm;
  /** Lambda throttled an invocation (`Throttles` ≥ 1 in 5 minutes). */
  readonly throttles: cloudwatch.Alarm;
  /**
   * An asynchronous invocation of any version or alias failed every attempt (it reached the
   * failure destination, or was dropped).
   */
  readonly asyncFailures: cloudwatch.Alarm;
  /**
   * A wake-up was dead-lettered: a wake-up queue message after 5 failed deliveries, or an event a
   * wake-up schedule gave up on (absent with `onTimeWakeUps: false`). The dead-letter queue is the
   * one the table's functions in the stack share, so this is the reconciler's alarm
   * (`reconciler.alarms.deadLetteredWakeUps`), one for all of them; the message names the run and
   * its function. Its run stays due: the reconciler wakes it.
   */
  readonly wakeUpsDeadLettered?: cloudwatch.Alarm;
}

/**
 * What the alarms watch of a `DurableFunction` (the construct is one; named by its parts here so
 * this module does not import the construct that imports it). The alarms are its children.
 */
export interface AlarmedFunction extends Construct {
  readonly function: lambda.IFunction;
  /** Its default failure destination, absent when `onFailure` is given. */
  readonly failureQueue?: sqs.IQueue;
  /** Its wake-up queue, absent with `onTimeWakeUps: false`. */
  readonly wakeQueue?: object;
  metricFailedRuns(): cloudwatch.IMetric;
  metricStuckRuns(): cloudwatch.IMetric;
}

/**
 * The alarms of a `DurableFunction`: failed runs, stuck runs, throttles, asynchronous
 * invocations that failed every attempt (its failure queue, or Lambda's delivery metrics); and,
 * with its wake-up queue, the reconciler's alarm on the dead-letter queue the table's functions
 * share (one alarm for all of them: the message names its run and function).
 */
export function createFunctionAlarms(
  durable: AlarmedFunction,
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
