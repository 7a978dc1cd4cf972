/**
 * The DurableTable construct makes exactly the table `@durable-lambda/aws` is written for:
 * `durableTableDefinition` (packages/aws/src/dynamodb/table.ts) is the source of truth.
 */
import { durableTableDefinition, TTL_ATTRIBUTE } from '@durable-lambda/aws';
import { DURABLE_TABLE_LAYOUT, DurableTable } from '@durable-lambda/cdk';
import { RemovalPolicy, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import { describe, expect, it } from 'vitest';
import { newStack, resources } from './support';

function tableProperties(stack: Stack) {
  const template = Template.fromStack(stack);
  template.resourceCountIs('AWS::DynamoDB::Table', 1);
  const [table] = Object.values(resources(template)).filter((r) => r.Type === 'AWS::DynamoDB::Table');
  return { table: table as NonNullable<typeof table>, template };
}

const byName = (a: { AttributeName?: string }, b: { AttributeName?: string }) =>
  (a.AttributeName ?? '').localeCompare(b.AttributeName ?? '');

describe('DurableTable', () => {
  it('has the keys, attributes, indexes and billing of durableTableDefinition', () => {
    const stack = newStack();
    new DurableTable(stack, 'Runs');
    const { table } = tableProperties(stack);
    const p = table.Properties as Record<string, any>;
    const expected = durableTableDefinition('ignored');

    expect(p.BillingMode).toBe(expected.BillingMode);
    expect([...p.AttributeDefinitions].sort(byName)).toEqual([...(expected.AttributeDefinitions ?? [])].sort(byName));
    expect(p.KeySchema).toEqual(expected.KeySchema);
    const indexes = (list: Array<{ IndexName?: string }>) =>
      Object.fromEntries(list.map(({ IndexName, ...rest }) => [IndexName, rest]));
    // Multi-attribute keys: KeySchema order is part of the key (partition first, then sort attributes in order).
    expect(indexes(p.GlobalSecondaryIndexes)).toEqual(indexes(expected.GlobalSecondaryIndexes ?? []));
    expect(p.TimeToLiveSpecification).toEqual({ AttributeName: TTL_ATTRIBUTE, Enabled: true });
    expect(DURABLE_TABLE_LAYOUT.timeToLiveAttribute).toBe(TTL_ATTRIBUTE);
  });

  it('has the due index the reconciler reads: partition dueShard, sort dueAt, keys and expiresAt projected', () => {
    const stack = newStack();
    new DurableTable(stack, 'Runs');
    const { table } = tableProperties(stack);
    const due = ((table.Properties?.GlobalSecondaryIndexes ?? []) as Array<Record<string, unknown>>).find(
      (index) => index.IndexName === 'due',
    );
    expect(due).toEqual({
      IndexName: 'due',
      KeySchema: [
        { AttributeName: 'dueShard', KeyType: 'HASH' },
        { AttributeName: 'dueAt', KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['expiresAt'] },
    });
  });

  it('has point-in-time recovery, KMS encryption at rest, and is retained by default', () => {
    const stack = newStack();
    new DurableTable(stack, 'Runs');
    const { table } = tableProperties(stack);
    expect(table.Properties?.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    // SSEEnabled with no key: the AWS managed key alias/aws/dynamodb (KMS), stated explicitly.
    expect(table.Properties?.SSESpecification).toEqual({ SSEEnabled: true });
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.UpdateReplacePolicy).toBe('Retain');
    expect(table.Properties?.DeletionProtectionEnabled).toBe(false);
  });

  it('takes a customer managed key, a name, a removal policy and deletion protection', () => {
    const stack = newStack();
    const key = new kms.Key(stack, 'Key');
    new DurableTable(stack, 'Runs', {
      tableName: 'runs',
      encryptionKey: key,
      removalPolicy: RemovalPolicy.DESTROY,
      deletionProtection: true,
    });
    const { table, template } = tableProperties(stack);
    const keyId = Object.entries(resources(template)).find(([, r]) => r.Type === 'AWS::KMS::Key')?.[0];
    expect(table.Properties?.TableName).toBe('runs');
    expect(table.Properties?.SSESpecification).toEqual({
      SSEEnabled: true,
      SSEType: 'KMS',
      KMSMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] },
    });
    expect(table.DeletionPolicy).toBe('Delete');
    expect(table.Properties?.DeletionProtectionEnabled).toBe(true);
  });

  it('imports an existing table by name', () => {
    const stack = newStack();
    const imported = DurableTable.fromTableName(stack, 'Shared', 'durable-runs');
    expect(imported.tableName).toBe('durable-runs');
    expect(stack.resolve(imported.tableArn)).toEqual({
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':dynamodb:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          ':table/durable-runs',
        ],
      ],
    });
  });
});
