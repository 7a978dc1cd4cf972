/**
 * Our SigV4 signer (what the light DynamoDB client signs with, node:crypto only) produces exactly
 * the headers `@smithy/signature-v4` (the AWS SDK's signer) produces for the same request,
 * credentials and time: DynamoDB requests as the light client makes them, temporary credentials,
 * and requests with paths and queries that need escaping and sorting.
 */
import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type SignableRequest, type SigningCredentials, signRequest } from '../../packages/aws/src/sigv4';

/** SHA-256 in the shape the SDK's signer takes. */
class Sha256 {
  private readonly hash;
  constructor(secret?: string | Uint8Array) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', secret);
  }
  update(data: string | Uint8Array): void {
    this.hash.update(data);
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {}
}

/** The SDK's signature of `request`: its headers, lower-cased. */
async function smithySigned(
  request: SignableRequest & { hostname: string },
  credentials: SigningCredentials,
  region: string,
  service: string,
  date: Date,
): Promise<Record<string, string>> {
  const signer = new SignatureV4({ credentials, region, service, sha256: Sha256 as never });
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: 'https:',
      hostname: request.hostname,
      path: request.path,
      query: (request.query ?? {}) as Record<string, string | string[]>,
      headers: { ...request.headers },
      ...(request.body === undefined ? {} : { body: request.body }),
    },
    { signingDate: date },
  );
  return Object.fromEntries(Object.entries(signed.headers).map(([name, value]) => [name.toLowerCase(), value]));
}

const KEYS: SigningCredentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};
const TEMPORARY: SigningCredentials = { ...KEYS, sessionToken: 'FwoGZXIvYXdzEJr//////////wEaDL+session/token==' };

describe('signRequest', () => {
  it('signs a DynamoDB request as the AWS SDK does, with long-term and temporary credentials', async () => {
    const body = JSON.stringify({
      TableName: 'runs',
      Key: { pk: { S: 'RUN#1' }, sk: { S: 'RUN' } },
      ConsistentRead: true,
    });
    const request = {
      method: 'POST',
      hostname: 'dynamodb.eu-west-1.amazonaws.com',
      path: '/',
      headers: {
        host: 'dynamodb.eu-west-1.amazonaws.com',
        'content-type': 'application/x-amz-json-1.0',
        'content-length': String(Buffer.byteLength(body)),
        'x-amz-target': 'DynamoDB_20120810.GetItem',
      },
      body,
    };
    const date = new Date('2026-12-02T17:30:45.123Z');
    for (const credentials of [KEYS, TEMPORARY]) {
      const ours = signRequest(request, { credentials, region: 'eu-west-1', service: 'dynamodb', date });
      expect(ours).toEqual(await smithySigned(request, credentials, 'eu-west-1', 'dynamodb', date));
    }
    // The body as bytes signs the same as the same text.
    expect(
      signRequest(
        { ...request, body: Buffer.from(body) },
        { credentials: KEYS, region: 'eu-west-1', service: 'dynamodb', date },
      ).authorization,
    ).toBe(signRequest(request, { credentials: KEYS, region: 'eu-west-1', service: 'dynamodb', date }).authorization);
  });

  it('leaves out the headers SigV4 never signs, and folds whitespace in values, as the SDK does', async () => {
    const request = {
      method: 'POST',
      hostname: 'localhost',
      path: '/',
      headers: {
        Host: 'localhost:8000',
        'User-Agent': 'durable-lambda',
        'X-Amzn-Trace-Id': 'Root=1-abc',
        'X-Custom': '  a   lot\tof   space ',
        Connection: 'keep-alive',
      },
      body: '{}',
    };
    const date = new Date('2026-01-31T23:59:59Z');
    const ours = signRequest(request, { credentials: KEYS, region: 'us-east-1', service: 'dynamodb', date });
    expect(ours).toEqual(await smithySigned(request, KEYS, 'us-east-1', 'dynamodb', date));
    expect(ours.authorization).toContain('SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-custom,');
  });

  it('matches the SDK on any path, query, header and body (property test)', async () => {
    const segment = fc.string({ minLength: 0, maxLength: 8 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(segment, fc.constantFrom('.', '..', 'a b', 'ü', '%2F', '*!')), { maxLength: 4 }),
        fc.dictionary(
          fc.string({ minLength: 1, maxLength: 6 }).filter((key) => key.toLowerCase() !== 'x-amz-signature'),
          fc.oneof(fc.string({ maxLength: 6 }), fc.array(fc.string({ maxLength: 4 }), { minLength: 1, maxLength: 3 })),
          { maxKeys: 4 },
        ),
        fc.dictionary(fc.stringMatching(/^x-[a-z]{1,6}$/), fc.stringMatching(/^[ -~]{0,12}$/), { maxKeys: 3 }),
        fc.oneof(fc.constant(undefined), fc.string({ maxLength: 40 })),
        fc.boolean(),
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        async (segments, query, extra, body, temporary, time) => {
          const request = {
            method: 'PUT',
            hostname: 'example.amazonaws.com',
            path: `/${segments.join('/')}`,
            query,
            headers: { host: 'example.amazonaws.com', ...extra },
            ...(body === undefined ? {} : { body }),
          };
          const credentials = temporary ? TEMPORARY : KEYS;
          const date = new Date(Math.floor(time / 1000) * 1000);
          const ours = signRequest(request, { credentials, region: 'ap-southeast-2', service: 'execute-api', date });
          expect(ours).toEqual(await smithySigned(request, credentials, 'ap-southeast-2', 'execute-api', date));
        },
      ),
      { numRuns: 300 },
    );
  });
});
