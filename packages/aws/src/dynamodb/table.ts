import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  type DynamoDBClient,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  BY_FUNCTION_BASE_INDEX,
  BY_FUNCTION_INDEX,
  BY_STATUS_INDEX,
  DUE_INDEX,
  DUE_SHARD,
  FUNCTION_BASE,
  PK,
  SK,
  TTL,
} from './layout';

/**
 * The CreateTable input of a durable-lambda table (layout: `packages/aws/TABLE.md`): on-demand
 * billing, string keys `pk`/`sk`, three indexes listing runs, with multi-attribute keys on
 * the run item's own attributes (only run items have them all, so nothing else is indexed), and
 * the due index the reconciler reads:
 *
 * - `byFunction`: partition `functionName`, sort (`status`, `createdAt`, `runId`);
 * - `byFunctionBase`: partition `functionBase` (the bare name of a run recorded as `orders:7`),
 *   sort (`status`, `createdAt`, `runId`); sparse, as only runs with a qualified name carry it;
 * - `byStatus`: partition `status`, sort (`createdAt`, `runId`);
 * - `due`: partition `dueShard` (`due#0`…`due#15`), sort `dueAt` (N); sparse, as only run items
 *   with a `dueAt` carry the two.
 *
 * They project keys and `expiresAt` only (so the frequent run writes cost no listing-index
 * writes); a reader reads the runs it returns by key. TTL on `ttl` is a separate request
 * ({@link createDurableTable} makes it).
 */
export function durableTableDefinition(tableName: string): CreateTableCommandInput {
  const projection = { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: ['expiresAt'] };
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: PK, AttributeType: 'S' },
      { AttributeName: SK, AttributeType: 'S' },
      { AttributeName: 'functionName', AttributeType: 'S' },
      { AttributeName: FUNCTION_BASE, AttributeType: 'S' },
      { AttributeName: 'status', AttributeType: 'S' },
      { AttributeName: 'createdAt', AttributeType: 'N' },
      { AttributeName: 'runId', AttributeType: 'S' },
      { AttributeName: DUE_SHARD, AttributeType: 'S' },
      { AttributeName: 'dueAt', AttributeType: 'N' },
    ],
    KeySchema: [
      { AttributeName: PK, KeyType: 'HASH' },
      { AttributeName: SK, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: BY_FUNCTION_INDEX,
        KeySchema: [
          { AttributeName: 'functionName', KeyType: 'HASH' },
          { AttributeName: 'status', KeyType: 'RANGE' },
          { AttributeName: 'createdAt', KeyType: 'RANGE' },
          { AttributeName: 'runId', KeyType: 'RANGE' },
        ],
        Projection: projection,
      },
      {
        IndexName: BY_FUNCTION_BASE_INDEX,
        KeySchema: [
          { AttributeName: FUNCTION_BASE, KeyType: 'HASH' },
          { AttributeName: 'status', KeyType: 'RANGE' },
          { AttributeName: 'createdAt', KeyType: 'RANGE' },
          { AttributeName: 'runId', KeyType: 'RANGE' },
        ],
        Projection: projection,
      },
      {
        IndexName: BY_STATUS_INDEX,
        KeySchema: [
          { AttributeName: 'status', KeyType: 'HASH' },
          { AttributeName: 'createdAt', KeyType: 'RANGE' },
          { AttributeName: 'runId', KeyType: 'RANGE' },
        ],
        Projection: projection,
      },
      {
        IndexName: DUE_INDEX,
        KeySchema: [
          { AttributeName: DUE_SHARD, KeyType: 'HASH' },
          { AttributeName: 'dueAt', KeyType: 'RANGE' },
        ],
        Projection: projection,
      },
    ],
  };
}

/** The TTL attribute of a durable-lambda table (epoch seconds). */
export const TTL_ATTRIBUTE = TTL;

/**
 * Creates a durable-lambda table, waits until it is active and enables TTL on `ttl`. For tests,
 * local tools and scripts; deployments create the table with the CDK construct.
 */
export async function createDurableTable(
  client: DynamoDBClient | DynamoDBDocumentClient,
  tableName: string,
  options: { timeoutMs?: number } = {},
): Promise<void> {
  const send = client.send.bind(client) as DynamoDBClient['send'];
  await send(new CreateTableCommand(durableTableDefinition(tableName)));
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  for (let delay = 50; ; delay = Math.min(delay * 2, 2_000)) {
    const { Table } = await send(new DescribeTableCommand({ TableName: tableName }));
    const indexesActive = (Table?.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === 'ACTIVE');
    if (Table?.TableStatus === 'ACTIVE' && indexesActive) break;
    if (Date.now() > deadline) throw new Error(`table ${tableName} did not become active in time`);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
  await send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: TTL, Enabled: true },
    }),
  );
}
