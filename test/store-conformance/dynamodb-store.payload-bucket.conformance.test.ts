/**
 * The store conformance suites on DynamoDB Local with a payload bucket (an in-process S3,
 * `test/support/fake-s3.ts`) and a threshold of 1 KiB, so every value a suite writes past it (run
 * inputs, results and errors, step, callback and context results, idempotency bodies) lives in the
 * bucket: every read the suites make (runs, leases, replays, pages, single operations, listings)
 * must resolve the references and answer exactly as the store without a bucket does.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore, LightDynamoDbClient, LightS3Client } from '@durable-lambda/aws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import { FakeS3 } from '../support/fake-s3';
import { conformanceClock, describeStoreConformance } from './conformance';
import { describeControlConformance } from './control-conformance';

const BUCKET = 'payloads';
let sdk: DynamoDBDocumentClient;
let light: LightDynamoDbClient;
const s3 = new FakeS3(BUCKET);
let objects: LightS3Client;

beforeAll(async () => {
  const endpoint = await dynamoDbLocalEndpoint();
  sdk = localDocumentClient(endpoint);
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  light = new LightDynamoDbClient({ region: 'us-east-1', endpoint, credentials });
  objects = new LightS3Client({ region: 'us-east-1', endpoint: await s3.start(), bucket: BUCKET, credentials });
}, 60_000);

afterAll(async () => {
  sdk?.destroy();
  light?.destroy();
  await s3.stop();
});

async function setup() {
  const clock = conformanceClock();
  const tableName = uniqueTableName('bucket');
  await createDurableTable(sdk, tableName);
  const store = new DynamoDbStore({
    client: light,
    tableName,
    clock,
    payloadObjects: objects,
    objectThresholdBytes: 1024,
  });
  return { store, clock };
}

describeStoreConformance('DynamoDbStore with a payload bucket', setup);
describeControlConformance('DynamoDbStore with a payload bucket', setup);

it('the suites above did put their large values in the bucket', () => {
  expect(s3.requests.PUT).toBeGreaterThanOrEqual(10);
  expect(s3.requests.GET).toBeGreaterThanOrEqual(10);
});
