/**
 * The store conformance suites on DynamoDB Local through the light DynamoDB client (the client the
 * production backend uses by default), as dynamodb-store.conformance.test.ts runs them through the
 * AWS SDK's document client: the same store, the same answers.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore, LightDynamoDbClient } from '@durable-lambda/aws';
import { afterAll, beforeAll } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import { conformanceClock, describeStoreConformance } from './conformance';
import { describeControlConformance } from './control-conformance';
import { describePinRunConformance } from './pin-run-conformance';

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

/** A store on a table of its own (made with the SDK's client: the light one speaks data requests only). */
async function setup() {
  const clock = conformanceClock();
  const tableName = uniqueTableName('light');
  await createDurableTable(sdk, tableName);
  return { store: new DynamoDbStore({ client: light, tableName, clock }), clock };
}

describeStoreConformance('DynamoDbStore on the light client', setup);
describeControlConformance('DynamoDbStore on the light client', setup);
describePinRunConformance('DynamoDbStore on the light client', setup);
