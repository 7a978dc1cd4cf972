/**
 * A DurableFunction's EventBridge Pipes triggers, synthesized with cdk-nag's AwsSolutions checks:
 * one `AWS::Pipes::Pipe` per trigger, from an SQS queue, a DynamoDB table's stream or a Kinesis
 * stream to the function's alias (invoked synchronously, so the pipe reads `batchItemFailures`),
 * with filters and batch sizes as given; a stream's pipe dead-letters to a queue of its own with
 * an alarm. Each pipe runs as a role of its own that may read only its source and invoke only
 * the alias (and send to its dead-letter queue); the function's role gains nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DurableFunction, DurableTable, fixedMonthlyCost, TRIGGER_MAX_RECEIVES } from '@durable-lambda/cdk';
import { Stack, Validations } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kinesis from 'aws-cdk-lib/aws-kinesis';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { arnOf, logicalId, newApp, newStack, REPO_ROOT, resources, statementsOfRole } from './support';

const entry = join(REPO_ROOT, 'examples', 'checkout', 'handler.ts');

let template: Template;
let outdir: string;
let withoutPipes: unknown[];
let mainStack: Stack;
beforeAll(() => {
  const app = newApp();
  const stack = new Stack(app, 'Pipes');
  mainStack = stack;
  const table = new DurableTable(stack, 'Runs');
  const inboxDlq = new sqs.Queue(stack, 'Redrive', { enforceSSL: true, encryption: sqs.QueueEncryption.SQS_MANAGED });
  const inbox = new sqs.Queue(stack, 'Inbox', {
    enforceSSL: true,
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    deadLetterQueue: { queue: inboxDlq, maxReceiveCount: 5 },
  });
  const orders = new dynamodb.TableV2(stack, 'Orders', {
    partitionKey: { name: 'id', type: dynamodb.AttributeType.STRING },
    dynamoStream: dynamodb.StreamViewType.NEW_IMAGE,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
  });
  const clicks = new kinesis.Stream(stack, 'Clicks', {
    encryption: kinesis.StreamEncryption.KMS,
    encryptionKey: new kms.Key(stack, 'ClicksKey', { enableKeyRotation: true }),
  });
  new DurableFunction(stack, 'Checkout', {
    entry,
    table,
    triggers: [
      { kind: 'pipe', source: inbox, filter: [{ body: { kind: ['order'] } }] },
      { kind: 'pipe', source: orders, batchSize: 50, filter: [{ eventName: ['INSERT'] }, { eventName: ['MODIFY'] }] },
      { kind: 'pipe', source: clicks, startingPosition: 'TRIM_HORIZON' },
    ],
  });
  // cdk-nag's findings on the test's own sources: a dead-letter queue, and a customer key on purpose
  // (to prove the pipe's role may decrypt with it).
  Validations.of(inboxDlq).acknowledge({ id: 'AwsSolutions::AwsSolutions-SQS3', reason: 'a dead-letter queue' });
  Validations.of(clicks).acknowledge({ id: 'AwsSolutions::AwsSolutions-KDS3', reason: 'a customer key, on purpose' });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  outdir = app.synth().directory;
  template = Template.fromStack(stack);
  const plain = newStack();
  new DurableFunction(plain, 'Checkout', { entry, table: new DurableTable(plain, 'Runs') });
  const t = Template.fromStack(plain);
  withoutPipes = statementsOfRole(t, logicalId(t, 'AWS::IAM::Role', 'CheckoutServiceRole'));
}, 120_000);

const all = () => resources(template);
const pipeOf = (i: number) => all()[logicalId(template, 'AWS::Pipes::Pipe', `CheckoutTrigger${i}Pipe`)];
const roleOf = (i: number) => logicalId(template, 'AWS::IAM::Role', `CheckoutTrigger${i}Role`);
const aliasId = () => logicalId(template, 'AWS::Lambda::Alias', 'CheckoutAlias');
const deadLettersOf = (i: number) => logicalId(template, 'AWS::SQS::Queue', `CheckoutTrigger${i}DeadLetters`);
const strip = (value: unknown) => JSON.stringify(value).replace(/[A-Fa-f0-9]{8,}/g, '');

describe('DurableFunction pipe triggers', () => {
  it('cdk-nag finds nothing', () => {
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as {
      pluginReports: Array<{ pluginName: string; conclusion: string; violations: unknown[] }>;
    };
    expect(report.pluginReports.map((r) => [r.pluginName, r.conclusion, r.violations])).toEqual([
      ['AwsSolutions', 'success', []],
    ]);
  });

  it('pipes each source to the alias, invoked synchronously, with its filters and batch size', () => {
    const inbox = logicalId(template, 'AWS::SQS::Queue', 'Inbox');
    for (const i of [0, 1, 2]) {
      expect(pipeOf(i)?.Properties).toMatchObject({
        RoleArn: arnOf(roleOf(i)),
        Target: { Ref: aliasId() },
        DesiredState: 'RUNNING',
        TargetParameters: { LambdaFunctionParameters: { InvocationType: 'REQUEST_RESPONSE' } },
      });
      // Created after its role's policy: the pipe can read and invoke from its first poll.
      expect(pipeOf(i)?.DependsOn).toEqual(
        expect.arrayContaining([roleOf(i), expect.stringMatching(/RoleDefaultPolicy/)]),
      );
    }
    expect(pipeOf(0)?.Properties).toMatchObject({
      Source: arnOf(inbox),
      SourceParameters: {
        SqsQueueParameters: { BatchSize: 10 },
        FilterCriteria: { Filters: [{ Pattern: JSON.stringify({ body: { kind: ['order'] } }) }] },
      },
    });
    expect(pipeOf(1)?.Properties?.Source).toEqual({
      'Fn::GetAtt': [logicalId(template, 'AWS::DynamoDB::GlobalTable', 'Orders'), 'StreamArn'],
    });
    expect(pipeOf(1)?.Properties?.SourceParameters).toEqual({
      FilterCriteria: {
        Filters: [{ Pattern: '{"eventName":["INSERT"]}' }, { Pattern: '{"eventName":["MODIFY"]}' }],
      },
      DynamoDBStreamParameters: {
        StartingPosition: 'LATEST',
        BatchSize: 50,
        MaximumRetryAttempts: TRIGGER_MAX_RECEIVES,
        OnPartialBatchItemFailure: 'AUTOMATIC_BISECT',
        DeadLetterConfig: { Arn: arnOf(deadLettersOf(1)) },
      },
    });
    expect(pipeOf(2)?.Properties).toMatchObject({
      Source: arnOf(logicalId(template, 'AWS::Kinesis::Stream', 'Clicks')),
      SourceParameters: {
        KinesisStreamParameters: {
          StartingPosition: 'TRIM_HORIZON',
          BatchSize: 100,
          DeadLetterConfig: { Arn: arnOf(deadLettersOf(2)) },
        },
      },
    });
  });

  it("dead-letters a stream's failed records to a queue with an alarm; an SQS source keeps its own redrive", () => {
    for (const i of [1, 2]) {
      const alarm = Object.entries(all()).find(
        ([id, r]) => r.Type === 'AWS::CloudWatch::Alarm' && id.startsWith(`CheckoutTrigger${i}PoisonEvents`),
      )?.[1];
      expect(alarm?.Properties).toMatchObject({
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [deadLettersOf(i), 'QueueName'] } }],
      });
    }
    expect(Object.keys(all()).filter((id) => id.startsWith('CheckoutTrigger0DeadLetters'))).toEqual([]);
  });

  it('runs each pipe as its own role, trusted by this account’s pipes only, reading only its source and invoking only the alias', () => {
    const trust = (i: number) => all()[roleOf(i)]?.Properties?.AssumeRolePolicyDocument.Statement;
    for (const i of [0, 1, 2]) {
      expect(trust(i)).toEqual([
        {
          Action: 'sts:AssumeRole',
          Effect: 'Allow',
          Principal: { Service: 'pipes.amazonaws.com' },
          Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
        },
      ]);
    }
    const invoke = { Action: 'lambda:InvokeFunction', Effect: 'Allow', Resource: { Ref: aliasId() } };
    const inbox = logicalId(template, 'AWS::SQS::Queue', 'Inbox');
    expect(statementsOfRole(template, roleOf(0))).toEqual([
      {
        Action: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
        Effect: 'Allow',
        Resource: arnOf(inbox),
      },
      invoke,
    ]);
    const send = (i: number) => ({ Action: 'sqs:SendMessage', Effect: 'Allow', Resource: arnOf(deadLettersOf(i)) });
    expect(statementsOfRole(template, roleOf(1))).toEqual([
      {
        Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
        Effect: 'Allow',
        Resource: { 'Fn::GetAtt': [logicalId(template, 'AWS::DynamoDB::GlobalTable', 'Orders'), 'StreamArn'] },
      },
      invoke,
      send(1),
    ]);
    const clicks = logicalId(template, 'AWS::Kinesis::Stream', 'Clicks');
    expect(statementsOfRole(template, roleOf(2))).toEqual([
      {
        Action: [
          'kinesis:DescribeStream',
          'kinesis:DescribeStreamSummary',
          'kinesis:GetRecords',
          'kinesis:GetShardIterator',
          'kinesis:ListShards',
        ],
        Effect: 'Allow',
        Resource: arnOf(clicks),
      },
      // The stream's key: decrypt only.
      { Action: 'kms:Decrypt', Effect: 'Allow', Resource: arnOf(logicalId(template, 'AWS::KMS::Key', 'ClicksKey')) },
      invoke,
      send(2),
    ]);
    // The function's own role gains nothing from its pipes.
    const fnRole = logicalId(template, 'AWS::IAM::Role', 'CheckoutServiceRole');
    expect(strip(statementsOfRole(template, fnRole))).toBe(strip(withoutPipes));
  });

  it('warns of a queue source without a dead-letter queue (Pipes has none for SQS)', () => {
    const stack = newStack();
    const bare = new sqs.Queue(stack, 'Bare');
    new DurableFunction(stack, 'Checkout', {
      entry,
      table: new DurableTable(stack, 'Runs'),
      triggers: [{ kind: 'pipe', source: bare }],
    });
    Annotations.fromStack(stack).hasWarning(
      '/Test/Checkout/Trigger0',
      Match.stringLikeRegexp('has no dead-letter queue'),
    );
    // A queue with its redrive (the stack above): no warning.
    Annotations.fromStack(mainStack).hasNoWarning('*', Match.stringLikeRegexp('has no dead-letter queue'));
  });

  it('costs nothing while idle: the fixed-cost estimate knows a pipe (billed per request delivered)', () => {
    const estimate = fixedMonthlyCost(template.toJSON() as never);
    expect(estimate.unknown.filter((u) => u.includes('AWS::Pipes::Pipe'))).toEqual([]);
  });

  it('refuses a bad pipe trigger, naming it', () => {
    const stack = newStack();
    const table = new DurableTable(stack, 'Runs');
    const queue = new sqs.Queue(stack, 'Q');
    // A `Table` without a stream has no stream ARN (a `TableV2` always names one).
    const noStream = new dynamodb.Table(stack, 'NoStream', {
      partitionKey: { name: 'id', type: dynamodb.AttributeType.STRING },
    });
    const bad = (trigger: Record<string, unknown>, message: RegExp) =>
      expect(
        () =>
          new DurableFunction(stack, `F${Math.random().toString(36).slice(2, 8)}`, {
            entry,
            table,
            triggers: [trigger as never],
          }),
      ).toThrow(message);
    bad(
      { kind: 'pipe', source: queue, batchSize: 11 },
      /Trigger0: pipe trigger: batchSize must be a whole number from 1 to 10/,
    );
    bad({ kind: 'pipe', source: noStream }, /pipe trigger: source: the table has no stream/);
    bad(
      { kind: 'pipe', source: {} },
      /source must be an SQS queue, a DynamoDB table with a stream, or a Kinesis stream/,
    );
    bad({ kind: 'pipe', source: queue, filter: [{}, {}, {}, {}, {}, {}] }, /filter takes at most 5 patterns/);
  });
});
