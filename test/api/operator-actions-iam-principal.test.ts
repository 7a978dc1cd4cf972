import { type LambdaHttpEvent, toLambdaHandler } from '@durable-lambda/api';
import { describe, expect, it } from 'vitest';
import { ApiFixture } from './support';

const OPS_ROLE = 'arn:aws:sts::123456789012:assumed-role/ops/alice';

/** A payload v2 event as a Function URL sends it, with IAM auth when `userArn` is given. */
function functionUrlEvent(rawPath: string, body: unknown, headers: Record<string, string>, userArn?: string) {
  const event: LambdaHttpEvent = {
    version: '2.0',
    rawPath,
    rawQueryString: '',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: {
      http: { method: 'POST', path: rawPath },
      stage: '$default',
      ...(userArn === undefined ? {} : { authorizer: { iam: { userArn } } }),
    },
  };
  return event;
}

describe('an operator action through a Function URL with IAM auth', () => {
  it('records the signing principal as who acted, whatever x-durable-actor claims', async () => {
    const fixture = new ApiFixture();
    const handler = toLambdaHandler(fixture.api);
    const runId = await fixture.start('fn');
    const result = await handler(
      functionUrlEvent(`/v1/runs/${runId}/cancel`, {}, { 'x-durable-actor': 'someone-else' }, OPS_ROLE),
    );
    expect(result.statusCode, result.body).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({
      status: 'CANCELLED',
      action: { action: 'cancel', actor: OPS_ROLE },
    });
    const actions = await fixture.call('GET', `/v1/runs/${runId}/actions`);
    expect(actions.json.actions).toEqual([expect.objectContaining({ action: 'cancel', actor: OPS_ROLE })]);
  });

  it('without IAM auth, records the x-durable-actor header (the principal is never read from the request)', async () => {
    const fixture = new ApiFixture();
    const handler = toLambdaHandler(fixture.api);
    const runId = await fixture.start('fn');
    const event = functionUrlEvent(`/v1/runs/${runId}/cancel`, {}, { 'x-durable-actor': 'bob' });
    // A `principal` smuggled into the body or the headers is not an identity.
    event.headers = { ...event.headers, principal: OPS_ROLE };
    const result = await handler(event);
    expect(result.statusCode, result.body).toBe(200);
    expect(JSON.parse(result.body).action).toMatchObject({ action: 'cancel', actor: 'bob' });
  });
});
