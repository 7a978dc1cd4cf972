/**
 * The production backend's large-payload bucket and customer key, from the environment the
 * `DurableFunction` construct sets: `DURABLE_PAYLOAD_BUCKET` (values from
 * `DURABLE_PAYLOAD_THRESHOLD_BYTES`, default 16 KiB, go there), `DURABLE_PAYLOAD_KEY_ARN` (every
 * payload sealed with that KMS key, `KmsEnvelopeCodec`). Both clients are the light ones: no AWS
 * SDK code on the hot path.
 */
import { type Store, sealedStore } from '@durable-lambda/engine';
import type { AwsCredentialsProvider } from './aws-credentials';
import type { DynamoDbStoreOptions } from './dynamodb/store';
import { KmsEnvelopeCodec } from './kms-envelope-codec';
import { LightKmsClient } from './light-aws/kms-client';
import { LightS3Client } from './light-aws/s3-client';
import { ConfigurationError, type ProductionEnvironment } from './production-config';

/** The environment variables read here. */
export const PAYLOAD_ENV = {
  bucket: 'DURABLE_PAYLOAD_BUCKET',
  thresholdBytes: 'DURABLE_PAYLOAD_THRESHOLD_BYTES',
  keyArn: 'DURABLE_PAYLOAD_KEY_ARN',
} as const;

/** The store options of the payload bucket the environment names (none when it names none). */
export function payloadBucketOptions(
  env: ProductionEnvironment,
  region: string,
  credentials?: AwsCredentialsProvider,
): Pick<DynamoDbStoreOptions, 'payloadObjects' | 'objectThresholdBytes'> {
  const bucket = env[PAYLOAD_ENV.bucket]?.trim();
  if (!bucket) return {};
  const threshold = env[PAYLOAD_ENV.thresholdBytes]?.trim();
  const bytes = threshold ? Number(threshold) : undefined;
  if (bytes !== undefined && !(Number.isInteger(bytes) && bytes >= 1)) {
    throw new ConfigurationError(
      'invalid_configuration',
      [PAYLOAD_ENV.thresholdBytes],
      'a whole number of bytes, at least 1',
    );
  }
  return {
    payloadObjects: new LightS3Client({ region, bucket, env, ...(credentials ? { credentials } : {}) }),
    ...(bytes === undefined ? {} : { objectThresholdBytes: bytes }),
  };
}

/**
 * `store`, its payloads sealed with the KMS key the environment names (as it is when none).
 * `credentials`: default the environment's (a Lambda's); the CLI passes the SDK's default chain.
 */
export function withPayloadKey(
  store: Store,
  env: ProductionEnvironment,
  region: string,
  credentials?: AwsCredentialsProvider,
): Store {
  const keyArn = env[PAYLOAD_ENV.keyArn]?.trim();
  if (!keyArn) return store;
  const kms = new LightKmsClient({ region, env, ...(credentials ? { credentials } : {}) });
  return sealedStore(store, new KmsEnvelopeCodec({ kms, keyId: keyArn }));
}
