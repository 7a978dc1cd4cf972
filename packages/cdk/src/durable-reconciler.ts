import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Duration, Lazy, RemovalPolicy, Stack } from 'aws-cdk-lib/core';
import { Construct } from 'constructs';
import { withoutDynamoDbSdk } from './bundle-defaults';
import { FUNCTION_TABLE_ACTIONS, grantTable, type IDurableTable, indexArn } from './durable-table';
import { acknowledge, acknowledgeWildcardResource, REASONS } from './nag';
import { runtimeFile } from './paths';
import { payloadEnvironment } from './payload-storage';
import { METRICS_ENV } from './runtime/metrics';
import {
  DURABLE_ENV,
  PINNING_ENV,
  RECONCILER_FUNCTIONS_ENV,
  SCHEDULER_SERVICE,
  schedulerRole,
} from './scheduler-access';
import { DEFAULTS, serviceFunction } from './service-function';

/**
 * How often the reconciler runs by default. Each pass queries every shard of the due index (0.5 RRU
 * each when empty), so the period sets most of what an idle table costs a month (`fixedMonthlyCost`,
 * the CDK README); a lost wake-up or a lapsed lease is found within about this period plus the
 * engine's 2-minute grace.
 */
export const RECONCILE_PERIOD = Duration.minutes(2);

/** The longest reconciler period accepted ({@link DurableReconcilerOptions.period}). */
export const MAX_RECONCILE_PERIOD = Duration.hours(1);

/** The longest a reconciler invocation runs (Lambda's limit): a longer period still starts one per period. */
const MAX_PASS_TIMEOUT = Duration.minutes(15);

/** Options of the reconciler (the first `DurableFunction` of a table in a stack decides them). */
export interface DurableReconcilerOptions {
  readonly bundling?: nodejs.BundlingOptions;
  readonly projectRoot?: string;
  readonly depsLockFilePath?: string;
  readonly logRetention?: logs.RetentionDays;
  /** Of its log group and of the wake-ups' dead-letter queue. Default `RemovalPolicy.RETAIN`. */
  readonly removalPolicy?: RemovalPolicy;
  readonly architecture?: lambda.Architecture;
  /**
   * How often it runs: whole minutes, 1 minute to 1 hour. Default {@link RECONCILE_PERIOD} (2
   * minutes). Shorter finds lost wake-ups sooner and costs more (each pass reads every due-index
   * shard); see the CDK README's price table.
   */
  readonly period?: Duration;
}

/** A durable function as the reconciler serves it. */
export interface ReconciledFunction {
  /** The function (its unqualified ARN; every version and alias is covered). */
  readonly function: lambda.IFunction;
  /** The role its wake-up schedules are delivered with: it may send to the dead-letter queue. */
  readonly schedulerRole: iam.IRole;
  /** The alias its runs start on, if any: runs not pinned to a version yet are woken there. */
  readonly aliasName?: string;
  /** Whether it publishes custom metrics: the reconciler does when any function it serves does. */
  readonly metrics?: boolean;
}

/** The alarms of a {@link DurableReconciler}. */
export interface DurableReconcilerAlarms {
  /** The reconciler itself failed (`Errors` ≥ 1 in 5 minutes): due runs may not be woken. */
  readonly errors: cloudwatch.Alarm;
  /** Runs the reconciler could not wake or notify, 10 minutes in a row (`Failed` ≥ 1 in 2 of 2 periods). */
  readonly failedRuns: cloudwatch.Alarm;
  /** A wake-up schedule gave up delivering its event (a message in the dead-letter queue). */
  readonly deadLetteredWakeUps: cloudwatch.Alarm;
}

/**
 * The reconciler of one table's runs in one stack, created by the first `DurableFunction` that
 * uses the table there and shared by the others: a Lambda function run every
 * {@link DurableReconcilerOptions.period} (default 2 minutes, `rate(2 minutes)`) that reads the
 * table's `due` index and wakes every run that is due and not held by a live lease, and tells the
 * parent of every ended child run that was not told. It is what makes a lost wake-up (a throttled
 * Scheduler or Lambda call, a dropped event, a killed process) a delay instead of a stranded run,
 * so it is always there, whatever else is opted out of.
 *
 * It also owns the one dead-letter queue of these functions' wake-ups (SQS, SSE, TLS only, 14 days;
 * alarmed when not empty once {@link enableAlarms} is called): an event a wake-up schedule gave up
 * on, and a message of a function's wake-up queue delivered 5 times without success, land there;
 * the run it was for stays due, so the reconciler wakes it anyway.
 *
 * Its role may use the table's items and query its `due` index, invoke only the functions it
 * serves (any version or alias), and create schedules in its own schedule group only, passing
 * only its own scheduler role.
 */
