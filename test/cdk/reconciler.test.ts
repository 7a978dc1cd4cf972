/**
 * The table's reconciler (DurableReconciler, created by the first DurableFunction of a table in a
 * stack): its function, its schedule (every 2 minutes unless told), its alarms (once a function asks
 * for alarms), the wake-ups' dead-letter queue, its exact IAM, and the asynchronous-invocation
 * coverage of aliases and versions.
 */
import { join } from 'node:path';
import { RECONCILER_ENV } from '@durable-lambda/aws';
import { DurableFunction, DurableReconciler, DurableTable } from '@durable-lambda/cdk';
import { Duration, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as destinations from 'aws-cdk-lib/aws-lambda-destinations';
import * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { arnOf, logicalId, newStack, qualifiedArnOf, REPO_ROOT, resources, statementsOfRole } from './support';

const entry = (file: string) => join(REPO_ROOT, 'examples', file);
const ACCOUNT = { Ref: 'AWS::AccountId' };
type Props = Record<string, any>;

describe('DurableReconciler: one per table, serving every function of the table in the stack', () => {
  let stack: Stack;
  let template: Template;
  let saga: DurableFunction;
  let payments: DurableFunction;
  let topic: sns.Topic;
  const id = (type: string, prefix: string) => logicalId(template, type, prefix);
  const props = (type: string, prefix: string): Props => resources(template)[id(type, prefix)]?.Properties ?? {};
  const reconcilerFn = () => id('AWS::Lambda::Function', 'DurableReconciler');
  /** The logical id of the reconciler's resource of `type` whose id contains `part`. */
  const own = (type: string, part: string) => {
    const ids = Object.keys(resources(template)).filter(
      (key) => key.startsWith('DurableReconciler') && key.includes(part) && resources(template)[key]?.Type === type,
    );
    expect(ids).toHaveLength(1);
    return ids[0] as string;
  };

  beforeAll(() => {
    stack = newStack();
    const table = new DurableTable(stack, 'Runs');
    topic = new sns.Topic(stack, 'Pager');
    payments = new DurableFunction(stack, 'Payments', {
      entry: entry('order-saga/payments.ts'),
      functionName: 'payments',
      table,
      alarmActions: [new cloudwatchActions.SnsAction(topic)],
    });
    saga = new DurableFunction(stack, 'Saga', {
      entry: entry('order-saga/handler.ts'),
      functionName: 'order-saga',
      table,
      invokes: [payments],
    });
    template = Template.fromStack(stack);
  }, 60_000);

  it('is shared: both functions have the same reconciler, and the stack has one', () => {
    expect(saga.reconciler).toBe(payments.reconciler);
    expect(DurableReconciler.of(stack, saga.table)).toBe(saga.reconciler);
    template.resourceCountIs('AWS::Events::Rule', 2); // the reconciler's and the watchdog's
    expect(
      Object.keys(resources(template)).filter(
        (key) => key.startsWith('DurableReconciler') && resources(template)[key]?.Type === 'AWS::Lambda::Function',
      ),
    ).toHaveLength(1);
  });

  it('runs the bundled reconciler entry every 2 minutes, never retried (the next pass is the retry)', () => {
    expect(props('AWS::Lambda::Function', 'DurableReconciler')).toMatchObject({
      Runtime: 'nodejs22.x',
      Handler: 'index.handler',
      Timeout: 120,
      MemorySize: 512,
      Role: arnOf(own('AWS::IAM::Role', 'ServiceRole')),
    });
    const rules = Object.entries(resources(template)).filter(
      ([key, r]) => r.Type === 'AWS::Events::Rule' && key.startsWith('DurableReconciler'),
    );
    expect(rules).toHaveLength(1);
    expect(rules[0]?.[1].Properties).toMatchObject({
      ScheduleExpression: 'rate(2 minutes)',
      State: 'ENABLED',
      Targets: [{ Arn: arnOf(reconcilerFn()), RetryPolicy: { MaximumRetryAttempts: 0 } }],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: arnOf(reconcilerFn()),
      Principal: 'events.amazonaws.com',
      SourceArn: arnOf(rules[0]?.[0] as string),
    });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: reconcilerFn() },
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 120,
    });
  });

  it('is configured like a durable function: the table, its own schedule group and scheduler role, the dead-letter queue, the functions it serves', () => {
    expect(props('AWS::Lambda::Function', 'DurableReconciler').Environment.Variables).toEqual({
      DURABLE_TABLE_NAME: { Ref: id('AWS::DynamoDB::Table', 'RunsTable') },
      DURABLE_SCHEDULE_GROUP: { Ref: id('AWS::Scheduler::ScheduleGroup', 'DurableReconciler') },
      DURABLE_SCHEDULER_ROLE_ARN: arnOf(own('AWS::IAM::Role', 'SchedulerRole')),
      DURABLE_SCHEDULE_DLQ_ARN: arnOf(id('AWS::SQS::Queue', 'DurableReconciler')),
      [RECONCILER_ENV.functions]: {
        'Fn::Join': [
          '',
          [
            '["',
            { Ref: id('AWS::Lambda::Function', 'PaymentsFunction') },
            '","',
            { Ref: id('AWS::Lambda::Function', 'SagaFunction') },
            '"]',
          ],
        ],
      },
      // Payments has alarms (so metrics), one of them on the reconciler's `Failed`: its summary line publishes them.
      DURABLE_CUSTOM_METRICS: 'on',
      // Runs not pinned to a version yet are woken through their function's alias.
      DURABLE_FUNCTION_ALIASES: {
        'Fn::Join': [
          '',
          [
            '{"',
            { Ref: id('AWS::Lambda::Function', 'PaymentsFunction') },
            '":"live","',
            { Ref: id('AWS::Lambda::Function', 'SagaFunction') },
            '":"live"}',
          ],
        ],
      },
    });
  });

  it('grants the reconciler exactly: its logs, the table and its due index, its own schedules, PassRole of its scheduler role, invoking the served functions', () => {
    const table = id('AWS::DynamoDB::Table', 'RunsTable');
    const role = own('AWS::IAM::Role', 'ServiceRole');
    const schedulerRole = own('AWS::IAM::Role', 'SchedulerRole');
    const fns = [id('AWS::Lambda::Function', 'PaymentsFunction'), id('AWS::Lambda::Function', 'SagaFunction')];
    expect(statementsOfRole(template, role)).toEqual([
      {
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Effect: 'Allow',
        Resource: arnOf(id('AWS::Logs::LogGroup', 'DurableReconciler')),
      },
      {
        Action: [
          'dynamodb:BatchGetItem',
          'dynamodb:BatchWriteItem',
          'dynamodb:ConditionCheckItem',
          'dynamodb:DeleteItem',
          'dynamodb:GetItem',
          'dynamodb:PutItem',
          'dynamodb:Query',
          'dynamodb:UpdateItem',
        ],
        Effect: 'Allow',
        Resource: arnOf(table),
      },
      { Action: 'dynamodb:Query', Effect: 'Allow', Resource: { 'Fn::Join': ['', [arnOf(table), '/index/due']] } },
      {
        Action: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
        Effect: 'Allow',
        Resource: {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':scheduler:',
              { Ref: 'AWS::Region' },
              ':',
              ACCOUNT,
              ':schedule/',
              { Ref: id('AWS::Scheduler::ScheduleGroup', 'DurableReconciler') },
              '/*',
            ],
          ],
        },
      },
      {
        Action: 'iam:PassRole',
        Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
        Effect: 'Allow',
        Resource: arnOf(schedulerRole),
      },
      {
        Action: 'lambda:InvokeFunction',
        Effect: 'Allow',
        Resource: fns.flatMap((fn) => [arnOf(fn), qualifiedArnOf(fn)]),
      },
    ]);
    // Its scheduler role: trusted by Scheduler for its group only; invokes the served functions, dead-letters.
    expect(resources(template)[schedulerRole]?.Properties?.AssumeRolePolicyDocument.Statement).toEqual([
      {
        Action: 'sts:AssumeRole',
        Effect: 'Allow',
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: {
          StringEquals: { 'aws:SourceAccount': ACCOUNT },
          ArnEquals: { 'aws:SourceArn': arnOf(id('AWS::Scheduler::ScheduleGroup', 'DurableReconciler')) },
        },
      },
    ]);
    expect(statementsOfRole(template, schedulerRole)).toEqual([
      {
        Action: 'lambda:InvokeFunction',
        Effect: 'Allow',
        Resource: fns.flatMap((fn) => [arnOf(fn), qualifiedArnOf(fn)]),
      },
      { Action: 'sqs:SendMessage', Effect: 'Allow', Resource: arnOf(id('AWS::SQS::Queue', 'DurableReconciler')) },
    ]);
  });

  it('owns one encrypted, TLS-only dead-letter queue for the wake-ups of every function it serves, each scheduler role may send to it', () => {
    const queue = id('AWS::SQS::Queue', 'DurableReconciler');
    expect(resources(template)[queue]?.Properties).toEqual({
      MessageRetentionPeriod: 1_209_600,
      SqsManagedSseEnabled: true,
    });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queue }],
      PolicyDocument: {
        Statement: [
          {
            Action: 'sqs:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            Effect: 'Deny',
            Principal: { AWS: '*' },
            Resource: arnOf(queue),
          },
        ],
      },
    });
    for (const name of ['Saga', 'Payments']) {
      expect(statementsOfRole(template, id('AWS::IAM::Role', `${name}SchedulerRole`))).toContainEqual({
        Action: 'sqs:SendMessage',
        Effect: 'Allow',
        Resource: arnOf(queue),
      });
      expect(props('AWS::Lambda::Function', `${name}Function`).Environment.Variables.DURABLE_SCHEDULE_DLQ_ARN).toEqual(
        arnOf(queue),
      );
    }
  });

  it('alarms on its errors, on runs it keeps failing to wake (2 periods in a row), and on dead-lettered wake-ups, with the functions’ alarm actions', () => {
    const alarms = Object.entries(resources(template))
      .filter(([key, r]) => r.Type === 'AWS::CloudWatch::Alarm' && key.startsWith('DurableReconciler'))
      .map(([, r]) => r.Properties as Props);
    const pick = (a: Props) => ({
      MetricName: a.MetricName,
      Namespace: a.Namespace,
      Dimensions: a.Dimensions,
      Statistic: a.Statistic,
      EvaluationPeriods: a.EvaluationPeriods,
      DatapointsToAlarm: a.DatapointsToAlarm,
    });
    const byReconciler = [{ Name: 'FunctionName', Value: { Ref: reconcilerFn() } }];
    expect(alarms.map(pick)).toEqual(
      expect.arrayContaining([
        {
          MetricName: 'Errors',
          Namespace: 'AWS/Lambda',
          Dimensions: byReconciler,
          Statistic: 'Sum',
          EvaluationPeriods: 1,
          DatapointsToAlarm: 1,
        },
        {
          MetricName: 'Failed',
          Namespace: 'DurableLambda',
          Dimensions: byReconciler,
          Statistic: 'Sum',
          EvaluationPeriods: 2,
          DatapointsToAlarm: 2,
        },
        {
          MetricName: 'ApproximateNumberOfMessagesVisible',
          Namespace: 'AWS/SQS',
          Dimensions: [
            { Name: 'QueueName', Value: { 'Fn::GetAtt': [id('AWS::SQS::Queue', 'DurableReconciler'), 'QueueName'] } },
          ],
          Statistic: 'Maximum',
          EvaluationPeriods: 1,
          DatapointsToAlarm: 1,
        },
      ]),
    );
    expect(alarms).toHaveLength(3);
    for (const alarm of alarms) {
      expect(alarm).toMatchObject({
        Threshold: 1,
        Period: 300,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
      });
      // Payments asked for the pager; the saga asked for nothing: the pager once.
      expect(alarm.AlarmActions).toEqual([{ Ref: id('AWS::SNS::Topic', 'Pager') }]);
    }
  });
});

