/**
 * Where a durable table's large payloads go and what key seals its payloads (issue 27): the
 * payload bucket (S3 objects under `runs/<runId>/`, expired by a lifecycle rule as the table's
 * items expire), the environment that tells the runtime about both (`PAYLOAD_ENV` of
 * `@durable-lambda/aws`), and the grants each role needs.
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Aws, Duration, type RemovalPolicy } from 'aws-cdk-lib/core';
import type { Construct } from 'constructs';
import { acknowledge, acknowledgeWildcardResource } from './nag';

/** The runtime's environment variables for payloads (kept equal to `PAYLOAD_ENV` by a test). */
export const PAYLOAD_ENVIRONMENT = {
  bucket: 'DURABLE_PAYLOAD_BUCKET',
  thresholdBytes: 'DURABLE_PAYLOAD_THRESHOLD_BYTES',
  keyArn: 'DURABLE_PAYLOAD_KEY_ARN',
} as const;

/**
 * Days an object of the payload bucket lives: the runtime store's TTL ceiling of operation and
 * chunk items (400 days after their write) and one day of margin, so an object outlives every
 * item that can name it (a value written at a run's start is read until the run expires).
 */
export const PAYLOAD_OBJECT_DAYS = 401;

/** A durable table's payload settings. */
export interface DurablePayloads {
  /** The bucket values past the threshold go to, if any. */
  readonly bucket?: s3.IBucket;
  /** The size from which a value goes to the bucket, bytes. Default: the runtime's (16 KiB). */
  readonly thresholdBytes?: number;
  /** The customer managed key payloads are sealed with (envelope encryption in the function), if any. */
  readonly key?: kms.IKey;
}

/** The payload bucket of a table: private, TLS only, encrypted with `key` (or S3's key), expiring. */
export function createPayloadBucket(
  scope: Construct,
  id: string,
  options: { key?: kms.IKey; removalPolicy?: RemovalPolicy },
): s3.Bucket {
  const bucket = new s3.Bucket(scope, id, {
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    ...(options.key
      ? { encryption: s3.BucketEncryption.KMS, encryptionKey: options.key, bucketKeyEnabled: true }
      : { encryption: s3.BucketEncryption.S3_MANAGED }),
    lifecycleRules: [
      { id: 'payloads-expire-with-their-runs', expiration: Duration.days(PAYLOAD_OBJECT_DAYS) },
      { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
    ],
    ...(options.removalPolicy === undefined ? {} : { removalPolicy: options.removalPolicy }),
  });
  acknowledge(
    bucket,
    'AwsSolutions-S1',
    'The payload bucket holds only run payloads the table references, written and read by the durable functions, ' +
      'reconciler and control API roles; every request is already in CloudTrail data events when enabled, and ' +
      'server access logs would need a second bucket per table for no extra record.',
  );
  return bucket;
}

/** The environment that tells the runtime about a table's payload bucket and key. */
export function payloadEnvironment(payloads: DurablePayloads | undefined): Record<string, string> {
  if (!payloads) return {};
  return {
    ...(payloads.bucket ? { [PAYLOAD_ENVIRONMENT.bucket]: payloads.bucket.bucketName } : {}),
    ...(payloads.bucket && payloads.thresholdBytes !== undefined
      ? { [PAYLOAD_ENVIRONMENT.thresholdBytes]: String(payloads.thresholdBytes) }
      : {}),
    ...(payloads.key ? { [PAYLOAD_ENVIRONMENT.keyArn]: payloads.key.keyArn } : {}),
  };
}

/**
 * Lets `grantee` read (and, with `write`, put) the table's payload objects, and seal and open its
 * payloads with the key: `kms:GenerateDataKey` (writers) and `kms:Decrypt`, only with an
 * encryption context that names a run (`durable-lambda:run`), the one the runtime sets.
 */
export function grantPayloads(payloads: DurablePayloads | undefined, grantee: iam.IGrantable, write: boolean): void {
  if (!payloads) return;
  if (payloads.bucket) {
    const objects = payloads.bucket.arnForObjects('*');
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: write ? ['s3:GetObject', 's3:PutObject'] : ['s3:GetObject'],
        resources: [objects],
      }),
    );
    // Without s3:ListBucket, S3 answers a missing key 403 AccessDenied rather than 404 NoSuchKey:
    // the store tells a missing payload (chunk_missing) from a refused read by the 404.
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [payloads.bucket.bucketArn] }),
    );
    // The bucket's own key (SSE-KMS, a bucket key) is used by S3 on the caller's behalf, only through S3.
    const bucketKey = payloads.bucket.encryptionKey;
    if (bucketKey) {
      grantee.grantPrincipal.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: write ? ['kms:GenerateDataKey', 'kms:Decrypt'] : ['kms:Decrypt'],
          resources: [bucketKey.keyArn],
          conditions: { StringEquals: { 'kms:ViaService': `s3.${Aws.REGION}.${Aws.URL_SUFFIX}` } },
        }),
      );
    }
    const construct = grantee.grantPrincipal as unknown as Construct;
    if (construct.node) {
      acknowledgeWildcardResource(
        construct,
        objects,
        "The payload bucket holds only this table's run payloads, keyed by run id and content hash: the keys are not known in advance.",
      );
    }
  }
  if (payloads.key) {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: write ? ['kms:GenerateDataKey', 'kms:Decrypt'] : ['kms:Decrypt'],
        resources: [payloads.key.keyArn],
        conditions: { 'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['durable-lambda:run'] } },
      }),
    );
  }
}