export class DurableReconciler extends Construct {
  /** The reconciler of `table` in the stack of `scope`, created on first use. */
  static of(scope: Construct, table: IDurableTable, options: DurableReconcilerOptions = {}): DurableReconciler {
    const stack = Stack.of(scope);
    const id = `DurableReconciler${table.node.addr}`;
    const existing = stack.node.tryFindChild(id) as DurableReconciler | undefined;
    if (!existing) return new DurableReconciler(stack, id, table, options);
    // One reconciler per table and stack: a second period asked for cannot be honoured silently.
    if (options.period !== undefined && options.period.toSeconds() !== existing.period.toSeconds()) {
      throw new Error(
        `${scope.node.path}: reconcilerPeriod ${options.period.toHumanString()} differs from the ${existing.period.toHumanString()} of the reconciler its table already has in this stack (the first DurableFunction of a table decides it)`,
      );
    }
    return existing;
  }

  readonly function: nodejs.NodejsFunction;
  /** The reconciler's execution role. */
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;
  readonly rule: events.Rule;
  readonly table: IDurableTable;
  /** The schedule group of the (rare) wake-ups the reconciler schedules rather than sends. */
  readonly scheduleGroup: scheduler.CfnScheduleGroup;
  readonly schedulerRole: iam.Role;
  /**
   * Where wake-up schedules of the served functions send an event they could not deliver, and
   * where their wake-up queues move a message delivered 5 times without success.
   */
  readonly deadLetterQueue: sqs.Queue;
  /** How often it runs. */
  readonly period: Duration;
  /** Its alarms, once a served function asked for alarms ({@link enableAlarms}). */
  alarms?: DurableReconcilerAlarms;
  private readonly served: ReconciledFunction[] = [];
  private readonly invokeStatement: iam.PolicyStatement;
  private readonly schedulerInvokeStatement: iam.PolicyStatement;
  private readonly alarmActions = new Set<cloudwatch.IAlarmAction>();

  private constructor(scope: Construct, id: string, table: IDurableTable, options: DurableReconcilerOptions) {
    super(scope, id);
    const stack = Stack.of(this);
    const removalPolicy = options.removalPolicy ?? RemovalPolicy.RETAIN;
    this.table = table;
    this.period = reconcilePeriod(this.node.path, options.period);
    const timeout = Duration.seconds(Math.min(this.period.toSeconds(), MAX_PASS_TIMEOUT.toSeconds()));

    this.deadLetterQueue = new sqs.Queue(this, 'WakeUpDeadLetters', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      removalPolicy,
    });
    acknowledge(this.deadLetterQueue, 'AwsSolutions-SQS3', REASONS.deadLetterQueue);

