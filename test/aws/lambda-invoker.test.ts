import { LambdaClient } from '@aws-sdk/client-lambda';
import { wakeEvent } from '@durable-lambda/engine';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FunctionNotFoundError, LambdaInvoker } from '../../packages/aws/src/lambda-invoker';
import { awsError, type CapturedRequest, FAKE_CREDENTIALS, FakeAwsServer } from './fake-aws-server';

const ACCEPTED = { status: 202, headers: { 'x-amzn-requestid': 'req-fake' }, body: '' };
const server = new FakeAwsServer(() => ACCEPTED);
let endpoint = '';

beforeAll(async () => {
  endpoint = await server.start();
});
afterAll(() => server.stop());
beforeEach(() => {
  server.requests.length = 0;
  server.respond(() => ACCEPTED);
});

function setup(targetArn = (name: string) => `arn:aws:lambda:us-east-1:123456789012:function:${name}`) {
  const client = new LambdaClient({ region: 'us-east-1', endpoint, credentials: FAKE_CREDENTIALS, maxAttempts: 1 });
  return new LambdaInvoker({ client, targetArn });
}

describe('LambdaInvoker', () => {
  it('sends an asynchronous Invoke of the target with the JSON payload', async () => {
    const event = wakeEvent('k0123456789abcdef0123456789abcdef');
    await setup().invoke('orders', event);

    expect(server.requests).toHaveLength(1);
    const sent = server.requests[0] as CapturedRequest;
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/2015-03-31/functions/arn:aws:lambda:us-east-1:123456789012:function:orders/invocations');
    // The ARN is one path segment: its colons are percent-encoded on the wire.
    expect(sent.rawPath).toBe(
      `/2015-03-31/functions/${encodeURIComponent('arn:aws:lambda:us-east-1:123456789012:function:orders')}/invocations`,
    );
    expect(sent.headers['x-amz-invocation-type']).toBe('Event');
    expect(sent.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDFAKEFAKEFAKE\/\d{8}\/us-east-1\/lambda\/aws4_request, /,
    );
    expect(JSON.parse(sent.body)).toEqual(event);
  });

  it('targets a qualified ARN as given', async () => {
    await setup((name) => `arn:aws:lambda:eu-west-1:123456789012:function:${name}:live`).invoke('orders', { a: 1 });
    expect(server.requests[0]?.path).toBe(
      '/2015-03-31/functions/arn:aws:lambda:eu-west-1:123456789012:function:orders:live/invocations',
    );
    expect(JSON.parse(server.requests[0]?.body ?? '')).toEqual({ a: 1 });
  });

  it('reports a missing function as FunctionNotFoundError (function_not_found)', async () => {
    server.respond(() => awsError(404, 'ResourceNotFoundException', 'Function not found: orders'));
    const error = await setup()
      .invoke('orders', {})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FunctionNotFoundError);
    expect(error).toMatchObject({
      code: 'function_not_found',
      functionName: 'arn:aws:lambda:us-east-1:123456789012:function:orders',
    });
    expect((error as Error).message).toContain('orders');
  });

  it('passes any other service error on', async () => {
    server.respond(() => awsError(429, 'TooManyRequestsException', 'Rate exceeded'));
    await expect(setup().invoke('orders', {})).rejects.toMatchObject({ name: 'TooManyRequestsException' });
  });
});
