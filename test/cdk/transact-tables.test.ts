/**
 * `DurableFunction({ transactTables, outboxTargets })` (issue 27): the function's role may write the
 * user's tables its transactional steps commit with their checkpoints (TransactWriteItems' item
 * actions and ConditionCheckItem), and only those tables; it and the reconciler may publish to the
 * outbox's buses and queues.
 */
import { join } from 'node:path';
import { DurableFunction, DurableTable } from '@durable-lambda/cdk';
import { Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { logicalId, newStack, REPO_ROOT, statementsOfRole } from './support';

const entry = join(REPO_ROOT, 'test/cdk/fixtures/version-pinning/v1.ts');

describe('DurableFunction transactTables', () => {
  it("grants the function's role the writes and condition checks of each table named, and none without", () => {
    const stack = newStack();
    const table = new DurableTable(stack, 'Runs');
    const orders = new dynamodb.Table(stack, 'Orders', {
      partitionKey: { name: 'id', type: dynamodb.AttributeType.STRING },
    });
    new DurableFunction(stack, 'Shop', { entry, table, transactTables: [orders] });
    new DurableFunction(stack, 'Plain', { entry, table });
    const template = Template.fromStack(stack);
    const ordersArn = { 'Fn::GetAtt': [logicalId(template, 'AWS::DynamoDB::Table', 'Orders'), 'Arn'] };
    const onOrders = (role: string) =>
      (
        statementsOfRole(template, logicalId(template, 'AWS::IAM::Role', role)) as Array<{
          Action: string | string[];
          Resource: unknown;
        }>
      )
        .filter((s) => JSON.stringify(s.Resource).includes(JSON.stringify(ordersArn)))
        .flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    const shop = onOrders('ShopServiceRole');
    for (const action of [
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:ConditionCheckItem',
    ]) {
      expect(shop).toContain(action);
    }
    expect(onOrders('PlainServiceRole')).toEqual([]);
  });

  it('lets the function and its reconciler put events on the outbox buses and send to its queues', () => {
    const stack = newStack();
    const table = new DurableTable(stack, 'Runs');
    const bus = new events.EventBus(stack, 'Bus');
    const queue = new sqs.Queue(stack, 'Mail', { fifo: true });
    new DurableFunction(stack, 'Shop', { entry, table, outboxTargets: { eventBuses: [bus], queues: [queue] } });
    const template = Template.fromStack(stack);
    const actionsOf = (role: string) =>
      (statementsOfRole(template, role) as Array<{ Action: string | string[] }>).flatMap((s) =>
        Array.isArray(s.Action) ? s.Action : [s.Action],
      );
    const roles = Object.keys(template.findResources('AWS::IAM::Role'));
    const shopRole = logicalId(template, 'AWS::IAM::Role', 'ShopServiceRole');
    expect(actionsOf(shopRole)).toEqual(expect.arrayContaining(['events:PutEvents', 'sqs:SendMessage']));
    const reconcilerRoles = roles.filter((r) => r.includes('Reconciler') && actionsOf(r).includes('events:PutEvents'));
    expect(reconcilerRoles.length).toBeGreaterThan(0);
  });
});
