import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { CfnOutput, Duration, Lazy, RemovalPolicy, Stack } from 'aws-cdk-lib/core';
import { Construct } from 'constructs';
import type { DurableFunction } from './durable-function';
import { API_TABLE_ACTIONS, grantTable, type IDurableTable, indexArn } from './durable-table';
import { EXECUTION_TIMEOUTS_ENV, executionTimeoutsValue } from './execution-timeout-prop';
import { acknowledgeWildcardResource, REASONS } from './nag';
import { runtimeFile } from './paths';
import { payloadEnvironment } from './payload-storage';
import { DEFAULTS, serviceFunction } from './service-function';

/** The default key of the stack output holding a {@link DurableApi}'s URL. */
export const API_URL_OUTPUT = 'ApiUrl';

/** Properties of a {@link DurableApi}. */
export interface DurableApiProps {
  /**
   * The durable functions the API serves: it lists and starts their runs, and resumes them
   * (callbacks, retries). They must share one table. More can be added with {@link DurableApi.serve}.
   */
  readonly functions: DurableFunction[];
  /** Default 30 seconds. */
  readonly timeout?: Duration;
  /** Default 512 MB. */
  readonly memorySize?: number;
  /** Default ARM_64. */
  readonly architecture?: lambda.Architecture;
  /** Default one month. */
  readonly logRetention?: logs.RetentionDays;
  /** Of its log group. Default `RemovalPolicy.RETAIN`. */
  readonly removalPolicy?: RemovalPolicy;
  /** CORS of the Function URL (browsers calling it with SigV4). Default: none. */
  readonly cors?: lambda.FunctionUrlCorsOptions;
  /** Actions of its alarm (errors). Default: none. */
  readonly alarmActions?: cloudwatch.IAlarmAction[];
  /** Emit a stack output with the URL ({@link urlOutputId}). Default true. */
  readonly outputUrl?: boolean;
  /**
   * The key of the stack output holding the URL: what
   * `aws cloudformation describe-stacks --query "Stacks[0].Outputs[?OutputKey=='ApiUrl'].OutputValue"`
   * finds. A second `DurableApi` in one stack needs a key of its own. Default {@link API_URL_OUTPUT}.
   */
  readonly urlOutputId?: string;
  /**
   * Export the URL under this name (`Fn::ImportValue` in other stacks). Export names are unique per
   * account and Region, so there is none by default.
   */
  readonly urlExportName?: string;
  /**
   * Most concurrent invocations of the API's function: caps what a flood of (signed) calls can
   * cost. Default: none.
   */
  readonly reservedConcurrentExecutions?: number;
  readonly bundling?: nodejs.BundlingOptions;
  readonly projectRoot?: string;
  readonly depsLockFilePath?: string;
}

/**
 * The control API (`@durable-lambda/api`: start, list, show, history, cancel and retry runs;
 * complete callbacks) as a Lambda. It starts runs on each function's alias (`live`), where each is
 * pinned to the version it first runs on; `"latest": true` in a start request opts that run into
 * `$LATEST`. A run it starts gets its function's `executionTimeout` (`DURABLE_EXECUTION_TIMEOUTS`,
 * set when a served function has one), unless the request gives its own. A Lambda behind a Function URL with IAM authentication: callers sign
 * their requests with SigV4 and need `lambda:InvokeFunctionUrl` ({@link DurableApi.grantInvokeUrl}).
 *
 * Its role may use the items of the functions' table (the API starts, cancels and retries runs,
 * completes callbacks and keeps idempotency records, so it writes as well as reads), query the
 * table's two indexes (listings), and invoke only the functions it serves.
 */
export class DurableApi extends Construct {
  readonly function: nodejs.NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;
  readonly url: lambda.FunctionUrl;
  /** The stack output holding the URL (key `ApiUrl` unless `urlOutputId` says otherwise; absent with `outputUrl: false`). */
  readonly urlOutput?: CfnOutput;
  readonly table: IDurableTable;
  /** Errors of the API's Lambda (500 answers are not errors: they are answered). */
  readonly errorsAlarm: cloudwatch.Alarm;
  private readonly served: DurableFunction[] = [];
  private readonly invokeStatement: iam.PolicyStatement;

