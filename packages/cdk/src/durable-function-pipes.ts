import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kinesis from 'aws-cdk-lib/aws-kinesis';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as pipes from 'aws-cdk-lib/aws-pipes';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Annotations, Stack } from 'aws-cdk-lib/core';
import type { Construct } from 'constructs';

/** An EventBridge Pipes filter pattern (an event pattern matched against each source record). */
export type PipeFilterPattern = { readonly [field: string]: unknown };

/** What a pipe reads: an SQS queue, a DynamoDB table's stream, or a Kinesis data stream. */
export type PipeSource = sqs.IQueue | dynamodb.ITable | kinesis.IStream;

/**
 * An EventBridge pipe from `source` to the function's alias: each record (an SQS message, a
 * DynamoDB Streams record, a Kinesis record) starts one run, keyed by its function and id
 * (`sqs:<function>:<messageId>`, `dynamodb:<function>:<eventID>`, `kinesis:<function>:<eventID>`), so a redelivered record is the same run. The pipe
 * invokes the alias synchronously with a JSON array of the batch's records and reads the
 * function's `batchItemFailures`. Records of a stream whose start keeps failing go, after the
 * retries, to a dead-letter queue of the trigger's own with an alarm; an SQS queue's messages go
 * to the queue's own dead-letter queue (its redrive policy: Pipes has none for SQS). Unlike an
 * event source mapping, a pipe filters records before the function is invoked (`filter`) and
 * reads Kinesis.
 */
export interface PipeTrigger {
  readonly kind: 'pipe';
  /** The queue, the table (with a stream) or the Kinesis stream the pipe reads. */
  readonly source: PipeSource;
  /** Up to 5 patterns; a record matching none is dropped by the pipe (and not billed). Default: every record. */
  readonly filter?: readonly PipeFilterPattern[];
  /** Records per batch: 1-10 from SQS (default 10), 1-10000 from a stream (default 100). */
  readonly batchSize?: number;
  /** Where a stream is first read from. Default `LATEST`. */
  readonly startingPosition?: 'LATEST' | 'TRIM_HORIZON';
}

/** What {@link addPipe} built. */
export interface BuiltPipe {
  readonly pipe: pipes.CfnPipe;
  /** The role the pipe runs as: reads of its source, invokes of the alias, sends to its dead-letter queue. */
  readonly role: iam.Role;
  readonly deadLetterQueue?: sqs.Queue;
  readonly alarm?: cloudwatch.Alarm;
}

/** What a pipe needs of the function and of its trigger. */
export interface PipeWiring {
  /** The alias runs start on (or the function, with `pinning: latest`). */
  readonly target: lambda.IFunction;
  /** Retries of a stream batch before its failed records are dead-lettered. */
  readonly retryAttempts: number;
  /** Makes the trigger's dead-letter queue and its alarm (a stream's). */
  deadLetters(): { queue: sqs.Queue; alarm: cloudwatch.Alarm };
}

const SQS_READ = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'];
const DYNAMODB_STREAM_READ = [
  'dynamodb:DescribeStream',
  'dynamodb:GetRecords',
  'dynamodb:GetShardIterator',
  'dynamodb:ListStreams',
];
const KINESIS_READ = [
  'kinesis:DescribeStream',
  'kinesis:DescribeStreamSummary',
  'kinesis:GetRecords',
  'kinesis:GetShardIterator',
  'kinesis:ListShards',
];

type Source =
  | { kind: 'sqs'; arn: string; key?: kms.IKey | undefined }
  | { kind: 'dynamodb'; arn: string; key?: kms.IKey | undefined }
  | { kind: 'kinesis'; arn: string; key?: kms.IKey | undefined };

function sourceOf(where: string, source: PipeSource): Source {
  if ('queueArn' in source) return { kind: 'sqs', arn: source.queueArn, key: source.encryptionMasterKey };
  if ('streamArn' in source) return { kind: 'kinesis', arn: source.streamArn, key: source.encryptionKey };
  if ('tableArn' in source) {
    if (!source.tableStreamArn) throw new Error(`${where}: source: the table has no stream (set its stream)`);
    return { kind: 'dynamodb', arn: source.tableStreamArn, key: source.encryptionKey };
  }
  throw new Error(`${where}: source must be an SQS queue, a DynamoDB table with a stream, or a Kinesis stream`);
}

