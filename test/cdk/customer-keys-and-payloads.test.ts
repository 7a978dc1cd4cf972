/**
 * `DurableFunction({ encryptionKey, largePayloads })` (issue 27), synthesized with cdk-nag's
 * AwsSolutions checks: the table encrypted with the customer key, a private payload bucket
 * encrypted with it and expiring with the table's items, the runtime told both, and kms
 * GenerateDataKey/Decrypt (only for an encryption context naming a run) and the bucket's objects
 * granted to the function, the reconciler and the control API.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PAYLOAD_ENV } from '@durable-lambda/aws';
import {
  type CloudFormationTemplate,
  DurableApi,
  DurableFunction,
  DurableTable,
  fixedMonthlyCost,
  PAYLOAD_ENVIRONMENT,
  PAYLOAD_OBJECT_DAYS,
} from '@durable-lambda/cdk';
import { Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { logicalId, newApp, newStack, REPO_ROOT, resources, statementsOfRole } from './support';

const entry = join(REPO_ROOT, 'examples', 'checkout', 'handler.ts');

let template: Template;
let outdir: string;
let keyId = '';

beforeAll(() => {
  const app = newApp();
  const stack = new Stack(app, 'Keys');
  const key = new kms.Key(stack, 'CustomerKey', { enableKeyRotation: true });
  const checkout = new DurableFunction(stack, 'Checkout', { entry, encryptionKey: key, largePayloads: true });
  new DurableApi(stack, 'Api', { functions: [checkout] });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  outdir = app.synth().directory;
  template = Template.fromStack(stack);
  keyId = logicalId(template, 'AWS::KMS::Key', 'CustomerKey');
}, 120_000);

const keyArn = () => ({ 'Fn::GetAtt': [keyId, 'Arn'] });
/** The role whose logical id starts with `prefix` and names a service role (the reconciler's id has its table's address). */
const roleId = (prefix: string) => {
  const ids = Object.entries(resources(template))
    .filter(([id, r]) => r.Type === 'AWS::IAM::Role' && id.startsWith(prefix) && id.includes('ServiceRole'))
    .map(([id]) => id);
  expect(ids, prefix).toHaveLength(1);
  return ids[0] as string;
};
const statementsWith = (role: string, action: string) =>
  (
    statementsOfRole(template, roleId(role)) as Array<{
      Action: string | string[];
      Resource: unknown;
      Condition?: unknown;
    }>
  ).filter((s) => ([] as string[]).concat(s.Action).includes(action));
const functionEnvironment = (prefix: string) =>
  resources(template)[logicalId(template, 'AWS::Lambda::Function', prefix)]?.Properties?.Environment
    ?.Variables as Record<string, unknown>;

