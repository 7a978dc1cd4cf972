/**
 * Every state-changing route of the control API takes only a body type no web page can send
 * without a CORS preflight: the `/v1` routes `application/json` (a bodyless POST too), the
 * Lambda-shaped routes what AWS's SDKs send (JSON, `application/octet-stream` for a binary
 * payload, no type with no body). Anything else is `415 unsupported_media_type`, before the
 * Idempotency-Key is claimed and before anything is written, through `handle` and through the
 * Lambda adapter (the control API deployed behind a Function URL) alike.
 */
import { type LambdaHttpEvent, toLambdaHandler } from '@durable-lambda/api';
import { describe, expect, it } from 'vitest';
import { ApiFixture, runWaitingOnCallback } from './support';

/** The body types a page of any site may send (a form, `fetch` in `no-cors` mode), and broken ones. */
const PAGE_TYPES: Array<[string, string | string[] | undefined]> = [
  ['text/plain', 'text/plain'],
  ['text/plain with a charset', 'text/plain;charset=UTF-8'],
  ['a form', 'application/x-www-form-urlencoded'],
  ['a multipart form', 'multipart/form-data; boundary=----x'],
  ['no type', undefined],
  ['two types', ['application/json', 'text/plain']],
  ['a malformed type', 'application/json garbage'],
  ['another type', 'application/xml'],
];

/** Every `/v1` POST route, with the body a client sends there. */
function v1Routes(runId: string, callbackId: string): Array<[string, unknown]> {
  const cb = encodeURIComponent(callbackId);
  return [
    ['/v1/runs', { function: 'fn', input: { order: 2 } }],
    [`/v1/runs/${runId}/cancel`, undefined],
    [`/v1/runs/${runId}/cancel`, { tree: true }],
    [`/v1/runs/${runId}/retry`, undefined],
    [`/v1/runs/${runId}/wake`, undefined],
    [`/v1/runs/${runId}/operations/op/skip`, { result: 1 }],
    [`/v1/callbacks/${cb}/succeed`, { result: 'yes' }],
    [`/v1/callbacks/${cb}/fail`, { error: { message: 'no' } }],
    [`/v1/callbacks/${cb}/heartbeat`, undefined],
  ];
}

/** The fixture's runs and their states, to see that a refused request changed nothing. */
async function snapshot(f: ApiFixture): Promise<unknown> {
  const runs = await Promise.all(f.store.runIds().map((id) => f.engine.getRun(id)));
  const operations = await Promise.all(f.store.runIds().map((id) => f.engine.getOperations(id)));
  return { runs, operations, invoked: f.invoked.length, wakeUps: f.wakeUps.length };
}

