import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Duration, RemovalPolicy, Stack, Token } from 'aws-cdk-lib/core';
import { Construct } from 'constructs';
import { createFunctionAlarms, type DurableFunctionAlarms } from './durable-function-alarms';
import { durableLambda, serviceBuildOptions } from './durable-function-build';
import {
  checkedAlarmsAndMetrics,
  checkedAliasName,
  checkedLeaseWakeUp,
  checkedPinning,
  checkedRetentionDays,
} from './durable-function-checks';
import { durableFunctionEnvironment } from './durable-function-environment';
import { configureFailedInvocations } from './durable-function-failures';
import { grantWakeUpSchedules, invokeResources } from './durable-function-grants';
import type { DurableFunctionOwnProps, DurableVersionPinning } from './durable-function-props';
import { addSchedules } from './durable-function-schedules';
import { addTriggers, type BuiltTrigger } from './durable-function-triggers';
import { DurableReconciler } from './durable-reconciler';
import {
  DurableTable,
  type DurableTableProps,
  FUNCTION_TABLE_ACTIONS,
  grantTable,
  type IDurableTable,
} from './durable-table';
import { EXECUTION_TIMEOUTS_ENV, executionTimeoutSeconds, executionTimeoutsValue } from './execution-timeout-prop';
import { acknowledgeWildcardResource, REASONS } from './nag';
import { warnOfAnotherOwnTable } from './own-table-warning';
import { RunWatchdog, WATCHDOG_PERIOD } from './run-watchdog';
import { METRIC, METRICS_NAMESPACE } from './runtime/metrics';
import { schedulerRole } from './scheduler-access';
import { DEFAULTS } from './service-function';
import { WakeQueue } from './wake-queue';

export type { DurableFunctionAlarms } from './durable-function-alarms';
export type { DurableSdk, DurableVersionPinning } from './durable-function-props';
export { DURABLE_SDKS, DURABLE_VERSION_PINNINGS } from './durable-function-props';

export { DURABLE_ENV } from './scheduler-access';

/** Properties of a {@link DurableFunction}. */
export interface DurableFunctionProps extends DurableFunctionOwnProps {
  /**
   * Durable functions this one invokes (`context.invoke`): it may start their runs, and they may
   * resume it when they end. Same as calling {@link DurableFunction.invokes} for each.
   */
  readonly invokes?: DurableFunction[];
  /**
   * Your own tables its transactional steps write (`step(name, fn, { transact: true })`, through
   * `context.tx`): the function may read and write their items (`grantReadWriteData`: the writes
   * and `ConditionCheckItem`), since they commit in one `TransactWriteItems` with its own table.
   * Same as `table.grantReadWriteData(durableFunction.function)` for each. Default: none.
   */
  readonly transactTables?: readonly dynamodb.ITable[];
  /**
   * Where its steps' events go (`context.emit`, the outbox): the function may put events on these
   * buses (`events:PutEvents`) and send to these queues (`sqs:SendMessage`). The reconciler
   * publishes what an invocation could not, so it gets the same grants. Default: none.
   */
  readonly outboxTargets?: {
    readonly eventBuses?: readonly events.IEventBus[];
    readonly queues?: readonly sqs.IQueue[];
  };
}

