/**
 * How a `DurableFunction`'s Lambda functions are built from its props: its own (its code and
 * handler, memory, timeout, logs, versions kept when replaced) and the build settings the service
 * functions beside it (the reconciler, the watchdog) share with it.
 */
import { type Duration, RemovalPolicy } from 'aws-cdk-lib/core';
import type { Construct } from 'constructs';
import { durableFunctionCode } from './durable-function-code';
import type { DurableFunctionOwnProps } from './durable-function-props';
import { DEFAULTS, type ServiceFunction, serviceFunction } from './service-function';

/**
 * The build settings the reconciler and the watchdog share with the function (tsconfig, …), not
 * its handler's injections or hooks.
 */
export function serviceBuildOptions(props: DurableFunctionOwnProps, removalPolicy: RemovalPolicy) {
  const { inject: _inject, commandHooks: _hooks, ...serviceBundling } = props.bundling ?? {};
  return {
    bundling: serviceBundling,
    ...(props.projectRoot === undefined ? {} : { projectRoot: props.projectRoot }),
    ...(props.depsLockFilePath === undefined ? {} : { depsLockFilePath: props.depsLockFilePath }),
    ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
    ...(props.architecture === undefined ? {} : { architecture: props.architecture }),
    removalPolicy,
  };
}

/** The durable function's own Lambda function (its role and log group with it), under `scope`. */
export function durableLambda(
  scope: Construct,
  props: DurableFunctionOwnProps,
  settings: { environment: Record<string, string>; timeout: Duration; removalPolicy: RemovalPolicy },
): ServiceFunction {
  const code = durableFunctionCode(scope.node.path, props);
  return serviceFunction(scope, {
    entry: code.entry,
    ...(code.handler === undefined ? {} : { handler: code.handler }),
    ...(props.functionName === undefined ? {} : { functionName: props.functionName }),
    description: props.description ?? 'durable-lambda function',
    environment: settings.environment,
    timeout: settings.timeout,
    memorySize: props.memorySize ?? DEFAULTS.memorySize,
    architecture: props.architecture ?? DEFAULTS.architecture,
    logRetention: props.logRetention ?? DEFAULTS.logRetention,
    logRemovalPolicy: settings.removalPolicy,
    ...(props.projectRoot === undefined ? {} : { projectRoot: props.projectRoot }),
    ...(props.depsLockFilePath === undefined ? {} : { depsLockFilePath: props.depsLockFilePath }),
    ...(props.reservedConcurrentExecutions === undefined
      ? {}
      : { reservedConcurrentExecutions: props.reservedConcurrentExecutions }),
    // A replaced version stays: the runs pinned to it replay on it until they end.
    currentVersionOptions: { removalPolicy: RemovalPolicy.RETAIN },
    bundling: code.bundling,
  });
}