describe('DurableFunction with a customer key and large payloads', () => {
  it('cdk-nag finds nothing', () => {
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as {
      pluginReports: Array<{ pluginName: string; conclusion: string; violations: unknown[] }>;
    };
    expect(report.pluginReports.map((r) => [r.pluginName, r.conclusion, r.violations])).toEqual([
      ['AwsSolutions', 'success', []],
    ]);
  });

  it('encrypts the table with the customer key', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: keyArn() },
    });
  });

  it('keeps payloads in a private bucket encrypted with the key, expiring with the items', () => {
    template.resourceCountIs('AWS::S3::Bucket', 1);
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          {
            BucketKeyEnabled: true,
            ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: keyArn() },
          },
        ],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LifecycleConfiguration: {
        Rules: [
          { Id: 'payloads-expire-with-their-runs', ExpirationInDays: PAYLOAD_OBJECT_DAYS, Status: 'Enabled' },
          {
            Id: 'abort-incomplete-uploads',
            AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
            Status: 'Enabled',
          },
        ],
      },
    });
    const bucket = Object.entries(resources(template)).find(([, r]) => r.Type === 'AWS::S3::Bucket');
    expect(bucket?.[1].DeletionPolicy).toBe('Retain');
  });

  it('tells the function, the reconciler and the control API the bucket and the key', () => {
    const bucketId = logicalId(template, 'AWS::S3::Bucket', 'CheckoutTablePayloads');
    for (const prefix of ['CheckoutFunction', 'DurableReconciler', 'ApiFunction']) {
      expect(functionEnvironment(prefix)).toMatchObject({
        [PAYLOAD_ENV.bucket]: { Ref: bucketId },
        [PAYLOAD_ENV.keyArn]: keyArn(),
      });
    }
  });

  it('grants kms:GenerateDataKey and kms:Decrypt for a run context, and the bucket objects, to each of them', () => {
    for (const role of ['Checkout', 'DurableReconciler', 'Api']) {
      const sealing = statementsWith(role, 'kms:GenerateDataKey').filter((s) =>
        JSON.stringify(s.Condition ?? {}).includes('durable-lambda:run'),
      );
      expect(sealing, role).toHaveLength(1);
      expect(sealing[0]).toMatchObject({
        Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
        Resource: keyArn(),
        Condition: { 'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['durable-lambda:run'] } },
      });
      const objects = statementsWith(role, 's3:PutObject');
      expect(objects.length, role).toBeGreaterThan(0);
      expect(([] as string[]).concat(objects[0]?.Action ?? [])).toEqual(['s3:GetObject', 's3:PutObject']);
      // So that a missing object is a 404 NoSuchKey (chunk_missing), not a 403.
      expect(statementsWith(role, 's3:ListBucket').length, role).toBeGreaterThan(0);
    }
  });

  it('grants the watchdog, which reads an index alone, neither the key nor the bucket', () => {
    const stack = newStack();
    const key = new kms.Key(stack, 'K', { enableKeyRotation: true });
    new DurableFunction(stack, 'Fn', { entry, encryptionKey: key, largePayloads: true, metrics: true });
    const t = Template.fromStack(stack);
    const watchdog = Object.keys(resources(t)).find(
      (id) => id.startsWith('DurableRunWatchdog') && id.includes('ServiceRole'),
    );
    expect(watchdog).toBeDefined();
    const granted = JSON.stringify(statementsOfRole(t, watchdog as string));
    expect(granted).not.toContain('s3:GetObject');
    expect(granted).not.toContain('durable-lambda:run');
  });

  it('is priced: the customer key a month, the bucket free at rest, nothing unknown', () => {
    const estimate = fixedMonthlyCost(template.toJSON() as CloudFormationTemplate);
    expect(estimate.unknown).toEqual([]);
    expect(estimate.lines.some((line) => /KMS key/.test(line.item) && line.monthlyUsd === 1)).toBe(true);
  });

  it('uses the runtime names of the environment variables', () => {
    expect(PAYLOAD_ENVIRONMENT).toEqual(PAYLOAD_ENV);
  });
});

describe('payload settings that cannot be honoured', () => {
  it('a shared table with encryptionKey on the function is refused, naming where to set it', () => {
    const stack = newStack();
    const table = new DurableTable(stack, 'Runs');
    const key = new kms.Key(stack, 'K', { enableKeyRotation: true });
    expect(() => new DurableFunction(stack, 'Fn', { entry, table, encryptionKey: key })).toThrow(
      /set encryptionKey.*on the DurableTable/,
    );
  });

  it('encryptPayloads without a key, and a threshold that is not a whole number, are refused', () => {
    const stack = newStack();
    expect(() => new DurableTable(stack, 'A', { encryptPayloads: true })).toThrow(
      /encryptPayloads needs encryptionKey/,
    );
    expect(() => new DurableTable(stack, 'B', { largePayloads: { thresholdBytes: 0.5 } })).toThrow(/thresholdBytes/);
  });

  it('a function without them has no bucket and no payload variables', () => {
    const stack = newStack();
    new DurableFunction(stack, 'Fn', { entry });
    const t = Template.fromStack(stack);
    t.resourceCountIs('AWS::S3::Bucket', 0);
    const env = JSON.stringify(t.toJSON());
    expect(env).not.toContain(PAYLOAD_ENV.bucket);
    expect(env).not.toContain(PAYLOAD_ENV.keyArn);
  });
});
