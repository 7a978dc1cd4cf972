/**
 * DurableFunction: every resource it makes, each IAM statement with its exact actions and
 * resources, the environment the production backend reads, async-invoke failures and alarms.
 */
import { join } from 'node:path';
import { PRODUCTION_ENV } from '@durable-lambda/aws';
import { DURABLE_ENV, DurableFunction, DurableTable, FUNCTION_TABLE_ACTIONS } from '@durable-lambda/cdk';
import { Duration, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as destinations from 'aws-cdk-lib/aws-lambda-destinations';
import * as sns from 'aws-cdk-lib/aws-sns';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  arnOf,
  logicalId,
  newStack,
  policiesOfRole,
  qualifiedArnOf,
  REPO_ROOT,
  resources,
  statementsOfRole,
} from './support';

const entry = (file: string) => join(REPO_ROOT, 'examples', file);
const ACCOUNT = { Ref: 'AWS::AccountId' };

describe('DURABLE_ENV', () => {
  it('names the variables the production backend reads', () => {
    expect(DURABLE_ENV.tableName).toBe(PRODUCTION_ENV.tableName);
    expect(DURABLE_ENV.scheduleGroup).toBe(PRODUCTION_ENV.scheduleGroup);
    expect(DURABLE_ENV.schedulerRoleArn).toBe(PRODUCTION_ENV.schedulerRoleArn);
    expect(DURABLE_ENV.retentionDays).toBe(PRODUCTION_ENV.retentionDays);
    expect(DURABLE_ENV.scheduleDeadLetterArn).toBe(PRODUCTION_ENV.scheduleDeadLetterArn);
  });
});