    this.scheduleGroup = new scheduler.CfnScheduleGroup(this, 'ScheduleGroup', {});
    this.schedulerRole = schedulerRole(this, this.scheduleGroup);
    this.schedulerInvokeStatement = new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [] });
    this.schedulerRole.addToPolicy(this.schedulerInvokeStatement);
    this.allowDeadLetters(this.schedulerRole);

    const { fn, role, logGroup } = serviceFunction(this, {
      entry: runtimeFile('reconciler-entry.ts'),
      description: 'durable-lambda: wakes due runs whose wake-up was lost, tells parents of ended child runs',
      environment: {
        [DURABLE_ENV.tableName]: table.tableName,
        ...(table.legacyRunIndexes ? { [DURABLE_ENV.legacyIndexes]: '1' } : {}),
        ...payloadEnvironment(table.payloads),
        [DURABLE_ENV.scheduleGroup]: this.scheduleGroup.ref,
        [DURABLE_ENV.schedulerRoleArn]: this.schedulerRole.roleArn,
        [DURABLE_ENV.scheduleDeadLetterArn]: this.deadLetterQueue.queueArn,
        [RECONCILER_FUNCTIONS_ENV]: Lazy.string({
          produce: () => stack.toJsonString(this.served.map((served) => served.function.functionName)),
        }),
        // Custom metrics in its summary line when a function it serves publishes them.
        [METRICS_ENV]: Lazy.string({
          produce: () => (this.alarms !== undefined || this.served.some((served) => served.metrics) ? 'on' : 'off'),
        }),
        // A run not pinned yet is woken through its function's alias, never on `$LATEST`.
        [PINNING_ENV.aliases]: Lazy.string({
          produce: () =>
            stack.toJsonString(
              Object.fromEntries(
                this.served.flatMap((served) =>
                  served.aliasName === undefined ? [] : [[served.function.functionName, served.aliasName]],
                ),
              ),
            ),
        }),
      },
      // An invocation works through a backlog pass after pass until the next one is due; it stops
      // well before (it keeps twice its slowest pass in hand).
      timeout,
      // An idle pass is I/O and signing: its GB-seconds hardly change with memory (the CPU share
      // grows with it), while a backlog clears faster with more.
      memorySize: RECONCILER_MEMORY_MB,
      architecture: options.architecture ?? DEFAULTS.architecture,
      logRetention: options.logRetention ?? DEFAULTS.logRetention,
      logRemovalPolicy: removalPolicy,
      // Its backend talks to DynamoDB through the light client: the AWS SDK's is left out; the
      // clients it loads at their first call are modules beside the bundle (write-aws-sdk-clients.mjs).
      bundling: {
        ...withoutDynamoDbSdk(options.bundling ?? {}, undefined),
        commandHooks: {
          beforeBundling: (inputDir: string, outputDir: string) =>
            options.bundling?.commandHooks?.beforeBundling(inputDir, outputDir) ?? [],
          beforeInstall: (inputDir: string, outputDir: string) =>
            options.bundling?.commandHooks?.beforeInstall(inputDir, outputDir) ?? [],
          afterBundling: (inputDir: string, outputDir: string) => [
            ...(options.bundling?.commandHooks?.afterBundling(inputDir, outputDir) ?? []),
            `node "${runtimeFile('write-aws-sdk-clients.mjs')}" "${outputDir}"`,
          ],
        },
      },
      ...(options.projectRoot === undefined ? {} : { projectRoot: options.projectRoot }),
      ...(options.depsLockFilePath === undefined ? {} : { depsLockFilePath: options.depsLockFilePath }),
    });
    this.function = fn;
    this.role = role;
    this.logGroup = logGroup;
    // A failed pass is not retried: the next period's pass is the retry.
    fn.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.seconds(Math.max(60, this.period.toSeconds())) });

    // The store reads runs and the due index, and writes what a durable function writes (repairs,
    // a parent's chained-invoke result).
    grantTable(table, role, FUNCTION_TABLE_ACTIONS);
    grantTable(table, role, ['dynamodb:Query'], [indexArn(table, 'due')]);
    const schedules = stack.formatArn({
      service: 'scheduler',
      resource: 'schedule',
      resourceName: `${this.scheduleGroup.ref}/*`,
    });
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
        resources: [schedules],
      }),
    );
    acknowledgeWildcardResource(role, schedules, REASONS.schedules);
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [this.schedulerRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': SCHEDULER_SERVICE } },
      }),
    );
    this.invokeStatement = new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [] });
    role.addToPolicy(this.invokeStatement);

    this.rule = new events.Rule(this, 'Schedule', {
      description: 'durable-lambda: run the reconciler',
      schedule: events.Schedule.rate(this.period),
      targets: [new targets.LambdaFunction(fn, { retryAttempts: 0 })],
    });
  }

  /**
   * Creates its alarms (errors, runs it keeps failing to wake, dead-lettered wake-ups: 3 alarm
   * metrics, $0.30 a month) and turns its custom metrics on, once; called by every served
   * function with `alarms`. Returns them.
   */
  enableAlarms(): DurableReconcilerAlarms {
    this.alarms ??= this.createAlarms();
    return this.alarms;
  }

  /**
   * Serves `target`: the reconciler may wake its runs (any version or alias), and its wake-up
   * schedules may send to the dead-letter queue. Idempotent.
   */
  serve(target: ReconciledFunction): this {
    if (this.served.some((s) => s.function === target.function)) return this;
    this.served.push(target);
    const resources = [target.function.functionArn, `${target.function.functionArn}:*`];
    this.invokeStatement.addResources(...resources);
    this.schedulerInvokeStatement.addResources(...resources);
    acknowledgeWildcardResource(this.role, resources[1] as string, REASONS.qualifiedInvoke);
    acknowledgeWildcardResource(this.schedulerRole, resources[1] as string, REASONS.qualifiedInvoke);
    this.allowDeadLetters(target.schedulerRole);
    return this;
  }

  /** Adds actions to every alarm of the reconciler (each action once); creates the alarms first. */
  addAlarmActions(...actions: cloudwatch.IAlarmAction[]): this {
    const alarms = this.enableAlarms();
    const fresh = actions.filter((action) => !this.alarmActions.has(action));
    for (const action of fresh) this.alarmActions.add(action);
    if (fresh.length > 0) {
      for (const alarm of Object.values(alarms)) alarm.addAlarmAction(...fresh);
    }
    return this;
  }

  /** Runs the reconciler could not wake or notify, summed per 5 minutes (with custom metrics on). */
  metricFailed(options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.metric('Failed', options);
  }

  /** Runs the reconciler woke again (their own wake-up was lost or late), summed per 5 minutes. */
  metricRunsWoken(options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.metric('RunsWoken', options);
  }

  /** Ended child runs whose parent the reconciler told, summed per 5 minutes. */
  metricParentsNotified(options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.metric('ParentsNotified', options);
  }

  private metric(metricName: string, options: cloudwatch.MetricOptions): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: 'DurableLambda',
      metricName,
      dimensionsMap: { FunctionName: this.function.functionName },
      period: Duration.minutes(5),
      statistic: 'Sum',
      ...options,
    });
  }

  private allowDeadLetters(role: iam.IRole): void {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.deadLetterQueue.queueArn] }),
    );
  }

  private createAlarms(): DurableReconcilerAlarms {
    const period = Duration.minutes(5);
    const alarm = (id: string, metric: cloudwatch.IMetric, description: string, periods = 1) =>
      new cloudwatch.Alarm(this, id, {
        metric,
        threshold: 1,
        evaluationPeriods: periods,
        datapointsToAlarm: periods,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
    return {
      errors: alarm(
        'ErrorsAlarm',
        this.function.metricErrors({ period, statistic: 'Sum' }),
        'The durable-lambda reconciler failed: runs whose wake-up was lost are not woken',
      ),
      // One failed pass (a throttled invoke) is retried a minute later; only a run that keeps
      // failing for 10 minutes (a deleted function, a missing permission) is worth a page.
      failedRuns: alarm(
        'FailedRunsAlarm',
        this.metricFailed({ period }),
        'The durable-lambda reconciler could not wake or notify runs for 10 minutes',
        2,
      ),
      deadLetteredWakeUps: alarm(
        'DeadLetteredWakeUpsAlarm',
        this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
        'A durable-lambda wake-up was dead-lettered: a schedule gave up delivering its event, or a wake-up queue message failed 5 deliveries (the message names the run and function; the reconciler wakes the run)',
      ),
    };
  }
}

/** The reconciler's memory: see the comment where it is used, and `fixedMonthlyCost`. */
export const RECONCILER_MEMORY_MB = 512;

/** The period asked for, checked: whole minutes from 1 minute to {@link MAX_RECONCILE_PERIOD}. */
function reconcilePeriod(path: string, period: Duration | undefined): Duration {
  if (period === undefined) return RECONCILE_PERIOD;
  const seconds = period.toSeconds();
  if (!(seconds >= 60 && seconds <= MAX_RECONCILE_PERIOD.toSeconds() && seconds % 60 === 0)) {
    throw new Error(
      `${path}: reconcilerPeriod must be whole minutes from 1 minute to 1 hour, got ${period.toHumanString()}`,
    );
  }
  return period;
}
