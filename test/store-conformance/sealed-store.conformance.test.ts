/**
 * The store conformance suites through `sealedStore` (issue 27, customer keys): the memory store,
 * the SQLite store (in memory) and DynamoDB Local, with every payload sealed by the KMS envelope codec (an in-process KMS) on
 * its way in and opened on its way out, answer as the stores do without it.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore, KmsEnvelopeCodec, LightKmsClient } from '@durable-lambda/aws';
import { MemoryStore, sealedStore } from '@durable-lambda/engine';
import { SqliteStore } from '@durable-lambda/local';
import { afterAll, beforeAll } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import { FakeKms } from '../support/fake-kms';
import { conformanceClock, describeStoreConformance } from './conformance';
import { describeControlConformance } from './control-conformance';

const kms = new FakeKms();
let codec: KmsEnvelopeCodec;
let sdk: DynamoDBDocumentClient;

beforeAll(async () => {
  sdk = localDocumentClient(await dynamoDbLocalEndpoint());
  const endpoint = await kms.start();
  const keyId = kms.createKey();
  const credentials = { accessKeyId: 'fn', secretAccessKey: 's' };
  codec = new KmsEnvelopeCodec({ kms: new LightKmsClient({ region: 'us-east-1', endpoint, credentials }), keyId });
}, 60_000);

const sqlite: SqliteStore[] = [];

afterAll(async () => {
  for (const store of sqlite) store.close();
  sdk?.destroy();
  await kms.stop();
});

async function memory() {
  const clock = conformanceClock();
  return { store: sealedStore(new MemoryStore(clock), codec), clock };
}

async function sqliteStore() {
  const clock = conformanceClock();
  const store = new SqliteStore({ path: ':memory:', clock });
  sqlite.push(store);
  return { store: sealedStore(store, codec), clock };
}

async function dynamo() {
  const clock = conformanceClock();
  const tableName = uniqueTableName('sealed');
  await createDurableTable(sdk, tableName);
  return { store: sealedStore(new DynamoDbStore({ client: sdk, tableName, clock }), codec), clock };
}

// The memory store counts a sealed payload's bytes (base64, a third more) against 6 MB: 5 MB is over.
describeStoreConformance('MemoryStore, sealed', memory, {
  knownDeviations: ['a 1 MB and a 5 MB step result round-trip exactly'],
});
describeControlConformance('MemoryStore, sealed', memory);
// As the memory store, the SQLite store counts a sealed payload's bytes against 6 MB.
describeStoreConformance('SqliteStore, sealed', sqliteStore, {
  knownDeviations: ['a 1 MB and a 5 MB step result round-trip exactly'],
});
describeStoreConformance('DynamoDbStore, sealed', dynamo);