describe('DurableFunction: two functions sharing a table, one invoking the other, with alarms', () => {
  let stack: Stack;
  let template: Template;
  let saga: DurableFunction;
  let payments: DurableFunction;
  const id = (type: string, prefix: string) => logicalId(template, type, prefix);

  beforeAll(() => {
    stack = newStack();
    const table = new DurableTable(stack, 'Runs');
    payments = new DurableFunction(stack, 'Payments', {
      entry: entry('order-saga/payments.ts'),
      functionName: 'payments',
      table,
      alarms: true,
    });
    saga = new DurableFunction(stack, 'Saga', {
      entry: entry('order-saga/handler.ts'),
      functionName: 'order-saga',
      table,
      environment: { INVENTORY_URL: 'https://inventory.example.com', MAILER_URL: 'https://mail.example.com' },
      retention: Duration.days(7),
      inProcessWaitThreshold: Duration.seconds(10),
      expectedRunDuration: Duration.hours(2),
      invokes: [payments],
      alarms: true,
    });
    template = Template.fromStack(stack);
  }, 60_000);

  it('makes exactly these resources', () => {
    const counts: Record<string, number> = {};
    for (const r of Object.values(resources(template))) counts[r.Type] = (counts[r.Type] ?? 0) + 1;
    expect(counts).toEqual({
      'AWS::DynamoDB::Table': 1, // shared
      'AWS::Lambda::Function': 4, // saga, payments, the table's watchdog and reconciler
      'AWS::Logs::LogGroup': 4,
      'AWS::IAM::Role': 7, // per function and the reconciler: execution + scheduler; the watchdog's
      'AWS::IAM::Policy': 9, // per function: execution, invokes, scheduler; the watchdog's; the reconciler's two
      'AWS::Scheduler::ScheduleGroup': 3, // per function, and the reconciler's
      'AWS::SQS::Queue': 5, // per function: failure destination, wake-up queue; the reconciler's DLQ of every wake-up
      'AWS::SQS::QueuePolicy': 5, // TLS only
      'AWS::Lambda::EventSourceMapping': 2, // per function: its wake-up queue feeding its alias
      'AWS::Lambda::EventInvokeConfig': 7, // per function ($LATEST, its version, its alias), the reconciler's (no retries)
      'AWS::Lambda::Version': 2, // per function: this deploy's version (retained when replaced)
      'AWS::Lambda::Alias': 2, // per function: `live`, where runs start
      'AWS::CloudWatch::Alarm': 11, // 4 per function, 3 of the reconciler (dead-lettered wake-ups: one, shared)
      'AWS::Events::Rule': 2, // the watchdog's 5-minute and the reconciler's 2-minute schedule
      'AWS::Lambda::Permission': 2, // EventBridge may invoke the watchdog and the reconciler
    });
  });

  it('runs nodejs22.x on arm64, bundled code, with its own log group and recursion allowed', () => {
    const fn = resources(template)[id('AWS::Lambda::Function', 'SagaFunction')]?.Properties ?? {};
    expect(fn).toMatchObject({
      FunctionName: 'order-saga',
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      MemorySize: 1024,
      Timeout: 300,
      RecursiveLoop: 'Allow',
      Role: arnOf(id('AWS::IAM::Role', 'SagaServiceRole')),
      LoggingConfig: { LogGroup: { Ref: id('AWS::Logs::LogGroup', 'SagaLogGroup') } },
    });
    template.hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: '/aws/lambda/order-saga',
      RetentionInDays: 30,
    });
  });

  it('sets the environment variables the production entry reads', () => {
    const fn = resources(template)[id('AWS::Lambda::Function', 'SagaFunction')]?.Properties ?? {};
    expect(fn.Environment.Variables).toEqual({
      INVENTORY_URL: 'https://inventory.example.com',
      MAILER_URL: 'https://mail.example.com',
      DURABLE_TABLE_NAME: { Ref: id('AWS::DynamoDB::Table', 'RunsTable') },
      DURABLE_SCHEDULE_GROUP: { Ref: id('AWS::Scheduler::ScheduleGroup', 'SagaScheduleGroup') },
      DURABLE_SCHEDULER_ROLE_ARN: arnOf(id('AWS::IAM::Role', 'SagaSchedulerRole')),
      DURABLE_SCHEDULE_DLQ_ARN: arnOf(id('AWS::SQS::Queue', 'DurableReconciler')),
      DURABLE_RETENTION_DAYS: '7',
      DURABLE_IN_PROCESS_WAIT_MS: '10000',
      DURABLE_VERSION_PINNING: 'version',
      DURABLE_WAKE_QUEUE_URL: { Ref: id('AWS::SQS::Queue', 'SagaWakeUpsQueue') },
      // Alarms watch its run metrics: it publishes them.
      DURABLE_CUSTOM_METRICS: 'on',
      // The saga invokes payments: its child runs start on payments' alias.
      DURABLE_FUNCTION_ALIASES: {
        'Fn::Join': ['', ['{"', { Ref: id('AWS::Lambda::Function', 'PaymentsFunction') }, '":"live"}']],
      },
    });
    const other = resources(template)[id('AWS::Lambda::Function', 'PaymentsFunction')]?.Properties ?? {};
    expect(other.Environment.Variables.DURABLE_RETENTION_DAYS).toBe('30');
    expect(other.Environment.Variables).not.toHaveProperty('DURABLE_IN_PROCESS_WAIT_MS');
  });

  it("grants the function exactly: its log group, its wake-up queue, its table's items, its group's schedules, PassRole to Scheduler, its failure queue", () => {
    const role = id('AWS::IAM::Role', 'SagaServiceRole');
    expect(resources(template)[role]?.Properties?.AssumeRolePolicyDocument).toEqual({
      Version: '2012-10-17',
      Statement: [{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } }],
    });
    expect(resources(template)[role]?.Properties?.ManagedPolicyArns).toBeUndefined();
    const policies = policiesOfRole(template, role);
    expect(Object.keys(policies).sort()).toEqual(
      [id('AWS::IAM::Policy', 'SagaInvokePolicy'), id('AWS::IAM::Policy', 'SagaServiceRoleDefaultPolicy')].sort(),
    );
    expect(policies[id('AWS::IAM::Policy', 'SagaServiceRoleDefaultPolicy')]).toEqual([
      {
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Effect: 'Allow',
        Resource: arnOf(id('AWS::Logs::LogGroup', 'SagaLogGroup')),
      },
      // Waits and re-armed wake-ups are sent to its wake-up queue; its event source polls it.
      { Action: 'sqs:SendMessage', Effect: 'Allow', Resource: arnOf(id('AWS::SQS::Queue', 'SagaWakeUpsQueue')) },
      {
        Action: [
          'sqs:ReceiveMessage',
          'sqs:ChangeMessageVisibility',
          'sqs:GetQueueUrl',
          'sqs:DeleteMessage',
          'sqs:GetQueueAttributes',
        ],
        Effect: 'Allow',
        Resource: arnOf(id('AWS::SQS::Queue', 'SagaWakeUpsQueue')),
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
        Resource: arnOf(id('AWS::DynamoDB::Table', 'RunsTable')),
      },
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
              { Ref: id('AWS::Scheduler::ScheduleGroup', 'SagaScheduleGroup') },
              '/*',
            ],
          ],
        },
      },
      {
        Action: 'iam:PassRole',
        Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
        Effect: 'Allow',
        Resource: arnOf(id('AWS::IAM::Role', 'SagaSchedulerRole')),
      },
      {
        Action: 'sqs:SendMessage',
        Effect: 'Allow',
        Resource: arnOf(id('AWS::SQS::Queue', 'SagaFailedInvocations')),
      },
    ]);
    expect([...FUNCTION_TABLE_ACTIONS]).toEqual(
      (policies[id('AWS::IAM::Policy', 'SagaServiceRoleDefaultPolicy')]?.[3] as { Action: string[] } | undefined)
        ?.Action,
    );
  });

  it('may invoke itself and the function it invokes, and that function may invoke it back (any version or alias)', () => {
    const sagaFn = id('AWS::Lambda::Function', 'SagaFunction');
    const paymentsFn = id('AWS::Lambda::Function', 'PaymentsFunction');
    const invoke = (...fns: string[]) => [
      {
        Action: 'lambda:InvokeFunction',
        Effect: 'Allow',
        Resource: fns.flatMap((fn) => [arnOf(fn), qualifiedArnOf(fn)]),
      },
    ];
    expect(
      policiesOfRole(template, id('AWS::IAM::Role', 'SagaServiceRole'))[id('AWS::IAM::Policy', 'SagaInvokePolicy')],
    ).toEqual(invoke(sagaFn, paymentsFn));
    expect(
      policiesOfRole(template, id('AWS::IAM::Role', 'PaymentsServiceRole'))[
        id('AWS::IAM::Policy', 'PaymentsInvokePolicy')
      ],
    ).toEqual(invoke(paymentsFn, sagaFn));
    // The invoke grants are a separate policy: the function does not wait for (or depend on) a policy naming it.
    const dependsOn = resources(template)[sagaFn]?.DependsOn ?? [];
    expect(dependsOn).not.toContain(id('AWS::IAM::Policy', 'SagaInvokePolicy'));
  });

  it('gives EventBridge Scheduler a role trusted only by Scheduler, for this account and this group, that may invoke only this function and dead-letter its wake-ups', () => {
    const role = id('AWS::IAM::Role', 'SagaSchedulerRole');
    expect(resources(template)[role]?.Properties?.AssumeRolePolicyDocument).toEqual({
      Version: '2012-10-17',
      Statement: [
        {
          Action: 'sts:AssumeRole',
          Effect: 'Allow',
          Principal: { Service: 'scheduler.amazonaws.com' },
          Condition: {
            StringEquals: { 'aws:SourceAccount': ACCOUNT },
            ArnEquals: { 'aws:SourceArn': arnOf(id('AWS::Scheduler::ScheduleGroup', 'SagaScheduleGroup')) },
          },
        },
      ],
    });
    const fn = id('AWS::Lambda::Function', 'SagaFunction');
    expect(statementsOfRole(template, role)).toEqual([
      { Action: 'lambda:InvokeFunction', Effect: 'Allow', Resource: [arnOf(fn), qualifiedArnOf(fn)] },
      { Action: 'sqs:SendMessage', Effect: 'Allow', Resource: arnOf(id('AWS::SQS::Queue', 'DurableReconciler')) },
    ]);
  });

  it('sends asynchronous invocations that failed every attempt to an encrypted, TLS-only queue', () => {
    const queue = id('AWS::SQS::Queue', 'SagaFailedInvocations');
    expect(resources(template)[queue]?.Properties).toEqual({
      MessageRetentionPeriod: 1_209_600,
      SqsManagedSseEnabled: true,
    });
    expect(resources(template)[queue]?.DeletionPolicy).toBe('Retain');
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: id('AWS::Lambda::Function', 'SagaFunction') },
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 21_600,
      DestinationConfig: { OnFailure: { Destination: arnOf(queue) } },
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
  });

  it('alarms on failed runs, stuck runs, throttles, async-invoke failures and dead-lettered wake-ups', () => {
    const fn = { Ref: id('AWS::Lambda::Function', 'SagaFunction') };
    const alarms = Object.entries(resources(template))
      .filter(([key, r]) => r.Type === 'AWS::CloudWatch::Alarm' && key.startsWith('Saga'))
      .map(([, r]) => r.Properties as Record<string, unknown>);
    const common = {
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
      Period: 300,
    };
    const pick = ({ Namespace, MetricName, Dimensions, Statistic, ...rest }: Record<string, unknown>) => ({
      metric: { Namespace, MetricName, Dimensions, Statistic },
      rest,
    });
    const single = alarms.filter((a) => !a.Metrics);
    const metrics = single.map((a) => {
      const { metric, rest } = pick(a);
      expect(rest).toMatchObject(common);
      return metric;
    });
    const byFunction = [{ Name: 'FunctionName', Value: fn }];
    expect(metrics).toEqual(
      expect.arrayContaining([
        { Namespace: 'DurableLambda', MetricName: 'RunsFailed', Dimensions: byFunction, Statistic: 'Sum' },
        { Namespace: 'DurableLambda', MetricName: 'StuckRuns', Dimensions: byFunction, Statistic: 'Maximum' },
        { Namespace: 'AWS/Lambda', MetricName: 'Throttles', Dimensions: byFunction, Statistic: 'Sum' },
      ]),
    );
    expect(metrics).toHaveLength(3);
    // Dead-lettered wake-ups: the reconciler's alarm on the dead-letter queue the functions share.
    expect(saga.alarms?.wakeUpsDeadLettered).toBe(saga.reconciler.alarms?.deadLetteredWakeUps);
    expect(payments.alarms?.wakeUpsDeadLettered).toBe(saga.reconciler.alarms?.deadLetteredWakeUps);
    // Async failures: events in the failure queue, or dropped by any version or alias (Lambda sums
    // every qualifier under the FunctionName dimension).
    const [asyncFailures, ...others] = alarms.filter((a) => a.Metrics);
    expect(others).toEqual([]);
    const { Metrics, ...rest } = asyncFailures as { Metrics: Array<Record<string, any>> };
    const { Period: _period, ...commonMath } = common;
    expect(rest).toMatchObject(commonMath);
    expect(Metrics.find((m) => m.Expression)).toMatchObject({
      Expression: 'FILL(queued, 0) + FILL(dropped, 0)',
      ReturnData: true,
    });
    const stat = (name: string) => Metrics.find((m) => m.Id === name)?.MetricStat;
    expect(stat('queued')).toEqual({
      Metric: {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [
          { Name: 'QueueName', Value: { 'Fn::GetAtt': [id('AWS::SQS::Queue', 'SagaFailedInvocations'), 'QueueName'] } },
        ],
      },
      Period: 300,
      Stat: 'Maximum',
    });
    expect(stat('dropped')).toEqual({
      Metric: { Namespace: 'AWS/Lambda', MetricName: 'AsyncEventsDropped', Dimensions: byFunction },
      Period: 300,
      Stat: 'Sum',
    });
    expect(saga.alarms?.stuckRuns.node.defaultChild).toBeDefined();
  });

  it("has one watchdog per table that counts each function's stuck runs (every alias and version) with a Query on the listing index only", () => {
    const watchdogRole = id('AWS::IAM::Role', 'DurableRunWatchdog');
    const table = id('AWS::DynamoDB::Table', 'RunsTable');
    expect(statementsOfRole(template, watchdogRole)).toEqual([
      {
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Effect: 'Allow',
        Resource: arnOf(id('AWS::Logs::LogGroup', 'DurableRunWatchdog')),
      },
      {
        Action: 'dynamodb:Query',
        Effect: 'Allow',
        Resource: { 'Fn::Join': ['', [arnOf(table), '/index/byFunctionTime']] },
      },
      {
        Action: ['lambda:ListAliases', 'lambda:ListVersionsByFunction'],
        Effect: 'Allow',
        Resource: [
          arnOf(id('AWS::Lambda::Function', 'PaymentsFunction')),
          arnOf(id('AWS::Lambda::Function', 'SagaFunction')),
        ],
      },
    ]);
    const fn = resources(template)[id('AWS::Lambda::Function', 'DurableRunWatchdog')]?.Properties ?? {};
    expect(fn.Environment.Variables).toEqual({
      DURABLE_TABLE_NAME: { Ref: table },
      DURABLE_WATCHDOG_FUNCTIONS: {
        'Fn::Join': [
          '',
          [
            '[{"name":"',
            { Ref: id('AWS::Lambda::Function', 'PaymentsFunction') },
            '","thresholdMs":86400000},{"name":"',
            { Ref: id('AWS::Lambda::Function', 'SagaFunction') },
            '","thresholdMs":7200000}]',
          ],
        ],
      },
    });
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      State: 'ENABLED',
      Targets: [
        { Arn: arnOf(id('AWS::Lambda::Function', 'DurableRunWatchdog')), RetryPolicy: { MaximumRetryAttempts: 0 } },
      ],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'events.amazonaws.com',
      SourceArn: arnOf(id('AWS::Events::Rule', 'DurableRunWatchdog')),
    });
  });
});