  constructor(scope: Construct, id: string, props: DurableApiProps) {
    super(scope, id);
    const first = props.functions[0];
    if (!first) throw new Error(`${this.node.path}: a DurableApi serves at least one DurableFunction`);
    this.table = first.table;
    const stack = Stack.of(this);
    const { fn, role, logGroup } = serviceFunction(this, {
      entry: runtimeFile('control-api-entry.ts'),
      description: 'durable-lambda control API',
      environment: {
        DURABLE_TABLE_NAME: this.table.tableName,
        ...(this.table.legacyRunIndexes ? { DURABLE_LEGACY_INDEXES: '1' } : {}),
        ...payloadEnvironment(this.table.payloads),
        DURABLE_API_FUNCTIONS: Lazy.string({
          produce: () =>
            stack.toJsonString(
              Object.fromEntries(this.served.map((served) => [served.functionName, served.functionArn])),
            ),
        }),
        // Runs it starts are started on the function's alias (and pinned to its version there).
        DURABLE_API_ALIASES: Lazy.string({
          produce: () =>
            stack.toJsonString(
              Object.fromEntries(
                this.served.flatMap((served) =>
                  served.startsOnAlias ? [[served.functionName, served.aliasName]] : [],
                ),
              ),
            ),
        }),
      },
      timeout: props.timeout ?? Duration.seconds(30),
      memorySize: props.memorySize ?? 512,
      architecture: props.architecture ?? DEFAULTS.architecture,
      logRetention: props.logRetention ?? DEFAULTS.logRetention,
      logRemovalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
      ...(props.bundling === undefined ? {} : { bundling: props.bundling }),
      ...(props.projectRoot === undefined ? {} : { projectRoot: props.projectRoot }),
      ...(props.depsLockFilePath === undefined ? {} : { depsLockFilePath: props.depsLockFilePath }),
      ...(props.reservedConcurrentExecutions === undefined
        ? {}
        : { reservedConcurrentExecutions: props.reservedConcurrentExecutions }),
    });
    this.function = fn;
    this.role = role;
    this.logGroup = logGroup;

    grantTable(this.table, role, API_TABLE_ACTIONS);
    grantTable(
      this.table,
      role,
      ['dynamodb:Query'],
      [
        indexArn(this.table, 'byFunctionTime'),
        ...(this.table.legacyRunIndexes
          ? [
              indexArn(this.table, 'byFunction'),
              indexArn(this.table, 'byFunctionBase'),
              indexArn(this.table, 'byStatus'),
            ]
          : []),
      ],
    );
    this.invokeStatement = new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [] });
    role.addToPolicy(this.invokeStatement);
    for (const served of props.functions) this.serve(served);

    this.url = fn.addFunctionUrl({
      authType: lambda.FunctionUrlAuthType.AWS_IAM,
      ...(props.cors === undefined ? {} : { cors: props.cors }),
    });
    if (props.outputUrl ?? true) {
      // Made in the stack, so its id is the output key as written (not a path with a hash).
      const key = props.urlOutputId ?? API_URL_OUTPUT;
      if (stack.node.tryFindChild(key) !== undefined) {
        throw new Error(
          `${this.node.path}: the stack already has a construct ${JSON.stringify(key)} (another DurableApi's URL output?): give this DurableApi a urlOutputId of its own`,
        );
      }
      this.urlOutput = new CfnOutput(stack, key, {
        value: this.url.url,
        description: 'durable-lambda control API (IAM auth: sign requests with SigV4, service "lambda")',
        ...(props.urlExportName === undefined ? {} : { exportName: props.urlExportName }),
      });
    }

    this.errorsAlarm = new cloudwatch.Alarm(this, 'ErrorsAlarm', {
      metric: fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: 'The durable-lambda control API function failed invocations',
    });
    if (props.alarmActions?.length) this.errorsAlarm.addAlarmAction(...props.alarmActions);
  }

  /** Serves one more durable function (it must use the API's table). */
  serve(target: DurableFunction): this {
    if (this.served.includes(target)) return this;
    if (target.table !== this.table) {
      throw new Error(`${this.node.path} serves ${target.node.path}: the functions of one API must share one table`);
    }
    this.served.push(target);
    // Set once, when the first served function with a timeout comes: the API's configuration
    // stays as it was for functions without one.
    const timed = this.served.filter((served) => served.executionTimeoutSeconds !== undefined);
    if (target.executionTimeoutSeconds !== undefined && timed.length === 1) {
      this.function.addEnvironment(
        EXECUTION_TIMEOUTS_ENV,
        executionTimeoutsValue(Stack.of(this), () =>
          this.served.map((served) => ({
            name: served.functionName,
            executionTimeoutSeconds: served.executionTimeoutSeconds,
          })),
        ),
      );
    }
    // Runs start on the alias and are recorded as `name:<version>` (or `name:alias` until their
    // first invocation): resuming them targets that qualifier.
    this.invokeStatement.addResources(target.functionArn, `${target.functionArn}:*`);
    acknowledgeWildcardResource(this.role, `${target.functionArn}:*`, REASONS.qualifiedInvoke);
    return this;
  }

  /** Lets `grantee` call the API (`lambda:InvokeFunctionUrl` on its IAM-authenticated URL). */
  grantInvokeUrl(grantee: iam.IGrantable): iam.Grant {
    return this.function.grantInvokeUrl(grantee);
  }
}
