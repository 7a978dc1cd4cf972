/**
 * A DurableFunction's triggers, synthesized with cdk-nag's AwsSolutions checks: an SQS queue of
 * its own (SSE, TLS only, a dead-letter queue and an alarm on it), an EventBridge rule and a
 * DynamoDB stream, each targeting the alias, with partial batch failures where the source has
 * them; the IAM each needs is its event source's own.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DurableFunction, DurableTable, TRIGGER_MAX_RECEIVES } from '@durable-lambda/cdk';
import { Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { arnOf, logicalId, newApp, REPO_ROOT, resources, statementsOfRole } from './support';

const entry = join(REPO_ROOT, 'examples', 'checkout', 'handler.ts');

let template: Template;
let outdir: string;
let orders: DurableFunction;
beforeAll(() => {
  const app = newApp();
  const stack = new Stack(app, 'Triggers');
  const table = new DurableTable(stack, 'Runs');
  const source = new dynamodb.TableV2(stack, 'Orders', {
    partitionKey: { name: 'id', type: dynamodb.AttributeType.STRING },
    dynamoStream: dynamodb.StreamViewType.NEW_IMAGE,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
  });
  orders = new DurableFunction(stack, 'Checkout', {
    entry,
    table,
    triggers: [
      { kind: 'sqs' },
      { kind: 'eventbridge', eventPattern: { source: ['shop'], detailType: ['OrderPlaced'] } },
      { kind: 'dynamodb-stream', table: source },
    ],
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  outdir = app.synth().directory;
  template = Template.fromStack(stack);
}, 120_000);

const all = () => resources(template);
const ofType = (type: string) => Object.entries(all()).filter(([, r]) => r.Type === type);
const aliasId = () => logicalId(template, 'AWS::Lambda::Alias', 'CheckoutAlias');
/** An event source mapping's `FunctionName`: the alias (its name, `<function>:live`, from the alias's ARN). */
const namesAlias = (name: unknown) => {
  const text = JSON.stringify(name);
  return text.includes(`"Ref":"${aliasId()}"`) && text.includes(':live');
};

describe('DurableFunction triggers', () => {
  it('cdk-nag finds nothing', () => {
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as {
      pluginReports: Array<{ pluginName: string; conclusion: string; violations: unknown[] }>;
    };
    expect(report.pluginReports.map((r) => [r.pluginName, r.conclusion, r.violations])).toEqual([
      ['AwsSolutions', 'success', []],
    ]);
  });

  it('feeds the alias from its own queue, reporting failures, dead-lettering poison messages with an alarm', () => {
    const queue = all()[logicalId(template, 'AWS::SQS::Queue', 'CheckoutTrigger0Queue')]?.Properties;
    const dlq = logicalId(template, 'AWS::SQS::Queue', 'CheckoutTrigger0DeadLetters');
    expect(queue).toMatchObject({
      SqsManagedSseEnabled: true,
      RedrivePolicy: { deadLetterTargetArn: arnOf(dlq), maxReceiveCount: TRIGGER_MAX_RECEIVES },
    });
    const queueId = logicalId(template, 'AWS::SQS::Queue', 'CheckoutTrigger0Queue');
    const mapping = ofType('AWS::Lambda::EventSourceMapping').find(([, r]) =>
      JSON.stringify(r.Properties?.EventSourceArn).includes(queueId),
    )?.[1];
    expect(namesAlias(mapping?.Properties?.FunctionName)).toBe(true);
    expect(mapping?.Properties).toMatchObject({
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    const alarm = ofType('AWS::CloudWatch::Alarm').find(([id]) => id.startsWith('CheckoutTrigger0PoisonEvents'))?.[1];
    expect(alarm?.Properties).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlq, 'QueueName'] } }],
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
    });
    expect(orders.triggers.map((t) => t.alarm !== undefined)).toEqual([true, true, true]);
  });

  it('targets the alias from an EventBridge rule, with a dead-letter queue; EventBridge may invoke only the alias', () => {
    const [, rule] = ofType('AWS::Events::Rule')[0] ?? [];
    expect(rule?.Properties?.EventPattern).toEqual({ source: ['shop'], 'detail-type': ['OrderPlaced'] });
    expect(rule?.Properties?.Targets).toEqual([
      expect.objectContaining({
        Arn: { Ref: aliasId() },
        DeadLetterConfig: { Arn: arnOf(logicalId(template, 'AWS::SQS::Queue', 'CheckoutTrigger1DeadLetters')) },
      }),
    ]);
    const permissions = ofType('AWS::Lambda::Permission')
      .map(([, r]) => r.Properties)
      .filter((p) => JSON.stringify(p?.SourceArn).includes('CheckoutTrigger1Rule'));
    expect(permissions).toEqual([expect.objectContaining({ FunctionName: { Ref: aliasId() } })]);
  });

  it('maps the stream to the alias with partial batch failures, bisection and an on-failure queue', () => {
    const mapping = ofType('AWS::Lambda::EventSourceMapping').find(
      ([, r]) => r.Properties?.StartingPosition === 'LATEST',
    )?.[1];
    expect(namesAlias(mapping?.Properties?.FunctionName)).toBe(true);
    expect(mapping?.Properties).toMatchObject({
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: TRIGGER_MAX_RECEIVES,
      DestinationConfig: {
        OnFailure: { Destination: arnOf(logicalId(template, 'AWS::SQS::Queue', 'CheckoutTrigger2DeadLetters')) },
      },
    });
  });

  it("grants the function's role only the event sources' reads, no send or write to the sources", () => {
    const role = logicalId(template, 'AWS::IAM::Role', 'CheckoutServiceRole');
    const actions = (statementsOfRole(template, role) as Array<{ Action: string | string[] }>).flatMap((s) =>
      Array.isArray(s.Action) ? s.Action : [s.Action],
    );
    expect(actions).toEqual(expect.arrayContaining(['sqs:ReceiveMessage', 'dynamodb:GetRecords']));
    expect(actions).not.toContain('sqs:PurgeQueue');
    expect(actions.filter((a) => a.startsWith('events:'))).toEqual([]);
  });
});
