/**
 * Payloads encrypted with a customer's KMS key (issue 27), on DynamoDB Local with an in-process
 * KMS and S3: through `sealedStore(DynamoDbStore, KmsEnvelopeCodec)` a run's input, results and
 * errors are ciphertext in the table and the bucket, readable through the store with kms:Decrypt,
 * unreadable without it or under another run's name; KMS is asked once per run, not per value.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  createDurableTable,
  DynamoDbStore,
  KmsEnvelopeCodec,
  LightKmsClient,
  LightS3Client,
  PayloadSealError,
  runPk,
  SEALED_PREFIX,
} from '@durable-lambda/aws';
import { sealedStore } from '@durable-lambda/engine';
import { TestDriver } from '@durable-lambda/local';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executionOp, runRecord } from '../../store-conformance/fixtures';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../../support/dynamodb-local';
import { FakeKms } from '../../support/fake-kms';
import { FakeS3 } from '../../support/fake-s3';

const SECRET = 'card-4111-1111-1111-1111';
const BUCKET = 'payloads';
const fnCredentials = { accessKeyId: 'function-role', secretAccessKey: 's' };
const apiCredentials = { accessKeyId: 'api-role', secretAccessKey: 's' };
const outsider = { accessKeyId: 'no-decrypt', secretAccessKey: 's' };
let sdk: DynamoDBDocumentClient;
const kms = new FakeKms();
const s3 = new FakeS3(BUCKET);
let kmsEndpoint = '';
let keyArn = '';
let objects: LightS3Client;

beforeAll(async () => {
  sdk = localDocumentClient(await dynamoDbLocalEndpoint());
  kmsEndpoint = await kms.start();
  keyArn = kms.createKey();
  kms.deny(outsider.accessKeyId, 'Decrypt');
  objects = new LightS3Client({
    region: 'us-east-1',
    endpoint: await s3.start(),
    bucket: BUCKET,
    credentials: fnCredentials,
  });
}, 60_000);

afterAll(async () => {
  sdk?.destroy();
  await kms.stop();
  await s3.stop();
});

function codec(credentials = fnCredentials) {
  return new KmsEnvelopeCodec({
    kms: new LightKmsClient({ region: 'us-east-1', endpoint: kmsEndpoint, credentials, maxAttempts: 1 }),
    keyId: keyArn,
  });
}

async function table(prefix: string) {
  const tableName = uniqueTableName(prefix);
  await createDurableTable(sdk, tableName);
  return tableName;
}

async function rawPartition(tableName: string, runId: string): Promise<string> {
  const out = await sdk.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': runPk(runId) },
    }),
  );
  return JSON.stringify(out.Items ?? []);
}

const handler = withDurableExecution(async (event: { card: string }, ctx: DurableContext) => {
  const charged = await ctx.step('charge', async () => ({ charged: event.card, big: 'z'.repeat(40_000) }));
  await ctx.wait('settle', { seconds: 60 });
  const receipt = await ctx.step('receipt', async () => `receipt for ${charged.charged}`);
  await ctx
    .step(
      'refused',
      async () => {
        throw new Error(`bank refused ${event.card}`);
      },
      { retryStrategy: () => ({ shouldRetry: false }) },
    )
    .catch(() => undefined);
  return receipt;
});

describe('payloads sealed with a customer KMS key', () => {
  it('are ciphertext in the table and the bucket, and read back whole through the store', async () => {
    const tableName = await table('kmsrun');
    const functionCodec = codec();
    const before = { ...kms.calls };
    const driver = new TestDriver(
      { fn: handler },
      {
        store: (clock) =>
          sealedStore(new DynamoDbStore({ client: sdk, tableName, clock, payloadObjects: objects }), functionCodec),
        startTime: Date.UTC(2026, 0, 1),
      },
    );
    const run = await driver.start('fn', { card: SECRET });
    const ended = await driver.runUntilDone(run.runId);
    expect(ended.status).toBe('SUCCEEDED');
    expect(ended.result).toBe(JSON.stringify(`receipt for ${SECRET}`));
    // One data key for the whole run, in this warm process: one GenerateDataKey, no Decrypt.
    expect(kms.calls.GenerateDataKey - before.GenerateDataKey).toBe(1);
    expect(kms.calls.Decrypt - before.Decrypt).toBe(0);

    // Nothing stored names the secret: not the table's items, not the bucket's object.
    const raw = await rawPartition(tableName, run.runId);
    expect(raw).not.toContain(SECRET);
    expect(raw).toContain(SEALED_PREFIX);
    const stored = s3.keys(BUCKET).filter((key) => key.startsWith(`runs/${run.runId}/`));
    expect(stored.length).toBeGreaterThan(0);
    for (const key of stored) expect(s3.buckets.get(BUCKET)?.get(key)?.toString()).not.toContain(SECRET);

    // The store without the key reads ciphertext; the control API's store (its own role, a cold
    // process) reads the run whole, with one Decrypt for the run's one data key.
    const plain = new DynamoDbStore({ client: sdk, tableName, payloadObjects: objects });
    expect((await plain.getRun(run.runId))?.input?.startsWith(SEALED_PREFIX)).toBe(true);
    const decrypts = kms.calls.Decrypt;
    const api = sealedStore(
      new DynamoDbStore({ client: sdk, tableName, payloadObjects: objects }),
      codec(apiCredentials),
    );
    expect((await api.getRun(run.runId))?.input).toBe(JSON.stringify({ card: SECRET }));
    const ops = await api.loadOperations(run.runId);
    expect(JSON.parse(ops.find((op) => op.Name === 'charge')?.StepDetails?.Result ?? '{}').charged).toBe(SECRET);
    expect(ops.find((op) => op.Name === 'refused')?.StepDetails?.Error?.ErrorMessage).toBe(`bank refused ${SECRET}`);
    expect(ops.find((op) => op.Name === 'refused')?.StepDetails?.Error?.ErrorType).toBe('Error');
    expect(kms.calls.Decrypt - decrypts).toBe(1);
  }, 60_000);

  it('a caller without kms:Decrypt gets payload_unreadable, not ciphertext passed off as the payload', async () => {
    const tableName = await table('kmsdeny');
    const writer = sealedStore(new DynamoDbStore({ client: sdk, tableName }), codec());
    await writer.createRun(runRecord('deny-1', { input: JSON.stringify(SECRET) }), executionOp(JSON.stringify(SECRET)));
    const reader = sealedStore(new DynamoDbStore({ client: sdk, tableName }), codec(outsider));
    const error = await reader.getRun('deny-1').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(PayloadSealError);
    expect((error as PayloadSealError).code).toBe('payload_unreadable');
    expect((error as Error).message).toContain('AccessDeniedException');
  });

  it('a sealed payload copied under another run does not open: the encryption context names the run', async () => {
    const tableName = await table('kmsmove');
    const writer = codec();
    const sealed = await writer.seal('run-a', JSON.stringify(SECRET));
    expect(await writer.open('run-a', sealed)).toBe(JSON.stringify(SECRET));
    const store = sealedStore(new DynamoDbStore({ client: sdk, tableName }), codec());
    // Written as run-b's input, bypassing the codec: a value lifted from run-a's items.
    await new DynamoDbStore({ client: sdk, tableName }).createRun(
      runRecord('run-b', { input: sealed }),
      executionOp(sealed),
    );
    await expect(store.getRun('run-b')).rejects.toThrow(PayloadSealError);
    await expect(codec().open('run-b', sealed)).rejects.toThrow(/InvalidCiphertextException/);
  });

  it('seals deterministically per data key (a retried write stores the same value) and reads plaintext written before', async () => {
    const tableName = await table('kmsretry');
    const c = codec();
    expect(await c.seal('r1', 'same')).toBe(await c.seal('r1', 'same'));
    expect(await c.seal('r1', 'same')).not.toBe(await c.seal('r2', 'same'));
    const old = new DynamoDbStore({ client: sdk, tableName });
    await old.createRun(runRecord('before-key', { input: '"plain"' }), executionOp('"plain"'));
    const store = sealedStore(new DynamoDbStore({ client: sdk, tableName }), c);
    expect((await store.getRun('before-key'))?.input).toBe('"plain"');
  });

  it('a throttled GenerateDataKey is sent again; a refused one writes nothing', async () => {
    const tableName = await table('kmsthrottle');
    const store = sealedStore(new DynamoDbStore({ client: sdk, tableName }), codec());
    kms.throttleNext(2);
    await store.createRun(runRecord('throttled', { input: '"x"' }), executionOp('"x"'));
    expect((await store.getRun('throttled'))?.input).toBe('"x"');
    kms.setEnabled(keyArn, false);
    const refused = sealedStore(new DynamoDbStore({ client: sdk, tableName }), codec());
    await expect(refused.createRun(runRecord('refused', { input: '"y"' }), executionOp('"y"'))).rejects.toThrow(
      /DisabledException/,
    );
    kms.setEnabled(keyArn, true);
    expect(await new DynamoDbStore({ client: sdk, tableName }).getRun('refused')).toBeUndefined();
  });

  it('a tampered ciphertext fails its integrity check', async () => {
    const c = codec();
    const sealed = await c.seal('r1', '"value"');
    const tampered = `${sealed.slice(0, -4)}${sealed.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    await expect(c.open('r1', tampered)).rejects.toThrow(/integrity/);
  });
});