/**
 * A durable function: a `NodejsFunction` (bundled locally by esbuild, nodejs22.x) running a
 * handler wrapped with `withDurableExecution`, and everything its production backend needs:
 *
 * - the DynamoDB table of runs (its own, or a shared {@link DurableTable});
 * - an EventBridge Scheduler schedule group for its wake-ups, and the role Scheduler assumes to
 *   invoke it (trusted only by Scheduler, for this account and this group);
 * - the environment variables `DURABLE_TABLE_NAME`, `DURABLE_SCHEDULE_GROUP`,
 *   `DURABLE_SCHEDULER_ROLE_ARN`, `DURABLE_RETENTION_DAYS` (and `DURABLE_EXECUTION_TIMEOUT_SECONDS`
 *   with {@link DurableFunctionProps.executionTimeout});
 * - a version published per deploy (`currentVersion`, retained when replaced) and the `live`
 *   alias ({@link DurableFunctionProps.aliasName}) pointing at it: runs start on the alias and
 *   stay pinned to the version they started on ({@link DurableFunctionProps.pinning});
 * - a failure destination for asynchronous invocations, of `$LATEST` and of every version and
 *   alias defined in the stack, old versions' included (see `coverQualifiedInvocations`);
 * - shared by the functions of its table in the stack: the {@link DurableReconciler} (every 2
 *   minutes by default, wakes runs whose wake-up was lost) and its dead-letter queue, where the
 *   wake-up schedules (`DURABLE_SCHEDULE_DLQ_ARN`) and the wake-up queues put what they could not
 *   deliver. Per function, for least privilege: the schedule group and scheduler role (a shared
 *   group would let one function delete or pre-empt another's wake-up schedules, whose names do
 *   not say the function; a shared scheduler role would let it invoke the others), and the wake-up
 *   queue (its event source feeds one function's alias);
 * - opt-in, because CloudWatch bills them by the month (`fixedMonthlyCost`, the CDK README):
 *   custom metrics (`metrics`: run outcomes and durations, and `StuckRuns` from the table's
 *   {@link RunWatchdog}) and alarms (`alarms`: failed runs, stuck runs, throttles, asynchronous
 *   invocation failures, and the reconciler's: its errors, runs it keeps failing to wake, and
 *   dead-lettered wake-ups, one alarm for every function of the table).
 *
 * At its defaults nothing of it costs more than about $0.45 a month before the first run (the
 * reconciler's passes and the wake-up queue's polling; no KMS key, no alarm, no custom metric).
 *
 * Every grant is as narrow as AWS allows: its table's items, schedules of its group only,
 * `iam:PassRole` of its scheduler role to Scheduler only, `lambda:InvokeFunction` of itself and
 * of the durable functions it invokes or is invoked by.
 */
export class DurableFunction extends Construct {
  readonly function: nodejs.NodejsFunction;
  /** The function's execution role. */
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;
  readonly table: IDurableTable;
  readonly scheduleGroup: scheduler.CfnScheduleGroup;
  readonly scheduleGroupName: string;
  /** The role EventBridge Scheduler assumes to invoke the function for a wake-up. */
  readonly schedulerRole: iam.Role;
  /** The reconciler of the function's table in its stack (shared with the table's other functions). */
  readonly reconciler: DurableReconciler;
  /** The on-time wake-up queue feeding the function (absent with `onTimeWakeUps: false`). */
  readonly wakeQueue?: WakeQueue;
  /** The default failure destination (absent when `onFailure` is given). */
  readonly failureQueue?: sqs.Queue;
  /** Its alarms (with `alarms` on). */
  readonly alarms?: DurableFunctionAlarms;
  /** Whether it publishes custom metrics ({@link DurableFunctionProps.metrics}). */
  readonly metrics: boolean;
  /** The function's `lambda:InvokeFunction` grants (itself, and the durable functions it calls or answers). */
  readonly invokePolicy: iam.Policy;
  /**
   * The version this deploy published (`function.currentVersion`). Replaced versions are retained:
   * runs pinned to them finish there (see the README on cleaning them up).
   */
  readonly version: lambda.Version;
  /** The alias runs start on, pointing at {@link version}: invoke it (not `$LATEST`) to start runs. */
  readonly alias: lambda.Alias;
  /** The alias's name (`live` unless `aliasName` says otherwise). */
  readonly aliasName: string;
  /** Its triggers, as built ({@link DurableFunctionProps.triggers}). */
  readonly triggers: readonly BuiltTrigger[];
  /** Its recurring schedules ({@link DurableFunctionProps.schedules}). */
  readonly schedules: readonly scheduler.CfnSchedule[];
  /** Which code its runs replay on ({@link DurableFunctionProps.pinning}). */
  readonly pinning: DurableVersionPinning;
  /** The execution timeout of its runs, seconds ({@link DurableFunctionProps.executionTimeout}); undefined: none. */
  readonly executionTimeoutSeconds?: number;
  /** The `functionName` given, when a literal: others can name it without referring to it. */
  private readonly literalName: string | undefined;
  /** Invoked functions whose execution timeout this one's `DURABLE_EXECUTION_TIMEOUTS` holds. */
  private readonly timeoutTargets = new Set<DurableFunction>();
  private readonly invokeStatement: iam.PolicyStatement;
  private readonly invokeTargets = new Set<DurableFunction>();
  /** Invoked functions whose alias this one's `DURABLE_FUNCTION_ALIASES` names. */
  private readonly aliasTargets = new Set<DurableFunction>();