describe('DurableReconciler: per table and stack', () => {
  it('runs on the period the first function of its table asks for, and refuses a second, different one', () => {
    const stack = newStack();
    const table = new DurableTable(stack, 'Runs');
    const a = new DurableFunction(stack, 'A', {
      entry: entry('checkout/handler.ts'),
      table,
      reconcilerPeriod: Duration.minutes(30),
    });
    // Not asking is agreeing; asking for the same is too.
    new DurableFunction(stack, 'B', { entry: entry('reminder/handler.ts'), table });
    new DurableFunction(stack, 'C', {
      entry: entry('reminder/handler.ts'),
      table,
      reconcilerPeriod: Duration.minutes(30),
    });
    expect(
      () =>
        new DurableFunction(stack, 'D', {
          entry: entry('reminder/handler.ts'),
          table,
          reconcilerPeriod: Duration.minutes(5),
        }),
    ).toThrow(
      /Test\/D: reconcilerPeriod 5 minutes differs from the 30 minutes of the reconciler its table already has/,
    );
    const template = Template.fromStack(stack);
    const fn = stack.getLogicalId(a.reconciler.function.node.defaultChild as lambda.CfnFunction);
    // A longer period than Lambda's 15-minute limit still runs one invocation a period, 15 minutes at most.
    expect(resources(template)[fn]?.Properties).toMatchObject({ Timeout: 900 });
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(30 minutes)' });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: fn },
      MaximumEventAgeInSeconds: 1_800,
    });
    // Nobody asked for metrics or alarms: none, and the reconciler's summary line publishes nothing.
    expect(resources(template)[fn]?.Properties?.Environment.Variables.DURABLE_CUSTOM_METRICS).toBe('off');
    template.resourceCountIs('AWS::CloudWatch::Alarm', 0);
    expect(a.reconciler.alarms).toBeUndefined();
  });

  it('gives each table its own reconciler, serving only that table’s functions', () => {
    const stack = newStack();
    const a = new DurableFunction(stack, 'A', { entry: entry('checkout/handler.ts') });
    const b = new DurableFunction(stack, 'B', { entry: entry('reminder/handler.ts') });
    expect(a.reconciler).not.toBe(b.reconciler);
    const template = Template.fromStack(stack);
    // Per function: a failure queue and a wake-up queue; per reconciler: the DLQ of its functions' wake-ups.
    template.resourceCountIs('AWS::SQS::Queue', 6);
    const deadLetters = (fn: DurableFunction) =>
      resources(template)[stack.getLogicalId(fn.wakeQueue?.queue.node.defaultChild as sqs.CfnQueue)]?.Properties
        ?.RedrivePolicy.deadLetterTargetArn;
    expect(deadLetters(a)).toEqual(
      arnOf(stack.getLogicalId(a.reconciler.deadLetterQueue.node.defaultChild as sqs.CfnQueue)),
    );
    expect(deadLetters(b)).toEqual(
      arnOf(stack.getLogicalId(b.reconciler.deadLetterQueue.node.defaultChild as sqs.CfnQueue)),
    );
    const variables = (fn: DurableFunction) =>
      resources(template)[stack.getLogicalId(fn.reconciler.function.node.defaultChild as lambda.CfnFunction)]
        ?.Properties?.Environment.Variables[RECONCILER_ENV.functions];
    expect(variables(a)).toEqual({
      'Fn::Join': ['', ['["', { Ref: stack.getLogicalId(a.function.node.defaultChild as lambda.CfnFunction) }, '"]']],
    });
    expect(variables(b)).toEqual({
      'Fn::Join': ['', ['["', { Ref: stack.getLogicalId(b.function.node.defaultChild as lambda.CfnFunction) }, '"]']],
    });
  });
});

