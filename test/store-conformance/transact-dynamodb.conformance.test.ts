/**
 * Transactional writes on DynamoDB Local (`transact-conformance.ts`): the user's writes go in the
 * commit's own TransactWriteItems, through the AWS SDK's document client and the light client.
 */
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore, LightDynamoDbClient } from '@durable-lambda/aws';
import { afterAll, beforeAll } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import { conformanceClock } from './fixtures';
import { describeTransactConformance } from './transact-conformance';

let sdk: DynamoDBDocumentClient;
let light: LightDynamoDbClient;

beforeAll(async () => {
  const endpoint = await dynamoDbLocalEndpoint();
  sdk = localDocumentClient(endpoint);
  light = new LightDynamoDbClient({
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}, 60_000);

afterAll(() => {
  sdk?.destroy();
  light?.destroy();
});

const tables = {
  define: async (name: string, schema: { partitionKey: string; sortKey?: string }) => {
    const keys = [
      { AttributeName: schema.partitionKey, KeyType: 'HASH' as const },
      ...(schema.sortKey ? [{ AttributeName: schema.sortKey, KeyType: 'RANGE' as const }] : []),
    ];
    await sdk.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: keys,
        AttributeDefinitions: keys.map((k) => ({ AttributeName: k.AttributeName, AttributeType: 'S' as const })),
      }),
    );
  },
  get: async (name: string, key: Record<string, unknown>) =>
    (await sdk.send(new GetCommand({ TableName: name, Key: key, ConsistentRead: true }))).Item,
};

for (const [label, client] of [
  ['DynamoDbStore', () => sdk],
  ['DynamoDbStore on the light client', () => light],
] as const) {
  describeTransactConformance(label, async () => {
    const clock = conformanceClock();
    const tableName = uniqueTableName('transact');
    await createDurableTable(sdk, tableName);
    return { store: new DynamoDbStore({ client: client(), tableName, clock }), clock, tables };
  });
}