  constructor(scope: Construct, id: string, props: DurableFunctionProps) {
    super(scope, id);
    // Checked before anything is built: a bad value fails the synth naming the prop.
    this.executionTimeoutSeconds = executionTimeoutSeconds(this.node.path, props.executionTimeout);
    this.literalName =
      props.functionName !== undefined && !Token.isUnresolved(props.functionName) ? props.functionName : undefined;
    const stack = Stack.of(this);
    const path = this.node.path;
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const { alarms, metrics } = checkedAlarmsAndMetrics(path, props);
    this.metrics = metrics;
    this.table = props.table ?? new DurableTable(this, 'Table', { removalPolicy, ...ownTablePayloads(props) });
    if (props.table !== undefined && (props.encryptionKey !== undefined || props.largePayloads !== undefined)) {
      throw new Error(
        `${path}: encryptionKey and largePayloads apply to the function's own table; with a shared table, set encryptionKey, encryptPayloads and largePayloads on the DurableTable`,
      );
    }
    if (props.table === undefined) warnOfAnotherOwnTable(this);

    this.scheduleGroup = new scheduler.CfnScheduleGroup(this, 'ScheduleGroup', {});
    this.scheduleGroupName = this.scheduleGroup.ref;
    this.schedulerRole = schedulerRole(this, this.scheduleGroup);

    const serviceOptions = serviceBuildOptions(props, removalPolicy);
    this.reconciler = DurableReconciler.of(this, this.table, {
      ...serviceOptions,
      ...(props.reconcilerPeriod === undefined ? {} : { period: props.reconcilerPeriod }),
    });

    this.aliasName = checkedAliasName(path, props.aliasName);
    this.pinning = checkedPinning(path, props.pinning);

    const timeout = props.timeout ?? DEFAULTS.timeout;
    const leaseWakeUp = checkedLeaseWakeUp(path, props.leaseWakeUp);
    // Its dead letters go to the reconciler's queue, shared by the table's functions in the stack
    // (the run of a dead-lettered wake-up stays due either way: the reconciler wakes it).
    if (props.onTimeWakeUps ?? true) {
      this.wakeQueue = new WakeQueue(this, 'WakeUps', {
        timeout,
        removalPolicy,
        deadLetterQueue: this.reconciler.deadLetterQueue,
      });
    }

    const environment = durableFunctionEnvironment({
      stack,
      environment: props.environment,
      table: this.table,
      scheduleGroupName: this.scheduleGroupName,
      schedulerRoleArn: this.schedulerRole.roleArn,
      scheduleDeadLetterArn: this.reconciler.deadLetterQueue.queueArn,
      retentionDays: checkedRetentionDays(path, props.retention),
      pinning: this.pinning,
      aliasTargets: () => this.aliasTargets,
      inProcessWaitThreshold: props.inProcessWaitThreshold,
      executionTimeoutSeconds: this.executionTimeoutSeconds,
      wakeQueueUrl: this.wakeQueue?.queue.queueUrl,
      leaseWakeUp,
      metrics: this.metrics,
    });

    const { fn, role, logGroup } = durableLambda(this, props, { environment, timeout, removalPolicy });
    this.function = fn;
    this.role = role;
    this.logGroup = logGroup;
    // The durable runtime re-invokes the function by design (wake-ups, resumes): never let Lambda's
    // recursive loop detection stop a long run.
    (fn.node.defaultChild as lambda.CfnFunction).recursiveLoop = 'Allow';
    this.version = fn.currentVersion;
    this.alias = new lambda.Alias(this, 'Alias', {
      aliasName: this.aliasName,
      version: this.version,
      description: 'durable-lambda: runs start here, and stay on the version they started on',
    });

    // On-time wake-ups reach the code its runs start on: the alias (or `$LATEST` with `latest`); a
    // wake-up of a run pinned to another version is handed to that version unopened.
    this.wakeQueue?.feed(this.startsOnAlias ? this.alias : fn, role);
    // Events that start runs reach the same code a request's start does.
    this.triggers = addTriggers(this, props.triggers ?? [], {
      target: this.startsOnAlias ? this.alias : fn,
      timeout,
      removalPolicy,
      alarmActions: props.alarmActions ?? [],
    });
    this.schedules = addSchedules(this, path, props.schedules ?? [], {
      target: this.startsOnAlias ? this.alias : fn,
      group: this.scheduleGroup,
      role: this.schedulerRole,
      deadLetterArn: this.reconciler.deadLetterQueue.queueArn,
    });

    // The run's items, in its table only.
    grantTable(this.table, role, FUNCTION_TABLE_ACTIONS);
    // Its wake-up schedules, in its group only, and the scheduler role invoking it for them.
    grantWakeUpSchedules(stack, fn, role, this.scheduleGroupName, this.schedulerRole);
    // Invokes of itself (immediate wake-ups) and of the functions it calls or answers. A policy of
    // its own, so the function does not depend on a policy naming it (no dependency cycle).
    this.invokeStatement = new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [] });
    this.invokePolicy = new iam.Policy(this, 'InvokePolicy', { statements: [this.invokeStatement], roles: [role] });
    this.allowInvoke(this);

    // Asynchronous invocations that failed every attempt.
    this.failureQueue = configureFailedInvocations(this, fn, props, removalPolicy);

    const expected = props.expectedRunDuration ?? Duration.days(1);
    if (this.metrics) RunWatchdog.of(this, this.table, serviceOptions).watch(fn, expected);
    if (alarms) {
      this.alarms = createFunctionAlarms(this, expected, props.alarmActions ?? [], this.reconciler.enableAlarms());
    }
    this.reconciler.serve({
      function: fn,
      schedulerRole: this.schedulerRole,
      metrics: this.metrics,
      ...(this.startsOnAlias ? { aliasName: this.aliasName } : {}),
    });
    if (props.alarmActions?.length) this.reconciler.addAlarmActions(...props.alarmActions);

    for (const target of props.invokes ?? []) this.invokes(target);
    for (const table of props.transactTables ?? []) table.grantReadWriteData(fn);
    for (const grantee of [fn, this.reconciler.function]) {
      for (const bus of props.outboxTargets?.eventBuses ?? []) bus.grantPutEventsTo(grantee);
      for (const queue of props.outboxTargets?.queues ?? []) queue.grantSendMessages(grantee);
    }
  }

  /**
   * Whether runs started by others (the control API, a parent's `invoke`, the reconciler's wake of
   * a run not pinned yet) go through the alias: not when `pinning` is `latest` (they run on `$LATEST`).
   */
  get startsOnAlias(): boolean {
    return this.pinning !== 'latest';
  }

  get functionName(): string {
    return this.function.functionName;
  }

  get functionArn(): string {
    return this.function.functionArn;
  }

  /**
   * Lets this function invoke `target` (`context.invoke(target's name, ...)`): it may start runs
   * of `target`, and `target` may resume it when the child run ends. Both must share a table.
   */
  invokes(target: DurableFunction): this {
    if (target.table !== this.table) {
      throw new Error(
        `${this.node.path} invokes ${target.node.path}: durable functions that invoke each other must share one table`,
      );
    }
    this.allowInvoke(target);
    target.allowInvoke(this);
    // Naming the target's alias makes this function's configuration refer to the target's name:
    // not when the target's refers to this one's already (CloudFormation refuses the cycle): then
    // this function's child runs of the target start, and stay, on the target's `$LATEST`.
    if (target !== this && !target.aliasTargets.has(this)) this.aliasTargets.add(target);
    if (target !== this) this.knowExecutionTimeoutOf(target);
    return this;
  }

  /**
   * The child runs of `target` are created in this function's container, which sets their
   * deadline: it needs `target`'s timeout. Named by a token only where the alias map may name it
   * (no cycle); so when two functions invoke each other, one of them names the other by a literal
   * `functionName`, or the child runs it starts get no deadline (the README says so).
   */
  private knowExecutionTimeoutOf(target: DurableFunction): void {
    if (target.executionTimeoutSeconds === undefined || this.timeoutTargets.has(target)) return;
    if (target.literalName === undefined && !this.aliasTargets.has(target)) return;
    this.timeoutTargets.add(target);
    if (this.timeoutTargets.size > 1) return;
    this.function.addEnvironment(
      EXECUTION_TIMEOUTS_ENV,
      executionTimeoutsValue(Stack.of(this), () =>
        [...this.timeoutTargets].map((t) => ({
          name: t.literalName ?? t.functionName,
          executionTimeoutSeconds: t.executionTimeoutSeconds,
        })),
      ),
    );
  }

  /**
   * Lets `grantee` start runs of this function (`lambda:InvokeFunction`, any version or alias).
   * Start them through {@link alias} (`alias.functionArn`): each run is pinned to the version the
   * alias points at when it starts.
   */
  grantStartRuns(grantee: iam.IGrantable): iam.Grant {
    return iam.Grant.addToPrincipal({
      grantee,
      actions: ['lambda:InvokeFunction'],
      resourceArns: invokeResources(this.function),
    });
  }

  /** Runs of this function that ended FAILED, per 5 minutes (published with `metrics` on). */
  metricFailedRuns(options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.runMetric(METRIC.runsFailed, { statistic: 'Sum', ...options });
  }

  /** Runs of this function that ended SUCCEEDED, per 5 minutes (published with `metrics` on). */
  metricSucceededRuns(options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.runMetric(METRIC.runsSucceeded, { statistic: 'Sum', ...options });
  }

  /** RUNNING runs older than the expected run duration, as last counted by the watchdog (with `metrics` on). */
  metricStuckRuns(options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.runMetric(METRIC.stuckRuns, { statistic: 'Maximum', ...options });
  }

  /** Milliseconds from a run's start to its end (published with `metrics` on). */
  metricRunDuration(options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.runMetric(METRIC.runDuration, { statistic: 'p90', ...options });
  }

  private runMetric(metricName: string, options: cloudwatch.MetricOptions): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: METRICS_NAMESPACE,
      metricName,
      dimensionsMap: { FunctionName: this.function.functionName },
      period: WATCHDOG_PERIOD,
      ...options,
    });
  }

  private allowInvoke(target: DurableFunction): void {
    if (this.invokeTargets.has(target)) return;
    this.invokeTargets.add(target);
    this.invokeStatement.addResources(...invokeResources(target.function));
    acknowledgeWildcardResource(this.invokePolicy, `${target.functionArn}:*`, REASONS.qualifiedInvoke);
  }
}

/** The own table's payload settings a function's props ask for. */
function ownTablePayloads(props: DurableFunctionProps): DurableTableProps {
  return {
    ...(props.encryptionKey ? { encryptionKey: props.encryptionKey, encryptPayloads: true } : {}),
    ...(props.largePayloads === undefined ? {} : { largePayloads: props.largePayloads }),
  };
}
