import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { Duration, Lazy, RemovalPolicy, Stack } from 'aws-cdk-lib/core';
import { Construct } from 'constructs';
import { grantTable, type IDurableTable, indexArn } from './durable-table';
import { runtimeFile } from './paths';
import { DEFAULTS, serviceFunction } from './service-function';

/** How often the watchdog counts stuck runs. */
export const WATCHDOG_PERIOD = Duration.minutes(5);

/** Options of the watchdog (the first `DurableFunction` of a table in a stack decides them). */
export interface RunWatchdogOptions {
  readonly bundling?: nodejs.BundlingOptions;
  readonly projectRoot?: string;
  readonly depsLockFilePath?: string;
  readonly logRetention?: logs.RetentionDays;
  readonly removalPolicy?: RemovalPolicy;
  readonly architecture?: lambda.Architecture;
}

/**
 * Counts, every 5 minutes, the runs of each watched function still RUNNING past the function's
 * expected duration, and publishes them as the `StuckRuns` metric (`DurableLambda` namespace).
 * Runs started through an alias or version are recorded under `name:qualifier`, so it counts
 * those of every alias and version the function has (listed at run time: versions outlive the
 * deployment that made them) with the unqualified ones. One per stack and table, shared by the
 * `DurableFunction`s using that table there; its only grants are `dynamodb:Query` on the
 * `byFunction` index and listing the watched functions' aliases and versions.
 */
export class RunWatchdog extends Construct {
  /** The watchdog of `table` in the stack of `scope`, created on first use. */
  static of(scope: Construct, table: IDurableTable, options: RunWatchdogOptions = {}): RunWatchdog {
    const stack = Stack.of(scope);
    const id = `DurableRunWatchdog${table.node.addr}`;
    return (stack.node.tryFindChild(id) as RunWatchdog | undefined) ?? new RunWatchdog(stack, id, table, options);
  }

  readonly function: nodejs.NodejsFunction;
  readonly role: iam.Role;
  readonly rule: events.Rule;
  private readonly watched: Array<{ name: string; thresholdMs: number }> = [];
  private readonly listStatement: iam.PolicyStatement;

  private constructor(scope: Construct, id: string, table: IDurableTable, options: RunWatchdogOptions) {
    super(scope, id);
    const stack = Stack.of(this);
    const { fn, role } = serviceFunction(this, {
      entry: runtimeFile('watchdog-entry.ts'),
      description: 'durable-lambda: counts runs stuck past their expected duration (StuckRuns metric)',
      environment: {
        DURABLE_TABLE_NAME: table.tableName,
        ...(table.legacyRunIndexes ? { DURABLE_LEGACY_INDEXES: '1' } : {}),
        DURABLE_WATCHDOG_FUNCTIONS: Lazy.string({ produce: () => stack.toJsonString(this.watched) }),
      },
      timeout: Duration.minutes(1),
      memorySize: 256,
      architecture: options.architecture ?? DEFAULTS.architecture,
      logRetention: options.logRetention ?? DEFAULTS.logRetention,
      logRemovalPolicy: options.removalPolicy ?? RemovalPolicy.RETAIN,
      ...(options.bundling === undefined ? {} : { bundling: options.bundling }),
      ...(options.projectRoot === undefined ? {} : { projectRoot: options.projectRoot }),
      ...(options.depsLockFilePath === undefined ? {} : { depsLockFilePath: options.depsLockFilePath }),
    });
    grantTable(
      table,
      role,
      ['dynamodb:Query'],
      [indexArn(table, 'byFunctionTime'), ...(table.legacyRunIndexes ? [indexArn(table, 'byFunction')] : [])],
    );
    this.listStatement = new iam.PolicyStatement({
      actions: ['lambda:ListAliases', 'lambda:ListVersionsByFunction'],
      resources: [],
    });
    role.addToPolicy(this.listStatement);
    this.function = fn;
    this.role = role;
    this.rule = new events.Rule(this, 'Schedule', {
      description: 'durable-lambda: run the stuck-runs watchdog',
      schedule: events.Schedule.rate(WATCHDOG_PERIOD),
      targets: [new targets.LambdaFunction(fn, { retryAttempts: 0 })],
    });
  }

  /**
   * Watches `fn`: its runs (of any alias or version) still RUNNING after `expected` count as
   * stuck. Watching a function again changes nothing.
   */
  watch(fn: lambda.IFunction, expected: Duration): void {
    if (this.watched.some((w) => w.name === fn.functionName)) return;
    this.watched.push({ name: fn.functionName, thresholdMs: expected.toMilliseconds() });
    this.listStatement.addResources(fn.functionArn);
  }
}
