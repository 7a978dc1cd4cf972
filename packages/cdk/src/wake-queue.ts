import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Duration, type RemovalPolicy } from 'aws-cdk-lib/core';
import { Construct } from 'constructs';
import { acknowledge, REASONS } from './nag';

/**
 * Deliveries of one wake-up message before it is dead-lettered: a message whose re-arm or
 * hand-over kept failing, or whose body is no wake-up. The run it was for stays due in the
 * table either way, and the reconciler wakes it.
 */
export const WAKE_QUEUE_MAX_RECEIVES = 5;

/**
 * Margin of the wake-up queue's visibility timeout over the function's timeout: an SQS-delivered
 * invocation holds its run's lease for its remaining time plus the engine's 10 s grace, and a
 * message that comes back only after that lease lapsed resumes a run whose invocation crashed.
 */
export const WAKE_QUEUE_VISIBILITY_MARGIN = Duration.seconds(60);

/** Properties of a {@link WakeQueue}. */
export interface WakeQueueProps {
  /** The function's timeout (the visibility timeout is this plus {@link WAKE_QUEUE_VISIBILITY_MARGIN}). */
  readonly timeout: Duration;
  readonly removalPolicy: RemovalPolicy;
  /**
   * Where a message goes after {@link WAKE_QUEUE_MAX_RECEIVES} failed deliveries. A
   * `DurableFunction` gives its table's reconciler's dead-letter queue, shared by every function of
   * the table in the stack (nothing but SQS's redrive writes there for a wake-up queue, so sharing it
   * grants no role anything). Default: a queue of its own.
   */
  readonly deadLetterQueue?: sqs.IQueue;
}

/**
 * A durable function's on-time wake-ups: a standard SQS queue (SSE, TLS only) whose messages are
 * wake-ups delayed to their due time (`DelaySeconds` ≤ 15 minutes), feeding the function through
 * a Lambda event source mapping (one message per invocation, `ReportBatchItemFailures`), with a
 * dead-letter queue after {@link WAKE_QUEUE_MAX_RECEIVES} deliveries (the table reconciler's,
 * shared, for a `DurableFunction`).
 *
 * One queue per function, never shared: its event source invokes one function's alias, so a
 * shared queue would need every consumer to hand the others' wake-ups on (an extra hop, and each
 * function allowed to invoke all the others), and every function allowed to send wake-ups that
 * open the others' runs.
 *
 * One message per invocation, because each wake-up resumes a run in the invocation that receives
 * it (its lease is that invocation's remaining time): the same one invocation per wake-up as an
 * asynchronous invoke, without the extra hop. A message that fails (its invocation crashed or
 * timed out) is delivered again after the visibility timeout, past the lease: the crashed run
 * resumes then, or earlier by the reconciler.
 */
export class WakeQueue extends Construct {
  /** The queue the function's wake-ups are sent to (`DURABLE_WAKE_QUEUE_URL`). */
  readonly queue: sqs.Queue;
  /** Where a message goes after {@link WAKE_QUEUE_MAX_RECEIVES} failed deliveries. */
  readonly deadLetterQueue: sqs.IQueue;

  constructor(scope: Construct, id: string, props: WakeQueueProps) {
    super(scope, id);
    this.deadLetterQueue = props.deadLetterQueue ?? this.ownDeadLetterQueue(props.removalPolicy);
    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: props.timeout.plus(WAKE_QUEUE_VISIBILITY_MARGIN),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: WAKE_QUEUE_MAX_RECEIVES },
      removalPolicy: props.removalPolicy,
    });
  }

  private ownDeadLetterQueue(removalPolicy: RemovalPolicy): sqs.Queue {
    const queue = new sqs.Queue(this, 'DeadLetters', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      removalPolicy,
    });
    acknowledge(queue, 'AwsSolutions-SQS3', REASONS.wakeQueueDeadLetters);
    return queue;
  }

  /**
   * Feeds `target` (the function, or the alias its runs start on) from the queue, and lets `role`
   * (the function's execution role) send to it: waits and re-armed wake-ups. The event source's
   * own grant is what Lambda needs to poll: receive, delete, change visibility, read attributes.
   */
  feed(target: lambda.IFunction, role: iam.IRole): SqsEventSource {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }),
    );
    const source = new SqsEventSource(this.queue, { batchSize: 1, reportBatchItemFailures: true });
    target.addEventSource(source);
    return source;
  }
}