describe('DurableFunction: options', () => {
  it('creates a table of its own when given none, and takes timeout, memory, architecture, log retention', async () => {
    const { Architecture } = await import('aws-cdk-lib/aws-lambda');
    const { RetentionDays } = await import('aws-cdk-lib/aws-logs');
    const stack = newStack();
    new DurableFunction(stack, 'Reminder', {
      entry: entry('reminder/handler.ts'),
      timeout: Duration.minutes(15),
      memorySize: 256,
      architecture: Architecture.X86_64,
      logRetention: RetentionDays.ONE_YEAR,
    });
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Timeout: 900,
      MemorySize: 256,
      Architectures: ['x86_64'],
      Environment: {
        Variables: { DURABLE_TABLE_NAME: { Ref: logicalId(template, 'AWS::DynamoDB::Table', 'ReminderTable') } },
      },
    });
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 365 });
  });

  it('uses a given failure destination (no queue) and alarms on dropped or undelivered events', () => {
    const stack = newStack();
    const topic = new sns.Topic(stack, 'Failures');
    const fn = new DurableFunction(stack, 'Checkout', {
      entry: entry('checkout/handler.ts'),
      onFailure: new destinations.SnsDestination(topic),
      alarmActions: [new cloudwatchActions.SnsAction(topic)],
    });
    const template = Template.fromStack(stack);
    // Only the wake-ups' dead-letter queue, which the table's reconciler owns, and the wake-up
    // queue: no failure queue.
    template.resourceCountIs('AWS::SQS::Queue', 2);
    logicalId(template, 'AWS::SQS::Queue', 'DurableReconciler');
    logicalId(template, 'AWS::SQS::Queue', 'CheckoutWakeUpsQueue');
    expect(fn.failureQueue).toBeUndefined();
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      DestinationConfig: { OnFailure: { Destination: { Ref: logicalId(template, 'AWS::SNS::Topic', 'Failures') } } },
    });
    const math = Object.values(resources(template)).find(
      (r) => r.Type === 'AWS::CloudWatch::Alarm' && r.Properties?.Metrics,
    )?.Properties?.Metrics as Array<{ Expression?: string; MetricStat?: { Metric: { MetricName: string } } }>;
    expect(math.find((m) => m.Expression)?.Expression).toBe('FILL(dropped, 0) + FILL(undelivered, 0)');
    expect(math.flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric.MetricName] : [])).sort()).toEqual([
      'AsyncEventsDropped',
      'DestinationDeliveryFailures',
    ]);
    const topicRef = { Ref: logicalId(template, 'AWS::SNS::Topic', 'Failures') };
    // Every alarm, the reconciler's included, goes to the actions given.
    const alarms = Object.values(resources(template)).filter((r) => r.Type === 'AWS::CloudWatch::Alarm');
    expect(alarms).toHaveLength(7);
    for (const alarm of alarms) expect(alarm.Properties?.AlarmActions).toEqual([topicRef]);
  });

  it('refuses to let functions of different tables invoke each other, and to keep runs for 0 days', () => {
    const stack = newStack();
    const a = new DurableFunction(stack, 'A', { entry: entry('checkout/handler.ts') });
    const b = new DurableFunction(stack, 'B', { entry: entry('reminder/handler.ts') });
    expect(() => a.invokes(b)).toThrow(/must share one table/);
    expect(
      () => new DurableFunction(stack, 'C', { entry: entry('checkout/handler.ts'), retention: Duration.days(0) }),
    ).toThrow(/retention must be positive/);
  });

  it('grants others the right to start runs (the function, any version or alias)', async () => {
    const { Role, ServicePrincipal } = await import('aws-cdk-lib/aws-iam');
    const stack = newStack();
    const fn = new DurableFunction(stack, 'Checkout', { entry: entry('checkout/handler.ts') });
    const caller = new Role(stack, 'Caller', { assumedBy: new ServicePrincipal('states.amazonaws.com') });
    fn.grantStartRuns(caller);
    const template = Template.fromStack(stack);
    const fnId = logicalId(template, 'AWS::Lambda::Function', 'CheckoutFunction');
    expect(statementsOfRole(template, logicalId(template, 'AWS::IAM::Role', 'Caller'))).toEqual([
      { Action: 'lambda:InvokeFunction', Effect: 'Allow', Resource: [arnOf(fnId), qualifiedArnOf(fnId)] },
    ]);
  });
});
