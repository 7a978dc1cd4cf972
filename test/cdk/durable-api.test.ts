/** DurableApi: the control API behind an IAM-authenticated Function URL, with exact grants. */
import { join } from 'node:path';
import { API_TABLE_ACTIONS, DurableApi, DurableFunction, DurableTable } from '@durable-lambda/cdk';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { beforeAll, describe, expect, it } from 'vitest';
import { arnOf, logicalId, newStack, qualifiedArnOf, REPO_ROOT, resources, statementsOfRole } from './support';

const entry = (file: string) => join(REPO_ROOT, 'examples', file);

describe('DurableApi', () => {
  let template: Template;
  const id = (type: string, prefix: string) => logicalId(template, type, prefix);

  beforeAll(() => {
    const stack = newStack();
    const table = new DurableTable(stack, 'Runs');
    const checkout = new DurableFunction(stack, 'Checkout', { entry: entry('checkout/handler.ts'), table });
    const approval = new DurableFunction(stack, 'Approval', { entry: entry('approval/handler.ts'), table });
    const api = new DurableApi(stack, 'Api', { functions: [checkout] });
    api.serve(approval).serve(checkout);
    const operator = new iam.Role(stack, 'Operator', { assumedBy: new iam.AccountRootPrincipal() });
    api.grantInvokeUrl(operator);
    template = Template.fromStack(stack);
  }, 60_000);

  it('is a nodejs22.x function behind a Function URL with IAM auth, and outputs the URL', () => {
    const fn = id('AWS::Lambda::Function', 'ApiFunction');
    template.resourceCountIs('AWS::Lambda::Url', 1);
    template.hasResourceProperties('AWS::Lambda::Url', { AuthType: 'AWS_IAM', TargetFunctionArn: arnOf(fn) });
    // No resource policy opens the URL to anyone: callers need IAM permissions of their own.
    expect(
      Object.values(resources(template)).filter(
        (r) => r.Type === 'AWS::Lambda::Permission' && r.Properties?.FunctionName?.['Fn::GetAtt']?.[0] === fn,
      ),
    ).toEqual([]);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Timeout: 30,
      MemorySize: 512,
      Role: arnOf(id('AWS::IAM::Role', 'ApiServiceRole')),
    });
    // Under the fixed key `ApiUrl`, which the README's `describe-stacks --query` reads.
    expect(template.toJSON().Outputs).toEqual({
      ApiUrl: {
        Description: expect.stringContaining('SigV4'),
        Value: { 'Fn::GetAtt': [id('AWS::Lambda::Url', 'ApiFunctionFunctionUrl'), 'FunctionUrl'] },
      },
    });
  });

  it('outputs a second API under a key of its own, exports only when asked, and refuses a clash', () => {
    const stack = newStack();
    const table = new DurableTable(stack, 'Runs');
    const checkout = new DurableFunction(stack, 'Checkout', { entry: entry('checkout/handler.ts'), table });
    new DurableApi(stack, 'Api', { functions: [checkout], urlExportName: 'orders-api-url' });
    expect(() => new DurableApi(stack, 'Admin', { functions: [checkout] })).toThrow(
      /Test\/Admin: the stack already has a construct "ApiUrl".*give this DurableApi a urlOutputId of its own/,
    );
    new DurableApi(stack, 'Admin2', { functions: [checkout], urlOutputId: 'AdminApiUrl' });
    new DurableApi(stack, 'Quiet', { functions: [checkout], outputUrl: false });
    const outputs = Template.fromStack(stack).toJSON().Outputs;
    expect(Object.keys(outputs).sort()).toEqual(['AdminApiUrl', 'ApiUrl']);
    expect(outputs.ApiUrl.Export).toEqual({ Name: 'orders-api-url' });
    expect(outputs.AdminApiUrl.Export).toBeUndefined();
  });

  it('is configured with its table and the functions it serves, by name and ARN', () => {
    const fn = resources(template)[id('AWS::Lambda::Function', 'ApiFunction')]?.Properties ?? {};
    const checkout = id('AWS::Lambda::Function', 'CheckoutFunction');
    const approval = id('AWS::Lambda::Function', 'ApprovalFunction');
    expect(fn.Environment.Variables).toEqual({
      DURABLE_TABLE_NAME: { Ref: id('AWS::DynamoDB::Table', 'RunsTable') },
      DURABLE_API_FUNCTIONS: {
        'Fn::Join': [
          '',
          ['{"', { Ref: checkout }, '":"', arnOf(checkout), '","', { Ref: approval }, '":"', arnOf(approval), '"}'],
        ],
      },
      // Runs are started on each function's alias.
      DURABLE_API_ALIASES: {
        'Fn::Join': ['', ['{"', { Ref: checkout }, '":"live","', { Ref: approval }, '":"live"}']],
      },
    });
  });

  it("grants exactly: its log group, the table's items, the listing index, and invoking only the functions it serves", () => {
    const table = arnOf(id('AWS::DynamoDB::Table', 'RunsTable'));
    const checkout = id('AWS::Lambda::Function', 'CheckoutFunction');
    const approval = id('AWS::Lambda::Function', 'ApprovalFunction');
    expect(statementsOfRole(template, id('AWS::IAM::Role', 'ApiServiceRole'))).toEqual([
      {
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Effect: 'Allow',
        Resource: arnOf(id('AWS::Logs::LogGroup', 'ApiLogGroup')),
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
        Resource: table,
      },
      {
        Action: 'dynamodb:Query',
        Effect: 'Allow',
        // The listing index only: a table that keeps the layout-1 indexes (legacyRunIndexes) adds them.
        Resource: { 'Fn::Join': ['', [table, '/index/byFunctionTime']] },
      },
      {
        Action: 'lambda:InvokeFunction',
        Effect: 'Allow',
        Resource: [arnOf(checkout), qualifiedArnOf(checkout), arnOf(approval), qualifiedArnOf(approval)],
      },
    ]);
    expect(API_TABLE_ACTIONS).toContain('dynamodb:DeleteItem');
  });

  it('grants callers lambda:InvokeFunctionUrl for IAM-authenticated URLs only', () => {
    const statements = statementsOfRole(template, id('AWS::IAM::Role', 'Operator')) as Array<Record<string, unknown>>;
    expect(statements).toContainEqual({
      Action: 'lambda:InvokeFunctionUrl',
      Condition: { StringEquals: { 'lambda:FunctionUrlAuthType': 'AWS_IAM' } },
      Effect: 'Allow',
      Resource: arnOf(id('AWS::Lambda::Function', 'ApiFunction')),
    });
  });

  it('alarms on errors of its function', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: id('AWS::Lambda::Function', 'ApiFunction') } }],
      Threshold: 1,
    });
  });

  it('serves only functions of one table, and at least one', () => {
    const stack = newStack();
    const a = new DurableFunction(stack, 'A', { entry: entry('checkout/handler.ts') });
    const b = new DurableFunction(stack, 'B', { entry: entry('reminder/handler.ts') });
    expect(() => new DurableApi(stack, 'Api', { functions: [a, b] })).toThrow(/must share one table/);
    expect(() => new DurableApi(stack, 'Empty', { functions: [] })).toThrow(/at least one/);
  });
});