function checkedBatchSize(where: string, kind: Source['kind'], batchSize: number | undefined): number {
  const [max, fallback] = kind === 'sqs' ? [10, 10] : [10_000, 100];
  const size = batchSize ?? fallback;
  if (!Number.isInteger(size) || size < 1 || size > max) {
    throw new Error(`${where}: batchSize must be a whole number from 1 to ${max} for this source`);
  }
  return size;
}

/**
 * An `AWS::Pipes::Pipe` from the trigger's source to `wiring.target`, with a role of its own that
 * may only read that source (and decrypt it, when its key is a customer's), invoke that one
 * target, and send to the trigger's dead-letter queue.
 */
export function addPipe(scope: Construct, trigger: PipeTrigger, wiring: PipeWiring): BuiltPipe {
  const where = `${scope.node.path}: pipe trigger`;
  const source = sourceOf(where, trigger.source);
  const batchSize = checkedBatchSize(where, source.kind, trigger.batchSize);
  if (trigger.source instanceof sqs.Queue && !trigger.source.deadLetterQueue) {
    // Pipes has no dead-letter queue for SQS: a message whose run never starts would be retried until it expires.
    Annotations.of(scope).addWarningV2(
      '@durable-lambda/cdk:pipe-queue-without-dead-letters',
      'The queue of this pipe trigger has no dead-letter queue: a message whose run never starts is retried until it expires. Give it one (deadLetterQueue).',
    );
  }
  const filter = trigger.filter ?? [];
  if (filter.length > 5) throw new Error(`${where}: filter takes at most 5 patterns`);
  const role = new iam.Role(scope, 'Role', {
    // Only pipes of this account may act as it (no confused deputy).
    assumedBy: new iam.ServicePrincipal('pipes.amazonaws.com', {
      conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(scope).account } },
    }),
    description: 'durable-lambda: an EventBridge pipe starting one run per record',
  });
  const reads = source.kind === 'sqs' ? SQS_READ : source.kind === 'dynamodb' ? DYNAMODB_STREAM_READ : KINESIS_READ;
  role.addToPolicy(new iam.PolicyStatement({ actions: reads, resources: [source.arn] }));
  source.key?.grantDecrypt(role);
  role.addToPolicy(
    new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [wiring.target.functionArn] }),
  );
  let dead: { queue: sqs.Queue; alarm: cloudwatch.Alarm } | undefined;
  let streamParameters: pipes.CfnPipe.PipeSourceKinesisStreamParametersProperty | undefined;
  if (source.kind !== 'sqs') {
    dead = wiring.deadLetters();
    role.addToPolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [dead.queue.queueArn] }));
    streamParameters = {
      startingPosition: trigger.startingPosition ?? 'LATEST',
      batchSize,
      maximumRetryAttempts: wiring.retryAttempts,
      onPartialBatchItemFailure: 'AUTOMATIC_BISECT',
      deadLetterConfig: { arn: dead.queue.queueArn },
    };
  }
  const pipe = new pipes.CfnPipe(scope, 'Pipe', {
    roleArn: role.roleArn,
    source: source.arn,
    target: wiring.target.functionArn,
    description: 'durable-lambda: each record starts one run',
    desiredState: 'RUNNING',
    sourceParameters: {
      ...(filter.length > 0
        ? { filterCriteria: { filters: filter.map((p) => ({ pattern: JSON.stringify(p) })) } }
        : {}),
      ...(source.kind === 'sqs' ? { sqsQueueParameters: { batchSize } } : {}),
      ...(source.kind === 'dynamodb' ? { dynamoDbStreamParameters: streamParameters } : {}),
      ...(source.kind === 'kinesis' ? { kinesisStreamParameters: streamParameters } : {}),
    },
    // Synchronous: the pipe reads the function's `batchItemFailures`.
    targetParameters: { lambdaFunctionParameters: { invocationType: 'REQUEST_RESPONSE' } },
  });
  // Created once its role may read the source and invoke the target.
  pipe.node.addDependency(role);
  return { pipe, role, ...(dead ? { deadLetterQueue: dead.queue, alarm: dead.alarm } : {}) };
}
