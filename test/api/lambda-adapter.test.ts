import { type ControlApi, type LambdaHttpEvent, toLambdaHandler } from '@durable-lambda/api';
import { describe, expect, it } from 'vitest';
import { ApiFixture } from './support';

/** A payload v2 event as a Function URL sends it (a POST with the JSON type every client sends). */
function event(method: string, rawPath: string, init: Partial<LambdaHttpEvent> = {}): LambdaHttpEvent {
  const { headers, ...rest } = init;
  return {
    version: '2.0',
    rawPath,
    rawQueryString: '',
    headers: { ...(method === 'POST' ? { 'content-type': 'application/json' } : {}), ...headers },
    isBase64Encoded: false,
    requestContext: { http: { method, path: rawPath }, stage: '$default' },
    ...rest,
  };
}

describe('toLambdaHandler', () => {
  it('starts a run from a base64 body and answers {statusCode, headers, body}', async () => {
    const f = new ApiFixture();
    const handler = toLambdaHandler(f.api);
    const body = Buffer.from(JSON.stringify({ function: 'fn', input: { é: 1 } }), 'utf8').toString('base64');
    const result = await handler(event('POST', '/v1/runs', { body, isBase64Encoded: true }));
    expect(Object.keys(result).sort()).toEqual(['body', 'headers', 'statusCode']);
    expect(result.statusCode).toBe(201);
    expect(result.headers['content-type']).toContain('application/json');
    const run = JSON.parse(result.body);
    expect(run).toMatchObject({ function: 'fn', input: { é: 1 } });
    expect(f.invoked).toHaveLength(1);
  });

  it('reads headers in any case: Idempotency-Key replays the answer', async () => {
    const f = new ApiFixture();
    const handler = toLambdaHandler(f.api);
    const send = (name: string) =>
      handler(event('POST', '/v1/runs', { headers: { [name]: 'key-1' }, body: '{"function":"fn"}' }));
    const first = await send('Idempotency-Key');
    const again = await send('IDEMPOTENCY-KEY');
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(f.store.runIds()).toHaveLength(1);
  });

  it('parses rawQueryString for the run list', async () => {
    const f = new ApiFixture();
    await f.start('fn');
    f.clock.advanceBy(1);
    const newest = await f.start('other');
    const handler = toLambdaHandler(f.api);
    const result = await handler(event('GET', '/v1/runs', { rawQueryString: 'limit=1&status=RUNNING' }));
    expect(result.statusCode).toBe(200);
    const list = JSON.parse(result.body);
    expect(list.runs.map((r: { runId: string }) => r.runId)).toEqual([newest]);
    expect(list.nextCursor).toEqual(expect.any(String));
    const encoded = await handler(
      event('GET', '/v1/runs', { rawQueryString: `cursor=${encodeURIComponent(list.nextCursor)}` }),
    );
    expect(JSON.parse(encoded.body).runs).toHaveLength(1);
    const bad = await handler(event('GET', '/v1/runs', { rawQueryString: 'limit=500' }));
    expect(bad.statusCode).toBe(400);
  });

  it('removes a named stage prefix from the path (API Gateway HTTP API stages)', async () => {
    const f = new ApiFixture();
    const handler = toLambdaHandler(f.api);
    const result = await handler(
      event('GET', '/prod/v1/functions', { requestContext: { http: { method: 'GET' }, stage: 'prod' } }),
    );
    expect(result.statusCode).toBe(200);
    const defaultStage = await handler(event('GET', '/prod/v1/functions'));
    expect(defaultStage.statusCode).toBe(404);
  });

  it('answers errors as JSON: invalid_json, payload_too_large, not_found, method_not_allowed', async () => {
    const f = new ApiFixture({ maxBodyBytes: 100 });
    const handler = toLambdaHandler(f.api);
    const codes = async (e: LambdaHttpEvent) => {
      const r = await handler(e);
      return [r.statusCode, JSON.parse(r.body).error.code];
    };
    expect(await codes(event('POST', '/v1/runs', { body: '{oops' }))).toEqual([400, 'invalid_json']);
    const big = Buffer.from(JSON.stringify({ function: 'fn', input: 'x'.repeat(200) })).toString('base64');
    expect(await codes(event('POST', '/v1/runs', { body: big, isBase64Encoded: true }))).toEqual([
      413,
      'payload_too_large',
    ]);
    expect(await codes(event('GET', '/nope'))).toEqual([404, 'not_found']);
    expect(await codes(event('DELETE', '/v1/runs'))).toEqual([405, 'method_not_allowed']);
  });

  it('answers 500 when the API itself throws', async () => {
    const api: ControlApi = {
      maxBodyBytes: 1,
      handle: async () => {
        throw new Error('boom');
      },
    };
    const result = await toLambdaHandler(api)(event('GET', '/v1/functions'));
    expect(result.statusCode).toBe(500);
    expect(JSON.parse(result.body).error.code).toBe('internal_error');
  });
});
