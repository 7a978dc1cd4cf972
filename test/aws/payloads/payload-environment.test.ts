/**
 * The production backend's payload bucket and customer key come from the environment the
 * `DurableFunction` construct sets (`DURABLE_PAYLOAD_BUCKET`, `DURABLE_PAYLOAD_THRESHOLD_BYTES`,
 * `DURABLE_PAYLOAD_KEY_ARN`), through the light clients (endpoints from `AWS_ENDPOINT_URL_S3`,
 * `AWS_ENDPOINT_URL_KMS`, as the AWS SDKs read them).
 */
import {
  ConfigurationError,
  PAYLOAD_ENV,
  payloadBucketOptions,
  SEALED_PREFIX,
  withPayloadKey,
} from '@durable-lambda/aws';
import { MemoryStore } from '@durable-lambda/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executionOp, runRecord } from '../../store-conformance/fixtures';
import { FakeKms } from '../../support/fake-kms';
import { FakeS3 } from '../../support/fake-s3';

const kms = new FakeKms();
const s3 = new FakeS3('bucket-1');
let env: Record<string, string> = {};

beforeAll(async () => {
  env = {
    AWS_ACCESS_KEY_ID: 'fn',
    AWS_SECRET_ACCESS_KEY: 's',
    AWS_ENDPOINT_URL_KMS: await kms.start(),
    AWS_ENDPOINT_URL_S3: await s3.start(),
  };
});

afterAll(async () => {
  await kms.stop();
  await s3.stop();
});

describe('payload settings from the environment', () => {
  it('names no bucket and no key: the store as it is', () => {
    const store = new MemoryStore();
    expect(payloadBucketOptions({}, 'us-east-1')).toEqual({});
    expect(withPayloadKey(store, {}, 'us-east-1')).toBe(store);
  });

  it('a bucket: objects go to it past the threshold given', async () => {
    const options = payloadBucketOptions(
      { ...env, [PAYLOAD_ENV.bucket]: 'bucket-1', [PAYLOAD_ENV.thresholdBytes]: '2048' },
      'us-east-1',
    );
    expect(options.objectThresholdBytes).toBe(2048);
    await options.payloadObjects?.put('runs/r1/h', new Uint8Array([1, 2, 3]));
    expect(s3.keys('bucket-1')).toEqual(['runs/r1/h']);
    expect(await options.payloadObjects?.get('runs/r1/missing')).toBeUndefined();
  });

  it('a threshold that is not a whole number is a ConfigurationError naming the variable', () => {
    const read = () =>
      payloadBucketOptions({ [PAYLOAD_ENV.bucket]: 'b', [PAYLOAD_ENV.thresholdBytes]: '16k' }, 'us-east-1');
    expect(read).toThrow(ConfigurationError);
    expect(read).toThrow(
      expect.objectContaining({ code: 'invalid_configuration', variables: [PAYLOAD_ENV.thresholdBytes] }),
    );
  });

  it('a key: payloads stored sealed, read back whole', async () => {
    const inner = new MemoryStore();
    const store = withPayloadKey(inner, { ...env, [PAYLOAD_ENV.keyArn]: kms.createKey() }, 'us-east-1');
    await store.createRun(runRecord('r1', { input: '"secret"' }), executionOp('"secret"'));
    expect((await inner.getRun('r1'))?.input?.startsWith(SEALED_PREFIX)).toBe(true);
    expect((await store.getRun('r1'))?.input).toBe('"secret"');
    expect(kms.calls.GenerateDataKey).toBe(1);
  });
});
