import type { CreateTableCommandInput, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  BY_FUNCTION_BASE_INDEX,
  BY_FUNCTION_INDEX,
  BY_STATUS_INDEX,
  DUE_INDEX,
  DUE_SHARD,
  FUNCTION_BASE,
  LIST_INDEX,
  LIST_KEY,
  PK,
  SK,
  TTL,
} from './layout';
import { clientDynamoDb } from './sdk-modules';

/** Options of {@link durableTableDefinition}. */
export interface DurableTableOptions {
  /**
   * Also the three listing indexes of layout 1 (`byFunction`, `byFunctionBase`, `byStatus`), as a
   * table made before layout 2 has them (see TABLE.md, "Moving a table to layout 2"). Default false.
   */
  legacyIndexes?: boolean;
}

/**
 * The CreateTable input of a durable-lambda table (layout: `packages/aws/TABLE.md`): on-demand
 * billing, string keys `pk`/`sk`, and two sparse indexes with multi-attribute keys on the run
 * item's own attributes (only run items have them, so nothing else is indexed):
 *
 * - `byFunctionTime`: partition `listKey` (`<function>#<shard>`, 32 shards a function), sort
 *   (`createdAt`, `runId`), projecting `status`, `functionName` and `expiresAt`: listing runs;
 * - `due`: partition `dueShard` (`due#0`…`due#63`), sort `dueAt` (N), projecting `expiresAt`: the
 *   runs the reconciler must look at.
 *
 * A run's frequent writes (lease, checkpoints) change none of their keys or projected attributes
 * and cost no index write. TTL on `ttl` is a separate request ({@link createDurableTable} makes it).
 */
export function durableTableDefinition(tableName: string, options: DurableTableOptions = {}): CreateTableCommandInput {
  const projection = (extra: string[] = []) => ({
    ProjectionType: 'INCLUDE' as const,
    NonKeyAttributes: ['expiresAt', ...extra],
  });
  const legacy = options.legacyIndexes === true;
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: PK, AttributeType: 'S' },
      { AttributeName: SK, AttributeType: 'S' },
      { AttributeName: LIST_KEY, AttributeType: 'S' },
      { AttributeName: 'createdAt', AttributeType: 'N' },
      { AttributeName: 'runId', AttributeType: 'S' },
      { AttributeName: DUE_SHARD, AttributeType: 'S' },
      { AttributeName: 'dueAt', AttributeType: 'N' },
      ...(legacy
        ? [
            { AttributeName: 'functionName', AttributeType: 'S' as const },
            { AttributeName: FUNCTION_BASE, AttributeType: 'S' as const },
            { AttributeName: 'status', AttributeType: 'S' as const },
          ]
        : []),
    ],
    KeySchema: [
      { AttributeName: PK, KeyType: 'HASH' },
      { AttributeName: SK, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: LIST_INDEX,
        KeySchema: [
          { AttributeName: LIST_KEY, KeyType: 'HASH' },
          { AttributeName: 'createdAt', KeyType: 'RANGE' },
          { AttributeName: 'runId', KeyType: 'RANGE' },
        ],
        Projection: projection(['status', 'functionName']),
      },
      {
        IndexName: DUE_INDEX,
        KeySchema: [
          { AttributeName: DUE_SHARD, KeyType: 'HASH' },
          { AttributeName: 'dueAt', KeyType: 'RANGE' },
        ],
        Projection: projection(),
      },
      ...(legacy ? legacyIndexes(projection()) : []),
    ],
  };
}

/** The three listing indexes of layout 1. */
function legacyIndexes(projection: { ProjectionType: 'INCLUDE'; NonKeyAttributes: string[] }) {
  return [
    {
      IndexName: BY_FUNCTION_INDEX,
      KeySchema: [
        { AttributeName: 'functionName', KeyType: 'HASH' as const },
        { AttributeName: 'status', KeyType: 'RANGE' as const },
        { AttributeName: 'createdAt', KeyType: 'RANGE' as const },
        { AttributeName: 'runId', KeyType: 'RANGE' as const },
      ],
      Projection: projection,
    },
    {
      IndexName: BY_FUNCTION_BASE_INDEX,
      KeySchema: [
        { AttributeName: FUNCTION_BASE, KeyType: 'HASH' as const },
        { AttributeName: 'status', KeyType: 'RANGE' as const },
        { AttributeName: 'createdAt', KeyType: 'RANGE' as const },
        { AttributeName: 'runId', KeyType: 'RANGE' as const },
      ],
      Projection: projection,
    },
    {
      IndexName: BY_STATUS_INDEX,
      KeySchema: [
        { AttributeName: 'status', KeyType: 'HASH' as const },
        { AttributeName: 'createdAt', KeyType: 'RANGE' as const },
        { AttributeName: 'runId', KeyType: 'RANGE' as const },
      ],
      Projection: projection,
    },
  ];
}

/** The TTL attribute of a durable-lambda table (epoch seconds). */
export const TTL_ATTRIBUTE = TTL;

/**
 * Creates a durable-lambda table, waits until it is active and enables TTL on `ttl`. For tests,
 * local tools and scripts; deployments create the table with the CDK construct. Takes an AWS SDK
 * client (`@aws-sdk/client-dynamodb`'s commands load at the call, never with the store).
 */
export async function createDurableTable(
  client: DynamoDBClient | DynamoDBDocumentClient,
  tableName: string,
  options: { timeoutMs?: number } & DurableTableOptions = {},
): Promise<void> {
  const { CreateTableCommand, DescribeTableCommand, UpdateTimeToLiveCommand } = await clientDynamoDb();
  const send = client.send.bind(client) as DynamoDBClient['send'];
  await send(new CreateTableCommand(durableTableDefinition(tableName, options)));
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