describe('the /v1 routes take application/json only', () => {
  it('answers 415 unsupported_media_type on every POST route to any other type, writing nothing', async () => {
    const f = new ApiFixture();
    const { runId, callbackId } = await runWaitingOnCallback(f);
    const before = await snapshot(f);
    for (const [path, body] of v1Routes(runId, callbackId)) {
      for (const [name, type] of PAGE_TYPES) {
        const answer = await f.call('POST', path, {
          ...(body === undefined ? {} : { body }),
          headers: { 'content-type': type, 'idempotency-key': `${path} ${name}` },
        });
        expect(answer.status, `${path} ${name}`).toBe(415);
        expect(answer.json.error.code).toBe('unsupported_media_type');
        expect(answer.json.error.message).toMatch(
          new RegExp(`^content-type: .*; POST ${escapeRegExp(path)} takes application/json`),
        );
      }
    }
    expect(await snapshot(f)).toEqual(before);
    expect(f.errors).toEqual([]);
    // Nothing was claimed: the same key with JSON runs the request (it is not a replay).
    const started = await f.call('POST', '/v1/runs', {
      body: { function: 'fn', input: { order: 2 } },
      headers: { 'content-type': 'application/json', 'idempotency-key': '/v1/runs text/plain' },
    });
    expect(started.status).toBe(201);
    expect(started.headers['idempotent-replayed']).toBeUndefined();
  });

  it('takes JSON in any spelling: parameters, case, a +json type; and a bodyless POST with the type', async () => {
    const f = new ApiFixture();
    for (const type of [
      'application/json',
      'application/json; charset=utf-8',
      'Application/JSON',
      'application/vnd.run+json',
    ]) {
      const answer = await f.call('POST', '/v1/runs', { body: { function: 'fn' }, headers: { 'content-type': type } });
      expect(answer.status, type).toBe(201);
    }
    const { runId, callbackId } = await runWaitingOnCallback(f);
    const heartbeat = await f.call('POST', `/v1/callbacks/${encodeURIComponent(callbackId)}/heartbeat`, {
      headers: { 'content-type': 'application/json' },
    });
    expect(heartbeat.status).toBe(200);
    const cancel = await f.call('POST', `/v1/runs/${runId}/cancel`, {
      headers: { 'content-type': 'application/json' },
    });
    expect(cancel.status).toBe(200);
    // Reading needs no type.
    expect((await f.call('GET', `/v1/runs/${runId}`, { headers: { 'content-type': 'text/plain' } })).status).toBe(200);
  });

  it('refuses the same through the Lambda adapter (the API behind a Function URL), a base64 body included', async () => {
    const f = new ApiFixture();
    const handler = toLambdaHandler(f.api);
    const event = (headers: Record<string, string>, body: string, base64 = false): LambdaHttpEvent => ({
      version: '2.0',
      rawPath: '/v1/runs',
      rawQueryString: '',
      headers,
      body: base64 ? Buffer.from(body).toString('base64') : body,
      isBase64Encoded: base64,
      requestContext: { http: { method: 'POST', path: '/v1/runs' }, stage: '$default' },
    });
    const start = JSON.stringify({ function: 'fn' });
    const typed: Array<Record<string, string>> = [
      { 'content-type': 'text/plain' },
      { 'Content-Type': 'text/plain' },
      {},
    ];
    for (const headers of typed) {
      for (const base64 of [false, true]) {
        const answer = await handler(event(headers, start, base64));
        expect(answer.statusCode).toBe(415);
        expect(JSON.parse(answer.body).error.code).toBe('unsupported_media_type');
      }
    }
    // Lambda joins a repeated header with a comma: two types are not one.
    expect((await handler(event({ 'content-type': 'text/plain,application/json' }, start))).statusCode).toBe(415);
    expect(f.store.runIds()).toEqual([]);
    expect((await handler(event({ 'Content-Type': 'application/json' }, start, true))).statusCode).toBe(201);
  });
});

describe('the Lambda-shaped routes take what AWS SDKs send', () => {
  const invoke = '/2015-03-31/functions/fn/invocations';
  const callback = (id: string, action: string) =>
    `/2025-12-01/durable-execution-callbacks/${encodeURIComponent(id)}/${action}`;

  it('refuses a page body type, and a body without a type, in Lambda words (415 UnsupportedMediaTypeException)', async () => {
    const f = new ApiFixture();
    const { callbackId } = await runWaitingOnCallback(f);
    const before = await snapshot(f);
    const routes: Array<[string, string]> = [
      [invoke, '{"order":3}'],
      [callback(callbackId, 'succeed'), '"yes"'],
      [callback(callbackId, 'fail'), '{"ErrorMessage":"no"}'],
      [callback(callbackId, 'heartbeat'), '{}'],
      ['/2025-12-01/durable-executions/arn/checkpoint', '{"CheckpointToken":"t","Updates":[]}'],
    ];
    for (const [path, body] of routes) {
      for (const type of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        undefined,
      ]) {
        const answer = await f.call('POST', path, { body, headers: { 'content-type': type } });
        expect(answer.status, `${path} ${type}`).toBe(415);
        expect(answer.headers['x-amzn-errortype']).toBe('UnsupportedMediaTypeException');
        expect(answer.json.message).toMatch(/^content-type: /);
      }
    }
    expect(await snapshot(f)).toEqual(before);
  });

  it('takes JSON, application/octet-stream, and no type on a bodyless heartbeat', async () => {
    const f = new ApiFixture();
    const { callbackId } = await runWaitingOnCallback(f);
    const heartbeat = await f.call('POST', callback(callbackId, 'heartbeat'), {
      headers: { 'content-type': undefined },
    });
    expect(heartbeat.status).toBe(200);
    const invoked = await f.call('POST', invoke, {
      body: '{"order":4}',
      headers: { 'content-type': 'application/octet-stream', 'x-amz-invocation-type': 'Event' },
    });
    expect(invoked.status).toBe(202);
    const succeeded = await f.call('POST', callback(callbackId, 'succeed'), {
      body: '"yes"',
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(succeeded.status).toBe(200);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
