import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as pipes from 'aws-cdk-lib/aws-pipes';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Duration, type RemovalPolicy } from 'aws-cdk-lib/core';
import { Construct } from 'constructs';
import { addPipe, type PipeTrigger } from './durable-function-pipes';
import { acknowledge, REASONS } from './nag';

/** Deliveries of one trigger message whose run would not start before it is dead-lettered. */
export const TRIGGER_MAX_RECEIVES = 5;

/**
 * An SQS queue whose messages each start one run (keyed by the message id: a redelivered message
 * is the same run). Its event source reports partial batch failures; a message whose start keeps
 * failing goes to a dead-letter queue after {@link TRIGGER_MAX_RECEIVES} deliveries, with an alarm.
 */
export interface SqsTrigger {
  readonly kind: 'sqs';
  /** Default: a queue of the function's (SSE, TLS only), with its dead-letter queue and alarm. */
  readonly queue?: sqs.IQueue;
  /** Messages per batch (each only starts its run: the batch is quick). Default 10. */
  readonly batchSize?: number;
}

/** EventBridge events matching a rule's pattern each start one run (keyed by the event's `id`). */
export interface EventBridgeTrigger {
  readonly kind: 'eventbridge';
  readonly eventPattern: events.EventPattern;
  /** Default: the account's default bus. */
  readonly eventBus?: events.IEventBus;
}

/**
 * DynamoDB Streams records of a table each start one run (keyed by the record's `eventID`). The
 * event source reports partial batch failures (by sequence number) and sends the records it gives
 * up on to a dead-letter queue, with an alarm.
 */
export interface DynamoDbStreamTrigger {
  readonly kind: 'dynamodb-stream';
  /** A table with a stream (`stream` set). */
  readonly table: dynamodb.ITable;
  /** Default `LATEST`. */
  readonly startingPosition?: lambda.StartingPosition;
  /** Default 100. */
  readonly batchSize?: number;
}

/** A source of events that start runs of a durable function (see `DurableFunctionProps.triggers`). */
export type DurableTrigger = SqsTrigger | EventBridgeTrigger | DynamoDbStreamTrigger | PipeTrigger;

/** What {@link addTriggers} built for one trigger. */
export interface BuiltTrigger {
  readonly trigger: DurableTrigger;
  /** The SQS trigger's queue (given or created). */
  readonly queue?: sqs.IQueue;
  /** Where its poison events end (created for an SQS queue it made, a stream and a rule). */
  readonly deadLetterQueue?: sqs.Queue;
  /** The alarm on {@link deadLetterQueue}: a poison event arrived. */
  readonly alarm?: cloudwatch.Alarm;
  readonly rule?: events.Rule;
  /** A pipe trigger's pipe. */
  readonly pipe?: pipes.CfnPipe;
  /** The role a pipe trigger's pipe runs as. */
  readonly role?: iam.Role;
}

/** What the triggers need of the function. */
export interface TriggerWiring {
  /** The alias runs start on (or the function, with `pinning: latest`). */
  readonly target: lambda.IFunction;
  /** The function's timeout (a trigger queue's visibility timeout is this plus a minute). */
  readonly timeout: Duration;
  readonly removalPolicy: RemovalPolicy;
  readonly alarmActions: cloudwatch.IAlarmAction[];
}

/**
 * Wires each trigger to `wiring.target` (the alias: runs start there and pin as a request's do).
 * Each grant is the event source's own (Lambda's polling of that queue or stream, EventBridge's
 * invoke of that alias, a pipe's role reading its source and invoking the alias); the function's
 * role gains nothing else (starting a run writes its table,
 * and invoking itself it may already).
 */
export function addTriggers(
  scope: Construct,
  triggers: readonly DurableTrigger[],
  wiring: TriggerWiring,
): BuiltTrigger[] {
  return triggers.map((trigger, i) => {
    const id = `Trigger${i}`;
    if (trigger.kind === 'sqs') return sqsTrigger(new Construct(scope, id), trigger, wiring);
    if (trigger.kind === 'eventbridge') return eventBridgeTrigger(new Construct(scope, id), trigger, wiring);
    if (trigger.kind === 'pipe') {
      const at = new Construct(scope, id);
      const built = addPipe(at, trigger, {
        target: wiring.target,
        retryAttempts: TRIGGER_MAX_RECEIVES,
        deadLetters: () => deadLetters(at, wiring),
      });
      return { trigger, ...built };
    }
    return streamTrigger(new Construct(scope, id), trigger, wiring);
  });
}

function deadLetters(scope: Construct, wiring: TriggerWiring): { queue: sqs.Queue; alarm: cloudwatch.Alarm } {
  const queue = new sqs.Queue(scope, 'DeadLetters', {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
    removalPolicy: wiring.removalPolicy,
  });
  acknowledge(queue, 'AwsSolutions-SQS3', REASONS.triggerDeadLetters);
  const alarm = new cloudwatch.Alarm(scope, 'PoisonEvents', {
    metric: queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
    threshold: 0,
    evaluationPeriods: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    alarmDescription: 'durable-lambda: trigger events whose run would not start were dead-lettered',
  });
  for (const action of wiring.alarmActions) alarm.addAlarmAction(action);
  return { queue, alarm };
}

function sqsTrigger(scope: Construct, trigger: SqsTrigger, wiring: TriggerWiring): BuiltTrigger {
  let built: BuiltTrigger;
  if (trigger.queue) {
    built = { trigger, queue: trigger.queue };
  } else {
    const dead = deadLetters(scope, wiring);
    const queue = new sqs.Queue(scope, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: wiring.timeout.plus(Duration.minutes(1)),
      deadLetterQueue: { queue: dead.queue, maxReceiveCount: TRIGGER_MAX_RECEIVES },
      removalPolicy: wiring.removalPolicy,
    });
    built = { trigger, queue, deadLetterQueue: dead.queue, alarm: dead.alarm };
  }
  wiring.target.addEventSource(
    new SqsEventSource(built.queue as sqs.IQueue, {
      batchSize: trigger.batchSize ?? 10,
      reportBatchItemFailures: true,
    }),
  );
  return built;
}

function eventBridgeTrigger(scope: Construct, trigger: EventBridgeTrigger, wiring: TriggerWiring): BuiltTrigger {
  const dead = deadLetters(scope, wiring);
  const rule = new events.Rule(scope, 'Rule', {
    eventPattern: trigger.eventPattern,
    ...(trigger.eventBus ? { eventBus: trigger.eventBus } : {}),
    description: 'durable-lambda: each matching event starts one run',
  });
  // EventBridge invokes the alias asynchronously; an event it cannot deliver goes to the queue.
  rule.addTarget(new targets.LambdaFunction(wiring.target, { deadLetterQueue: dead.queue, retryAttempts: 185 }));
  return { trigger, rule, deadLetterQueue: dead.queue, alarm: dead.alarm };
}

function streamTrigger(scope: Construct, trigger: DynamoDbStreamTrigger, wiring: TriggerWiring): BuiltTrigger {
  const dead = deadLetters(scope, wiring);
  wiring.target.addEventSource(
    new DynamoEventSource(trigger.table, {
      startingPosition: trigger.startingPosition ?? lambda.StartingPosition.LATEST,
      batchSize: trigger.batchSize ?? 100,
      reportBatchItemFailures: true,
      retryAttempts: TRIGGER_MAX_RECEIVES,
      bisectBatchOnError: true,
      onFailure: new SqsDlq(dead.queue),
    }),
  );
  return { trigger, deadLetterQueue: dead.queue, alarm: dead.alarm };
}
