import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Duration, type RemovalPolicy } from 'aws-cdk-lib/core';
import type { Construct } from 'constructs';
import { bundleDefaults } from './bundle-defaults';
import { acknowledge, REASONS } from './nag';

/** The Lambda runtime of every function the constructs deploy. */
export const RUNTIME = lambda.Runtime.NODEJS_22_X;

/** What the constructs' Lambda functions have in common. */
export interface ServiceFunctionOptions {
  readonly entry: string;
  readonly handler?: string;
  readonly functionName?: string;
  readonly description?: string;
  readonly environment: Record<string, string>;
  readonly timeout: Duration;
  readonly memorySize: number;
  readonly architecture: lambda.Architecture;
  readonly logRetention: logs.RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  readonly bundling?: nodejs.BundlingOptions;
  readonly projectRoot?: string;
  readonly depsLockFilePath?: string;
  readonly reservedConcurrentExecutions?: number;
  /**
   * Options of `fn.currentVersion` (the version published per code or configuration change),
   * when the function publishes versions.
   */
  readonly currentVersionOptions?: lambda.VersionOptions;
}

/** A function with its own role and log group. */
export interface ServiceFunction {
  readonly fn: nodejs.NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;
}

/**
 * A `NodejsFunction` bundled locally by esbuild (never Docker; ESM, minified: `bundleDefaults`), on
 * nodejs22.x, with a role of its
 * own whose only logging grant is writing streams of its own log group (created here, with the
 * retention asked for: no `AWSLambdaBasicExecutionRole`, no `logs:CreateLogGroup`).
 */
export function serviceFunction(scope: Construct, options: ServiceFunctionOptions): ServiceFunction {
  const logGroup = new logs.LogGroup(scope, 'LogGroup', {
    ...(options.functionName === undefined ? {} : { logGroupName: `/aws/lambda/${options.functionName}` }),
    retention: options.logRetention,
    removalPolicy: options.logRemovalPolicy,
  });
  const role = new iam.Role(scope, 'ServiceRole', {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description: 'Execution role of a durable-lambda function',
  });
  role.addToPolicy(
    new iam.PolicyStatement({
      actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      resources: [logGroup.logGroupArn],
    }),
  );
  const bundling = options.bundling ?? {};
  const fn = new nodejs.NodejsFunction(scope, 'Function', {
    entry: options.entry,
    handler: options.handler ?? 'handler',
    ...(options.functionName === undefined ? {} : { functionName: options.functionName }),
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(options.projectRoot === undefined ? {} : { projectRoot: options.projectRoot }),
    ...(options.depsLockFilePath === undefined ? {} : { depsLockFilePath: options.depsLockFilePath }),
    ...(options.reservedConcurrentExecutions === undefined
      ? {}
      : { reservedConcurrentExecutions: options.reservedConcurrentExecutions }),
    ...(options.currentVersionOptions === undefined ? {} : { currentVersionOptions: options.currentVersionOptions }),
    runtime: RUNTIME,
    architecture: options.architecture,
    memorySize: options.memorySize,
    timeout: options.timeout,
    role,
    logGroup,
    environment: options.environment,
    bundling: bundleDefaults(bundling),
  });
  acknowledge(fn, 'AwsSolutions-L1', REASONS.runtime);
  return { fn, role, logGroup };
}

/** Defaults shared by the constructs. */
export const DEFAULTS = {
  timeout: Duration.minutes(5),
  memorySize: 1024,
  architecture: lambda.Architecture.ARM_64,
  logRetention: logs.RetentionDays.ONE_MONTH,
} as const;
