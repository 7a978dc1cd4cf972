import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore } from '@durable-lambda/aws';
import { afterAll, beforeAll } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import { describeSignalSemantics } from './signal-semantics';

let client: DynamoDBDocumentClient;
let tableName = '';

beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
  tableName = uniqueTableName('signals');
  await createDurableTable(client, tableName);
}, 60_000);

afterAll(() => client?.destroy());

// Each test's runs have ids of their own: one table serves them all.
describeSignalSemantics('DynamoDbStore', (clock) => new DynamoDbStore({ client, tableName, clock }));
