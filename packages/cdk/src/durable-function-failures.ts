/**
 * Where a `DurableFunction`'s asynchronous invocations that failed every attempt go: the
 * `onFailure` destination given, or a queue of its own, for `$LATEST` and for every version and
 * alias defined in the stack (see `coverQualifiedInvocations`).
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Duration, type RemovalPolicy } from 'aws-cdk-lib/core';
import type { Construct } from 'constructs';
import type { DurableFunctionOwnProps } from './durable-function-props';
import { acknowledge, REASONS } from './nag';
import { coverQualifiedInvocations } from './qualified-invocations';

/**
 * Configures the asynchronous invocations of `fn` (destination, retries, event age) and of its
 * qualifiers. Returns the default failure queue it created in `scope` (none when `onFailure` is given).
 */
export function configureFailedInvocations(
  scope: Construct,
  fn: lambda.Function,
  props: Pick<DurableFunctionOwnProps, 'onFailure' | 'retryAttempts' | 'maxEventAge'>,
  removalPolicy: RemovalPolicy,
): sqs.Queue | undefined {
  let failureQueue: sqs.Queue | undefined;
  let destination = props.onFailure;
  if (!destination) {
    const queue = new sqs.Queue(scope, 'FailedInvocations', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      removalPolicy,
    });
    failureQueue = queue;
    acknowledge(queue, 'AwsSolutions-SQS3', REASONS.failureQueue);
    destination = {
      bind: (_scope, target) => {
        target.addToRolePolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }));
        return { destination: queue.queueArn };
      },
    };
  }
  const asyncInvoke: lambda.EventInvokeConfigOptions = {
    onFailure: destination,
    retryAttempts: props.retryAttempts ?? 2,
    maxEventAge: props.maxEventAge ?? Duration.hours(6),
  };
  fn.configureAsyncInvoke(asyncInvoke);
  coverQualifiedInvocations(fn, asyncInvoke);
  return failureQueue;
}
