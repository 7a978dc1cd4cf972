import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore } from '@durable-lambda/aws';
import { afterAll, beforeAll } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import { conformanceClock, describeStoreConformance } from './conformance';
import { describeControlConformance } from './control-conformance';
import { describePinRunConformance } from './pin-run-conformance';

let client: DynamoDBDocumentClient;

beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
}, 60_000);

afterAll(() => client?.destroy());

/** A store on a table of its own: every test starts empty. */
async function setup() {
  const clock = conformanceClock();
  const tableName = uniqueTableName('conformance');
  await createDurableTable(client, tableName);
  return { store: new DynamoDbStore({ client, tableName, clock }), clock };
}

describeStoreConformance('DynamoDbStore', setup);
describeControlConformance('DynamoDbStore', setup);
describePinRunConformance('DynamoDbStore', setup);
