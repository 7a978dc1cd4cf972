/**
 * `durable export --table` of a run whose payloads are sealed with a customer key and kept in a
 * payload bucket (issue 27): the CLI reads them through the same variables as the functions
 * (`DURABLE_PAYLOAD_BUCKET`, `DURABLE_PAYLOAD_KEY_ARN`), with the caller's credentials, and
 * exports the payloads as written; without them the table's values are refused, not passed off.
 */
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createDurableTable,
  DynamoDbStore,
  KmsEnvelopeCodec,
  LightKmsClient,
  LightS3Client,
  PAYLOAD_ENV,
} from '@durable-lambda/aws';
import { sealedStore } from '@durable-lambda/engine';
import { TestDriver } from '@durable-lambda/local';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import { FakeKms } from '../support/fake-kms';
import { FakeS3 } from '../support/fake-s3';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(root, 'packages/cli/bin/durable.mjs');
const SECRET = 'iban-DE89-3704-0044-0532-0130-00';
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const kms = new FakeKms();
const s3 = new FakeS3('payloads');
let env: Record<string, string> = {};
let tableName = '';
let runId = '';

function durable(args: string[], extra: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: root,
      env: { ...process.env, NODE_OPTIONS: '', DURABLE_CLI_SOURCE: '1', ...env, ...extra },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  const endpoint = await dynamoDbLocalEndpoint();
  const [kmsEndpoint, s3Endpoint] = await Promise.all([kms.start(), s3.start()]);
  const keyArn = kms.createKey();
  env = {
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    AWS_ENDPOINT_URL_KMS: kmsEndpoint,
    AWS_ENDPOINT_URL_S3: s3Endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    [PAYLOAD_ENV.bucket]: 'payloads',
    [PAYLOAD_ENV.keyArn]: keyArn,
  };
  const client = localDocumentClient(endpoint);
  tableName = uniqueTableName('sealedcli');
  await createDurableTable(client, tableName);
  const objects = new LightS3Client({ region: 'us-east-1', endpoint: s3Endpoint, bucket: 'payloads', credentials });
  const codec = new KmsEnvelopeCodec({
    kms: new LightKmsClient({ region: 'us-east-1', endpoint: kmsEndpoint, credentials }),
    keyId: keyArn,
  });
  const handler = withDurableExecution(async (event: { iban: string }, ctx: DurableContext) => {
    const statement = await ctx.step('statement', async () => `${event.iban}:${'s'.repeat(30_000)}`);
    return statement.length;
  });
  const driver = new TestDriver(
    { payouts: handler },
    { store: (clock) => sealedStore(new DynamoDbStore({ client, tableName, clock, payloadObjects: objects }), codec) },
  );
  runId = (await driver.start('payouts', { iban: SECRET })).runId;
  expect((await driver.runUntilDone(runId)).status).toBe('SUCCEEDED');
  client.destroy();
}, 120_000);

afterAll(async () => {
  await kms.stop();
  await s3.stop();
});

describe('durable export --table of a run with sealed payloads in a bucket', { timeout: 120_000 }, () => {
  it('exports the payloads as written, with the variables the functions have', async () => {
    const exported = await durable(['export', runId, '--table', tableName], {});
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain(SECRET);
    expect(exported.stdout).toContain('s'.repeat(30_000));
    expect(kms.calls.Decrypt).toBeGreaterThan(0);
  });

  it('without them, fails naming the bucket rather than exporting ciphertext', async () => {
    const exported = await durable(['export', runId, '--table', tableName], {
      [PAYLOAD_ENV.bucket]: '',
      [PAYLOAD_ENV.keyArn]: '',
    });
    expect(exported.code).not.toBe(0);
    expect(exported.stdout).not.toContain(SECRET);
    expect(exported.stderr).toMatch(/payload bucket/);
  });
});