describe('aliased and versioned invocations', () => {
  function setup(onFailure?: lambda.IDestination) {
    const stack = newStack();
    const fn = new DurableFunction(stack, 'Checkout', {
      entry: entry('checkout/handler.ts'),
      retryAttempts: 1,
      ...(onFailure ? { onFailure } : {}),
    });
    fn.function.addAlias('current');
    // An alias of the version (its EventInvokeConfig belongs to the alias; the version gets its own).
    new lambda.Alias(stack, 'Canary', { aliasName: 'canary', version: fn.function.currentVersion });
    return { stack, fn, template: Template.fromStack(stack) };
  }

  it('get the failure destination and retry settings of $LATEST, each alias and version its own', () => {
    const { template } = setup();
    const fnId = logicalId(template, 'AWS::Lambda::Function', 'CheckoutFunction');
    const queue = arnOf(logicalId(template, 'AWS::SQS::Queue', 'CheckoutFailedInvocations'));
    const configs = Object.values(resources(template))
      .filter(
        (r) =>
          r.Type === 'AWS::Lambda::EventInvokeConfig' &&
          JSON.stringify(r.Properties?.FunctionName) === JSON.stringify({ Ref: fnId }),
      )
      .map((r) => ({ qualifier: r.Properties?.Qualifier, props: r.Properties, retain: r.DeletionPolicy }));
    const version = logicalId(template, 'AWS::Lambda::Version', 'CheckoutFunctionCurrentVersion');
    const current = logicalId(template, 'AWS::Lambda::Alias', 'CheckoutFunctionAliascurrent');
    const canary = logicalId(template, 'AWS::Lambda::Alias', 'Canary');
    // The construct's own `live` alias.
    const live = logicalId(template, 'AWS::Lambda::Alias', 'CheckoutAlias');
    const aliasName = (alias: string) => ({ 'Fn::Select': [7, { 'Fn::Split': [':', { Ref: alias }] }] });
    expect(configs.map((c) => c.qualifier)).toEqual(
      expect.arrayContaining([
        '$LATEST',
        { 'Fn::GetAtt': [version, 'Version'] },
        aliasName(live),
        aliasName(current),
        aliasName(canary),
      ]),
    );
    expect(configs).toHaveLength(5);
    for (const config of configs) {
      expect(config.props).toMatchObject({
        MaximumRetryAttempts: 1,
        MaximumEventAgeInSeconds: 21_600,
        DestinationConfig: { OnFailure: { Destination: queue } },
      });
    }
    // A version outlives the deployment that made it, and so does its configuration.
    const retained = configs.filter((c) => c.retain === 'Retain').map((c) => c.qualifier);
    expect(retained).toEqual([{ 'Fn::GetAtt': [version, 'Version'] }]);
  });

  it('use a given destination too, and a qualifier configured by the user is left as it is', () => {
    const stack = newStack();
    const topic = new sns.Topic(stack, 'Failures');
    const mine = new sns.Topic(stack, 'Mine');
    const fn = new DurableFunction(stack, 'Checkout', {
      entry: entry('checkout/handler.ts'),
      onFailure: new destinations.SnsDestination(topic),
    });
    fn.function.addAlias('live');
    fn.function.addAlias('beta', { onFailure: new destinations.SnsDestination(mine), retryAttempts: 0 });
    const template = Template.fromStack(stack);
    const destination = (alias: string) =>
      Object.values(resources(template)).find(
        (r) =>
          r.Type === 'AWS::Lambda::EventInvokeConfig' &&
          JSON.stringify(r.Properties?.Qualifier).includes(
            logicalId(template, 'AWS::Lambda::Alias', `CheckoutFunctionAlias${alias}`),
          ),
      )?.Properties;
    expect(destination('live')?.DestinationConfig).toEqual({
      OnFailure: { Destination: { Ref: logicalId(template, 'AWS::SNS::Topic', 'Failures') } },
    });
    expect(destination('beta')).toMatchObject({
      MaximumRetryAttempts: 0,
      DestinationConfig: { OnFailure: { Destination: { Ref: logicalId(template, 'AWS::SNS::Topic', 'Mine') } } },
    });
  });
});
