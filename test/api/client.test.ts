import type { IncomingMessage, ServerResponse } from 'node:http';
import { request } from 'node:http';
import {
  createControlApi,
  DurableApiError,
  DurableClient,
  DurableConnectionError,
  toNodeListener,
} from '@durable-lambda/api';
import { afterEach, describe, expect, it } from 'vitest';
import { deadUrl, LiveBackend, listen } from './support';

interface Seen {
  method: string;
  url: string;
  key: string | undefined;
  body: string;
}

/** A node:http server answering from a script, one entry per request; records what it saw. */
async function scripted(script: Array<(req: IncomingMessage, res: ServerResponse) => void>) {
  const seen: Seen[] = [];
  const server = await listen((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', key: req.headers['idempotency-key'] as string, body });
      const next = script[Math.min(seen.length - 1, script.length - 1)];
      next?.(req, res);
    });
  });
  closers.push(server.close);
  return { url: server.url, seen };
}

const json =
  (status: number, value: unknown, headers: Record<string, string> = {}) =>
  (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(value));
  };
const hangUp = (req: IncomingMessage) => req.socket.destroy();
const run = {
  runId: 'r1',
  function: 'fn',
  status: 'RUNNING',
  createdAt: 'x',
  updatedAt: 'x',
  invocations: 0,
  lostInvocations: 0,
};

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
});

describe('DurableClient retries', () => {
  it('retries 429 and 503 with the same Idempotency-Key, then returns the answer', async () => {
    const s = await scripted([
      json(429, { error: { code: 'rate_limited', message: 'slow down' } }),
      json(503, { error: { code: 'unavailable', message: 'try later' } }),
      json(201, run),
    ]);
    const client = new DurableClient({ baseUrl: s.url, backoffMs: 1 });
    const result = await client.startRun({ function: 'fn', input: { a: 1 } });
    expect(result).toEqual({ run, created: true, replayed: false });
    expect(s.seen).toHaveLength(3);
    const keys = s.seen.map((r) => r.key);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys)).toEqual(new Set([keys[0]]));
    expect(s.seen.map((r) => r.body)).toEqual(Array(3).fill('{"function":"fn","input":{"a":1}}'));
  });

  it('retries a network error (connection dropped) with the same key', async () => {
    const s = await scripted([hangUp, hangUp, json(200, run, { 'idempotent-replayed': 'true' })]);
    const client = new DurableClient({ baseUrl: s.url, backoffMs: 1 });
    const result = await client.cancelRun('r1', { idempotencyKey: 'my-key' });
    expect(result).toEqual(run);
    expect(s.seen.map((r) => [r.method, r.url, r.key])).toEqual(
      Array(3).fill(['POST', '/v1/runs/r1/cancel', 'my-key']),
    );
  });

  it('retries a 409 idempotency_in_progress with the same key', async () => {
    const s = await scripted([
      json(409, { error: { code: 'idempotency_in_progress', message: 'wait' } }),
      json(200, { callbackId: 'c', outcome: 'succeeded' }),
    ]);
    const client = new DurableClient({ baseUrl: s.url, backoffMs: 1 });
    expect(await client.succeedCallback('c', [1])).toEqual({ callbackId: 'c', outcome: 'succeeded' });
    expect(s.seen[0]?.key).toBe(s.seen[1]?.key);
    expect(s.seen[1]?.body).toBe('{"result":[1]}');
  });

  it('gives up after `retries` retries: the last 503 is thrown as DurableApiError', async () => {
    const s = await scripted([json(503, { error: { code: 'unavailable', message: 'down' } })]);
    const client = new DurableClient({ baseUrl: s.url, backoffMs: 1, retries: 2 });
    const error = await client.getRun('r1').catch((e) => e);
    expect(error).toBeInstanceOf(DurableApiError);
    expect(error).toMatchObject({ status: 503, code: 'unavailable', message: 'down' });
    expect(s.seen).toHaveLength(3);
  });

  it('does not retry other errors: a typed DurableApiError with status, code and message', async () => {
    const s = await scripted([json(404, { error: { code: 'run_not_found', message: 'run r9 not found' } })]);
    const client = new DurableClient({ baseUrl: s.url, backoffMs: 1 });
    const error = await client.getRun('r9').catch((e) => e);
    expect(error).toBeInstanceOf(DurableApiError);
    expect(error).toMatchObject({
      name: 'DurableApiError',
      status: 404,
      code: 'run_not_found',
      message: 'run r9 not found',
    });
    expect(s.seen).toHaveLength(1);
  });

  it('names an error answer without a JSON error body http_<status>', async () => {
    const s = await scripted([
      (_req, res) => {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end('<h1>Bad gateway</h1>');
      },
    ]);
    const error = await new DurableClient({ baseUrl: s.url }).listFunctions().catch((e) => e);
    expect(error).toMatchObject({ status: 502, code: 'http_502', message: '<h1>Bad gateway</h1>' });
  });

  it('throws DurableConnectionError when the API stays unreachable', async () => {
    const url = await deadUrl();
    const tries: string[] = [];
    const client = new DurableClient({
      baseUrl: url,
      backoffMs: 1,
      retries: 2,
      fetch: (input, init) => {
        tries.push(String(input));
        return fetch(input, init);
      },
    });
    const error = await client.listRuns().catch((e) => e);
    expect(error).toBeInstanceOf(DurableConnectionError);
    expect(error.message).toContain(`cannot reach ${url}/v1/runs`);
    expect(tries).toHaveLength(3);
  });

  it('sends a fresh key per call, and builds paths and queries', async () => {
    const s = await scripted([json(200, { runs: [] })]);
    const client = new DurableClient({ baseUrl: `${s.url}/`, backoffMs: 1 });
    await client.listRuns({
      function: 'f n',
      status: 'FAILED',
      limit: 5,
      cursor: 'c/1',
      createdAfter: new Date(Date.UTC(2026, 0, 2)),
      createdBefore: '2026-02-01T00:00:00Z',
    });
    await client.heartbeatCallback('a/b');
    await client.heartbeatCallback('a/b');
    expect(s.seen[0]?.url).toBe(
      '/v1/runs?function=f+n&status=FAILED&limit=5&cursor=c%2F1&createdAfter=2026-01-02T00%3A00%3A00.000Z&createdBefore=2026-02-01T00%3A00%3A00Z',
    );
    expect(s.seen[0]?.key).toBeUndefined();
    expect(s.seen[1]?.url).toBe('/v1/callbacks/a%2Fb/heartbeat');
    expect(s.seen[1]?.key).not.toBe(s.seen[2]?.key);
  });

  it('asks for a concurrency key’s queued runs and for functions with their run counts', async () => {
    const s = await scripted([json(200, { runs: [] }), json(200, { functions: [] })]);
    const client = new DurableClient({ baseUrl: s.url, backoffMs: 1 });
    await client.listRuns({ function: 'jobs', status: 'QUEUED', concurrencyKey: 'tenant a' });
    await client.listFunctions({ includeCounts: true });
    await client.listFunctions();
    expect(s.seen.map((seen) => seen.url)).toEqual([
      '/v1/runs?function=jobs&status=QUEUED&concurrencyKey=tenant+a',
      '/v1/functions?include=counts',
      '/v1/functions',
    ]);
  });
});

describe('DurableClient against the real API over node:http', () => {
  async function live() {
    const backend = new LiveBackend();
    backend.register('greet', async (event: { name: string }) => `hello ${event.name}`);
    backend.register('approve', async (_e, ctx) => {
      const [promise] = await ctx.createCallback('approval');
      return JSON.parse((await promise) as string);
    });
    const api = createControlApi({ engine: backend.engine, functions: [...backend.handlers.keys()] });
    const server = await listen(toNodeListener(api));
    closers.push(server.close);
    return { backend, client: new DurableClient({ baseUrl: server.url, backoffMs: 1 }), url: server.url };
  }

  it('drives every route', async () => {
    const { backend, client } = await live();
    expect(await client.listFunctions()).toEqual({ functions: [{ name: 'greet' }, { name: 'approve' }] });
    const started = await client.startRun({ function: 'greet', input: { name: 'Ada' }, runKey: 'g1' });
    expect(started.created).toBe(true);
    await backend.waitForStatus(started.run.runId, 'SUCCEEDED');
    expect((await client.getRun(started.run.runId)).result).toBe('hello Ada');
    const found = await client.startRun({ function: 'greet', input: { name: 'Ada' }, runKey: 'g1' });
    expect(found).toMatchObject({ created: false, run: { runId: started.run.runId, status: 'SUCCEEDED' } });
    const conflict = await client.startRun({ function: 'greet', input: { name: 'Bob' }, runKey: 'g1' }).catch((e) => e);
    expect(conflict).toMatchObject({ status: 409, code: 'run_key_conflict' });

    const waiting = (await client.startRun({ function: 'approve' })).run.runId;
    const callbackId = await backend.waitForCallback(waiting);
    const history = await client.getOperations(waiting);
    expect(history.operations.find((o) => o.type === 'CALLBACK')?.callbackId).toBe(callbackId);
    expect(await client.heartbeatCallback(callbackId)).toEqual({ callbackId, outcome: 'heartbeat' });
    expect(await client.succeedCallback(callbackId, { ok: true })).toEqual({ callbackId, outcome: 'succeeded' });
    await backend.waitForStatus(waiting, 'SUCCEEDED');
    expect((await client.getRun(waiting)).result).toEqual({ ok: true });
    const twice = await client.failCallback(callbackId, { message: 'late' }).catch((e) => e);
    expect(twice).toMatchObject({ status: 409, code: 'callback_already_completed' });

    const other = (await client.startRun({ function: 'approve' })).run.runId;
    await backend.waitForCallback(other);
    expect((await client.cancelRun(other)).status).toBe('CANCELLED');
    expect(await client.retryRun(other).catch((e) => e)).toMatchObject({ status: 409, code: 'run_state_conflict' });
    const list = await client.listRuns({ function: 'approve' });
    expect(list.runs.map((r) => r.runId)).toEqual([other, waiting]);
  });

  it('replays a POST sent again with the same key (idempotent-replayed)', async () => {
    const { client, backend } = await live();
    const first = await client.startRun({ function: 'greet', input: { name: 'x' } }, { idempotencyKey: 'same' });
    const again = await client.startRun({ function: 'greet', input: { name: 'x' } }, { idempotencyKey: 'same' });
    expect(again).toMatchObject({ created: true, replayed: true, run: { runId: first.run.runId } });
    expect((await backend.engine.listRuns({})).runs).toHaveLength(1);
  });
});

describe('toNodeListener', () => {
  it('answers 413 payload_too_large past maxBodyBytes, whether Content-Length says so or not', async () => {
    const backend = new LiveBackend();
    const api = createControlApi({ engine: backend.engine, functions: ['fn'], maxBodyBytes: 1024 });
    const server = await listen(toNodeListener(api));
    closers.push(server.close);
    const big = JSON.stringify({ function: 'fn', input: 'x'.repeat(5000) });
    const declared = await fetch(`${server.url}/v1/runs`, { method: 'POST', body: big });
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as any).error.code).toBe('payload_too_large');
    const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${server.url}/v1/runs`, { method: 'POST' }, (res) => {
        let body = '';
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.write(big.slice(0, 3000));
      req.end(big.slice(3000));
    });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body).error.code).toBe('payload_too_large');
    expect((await backend.engine.listRuns({})).runs).toEqual([]);
  });

  it('passes path, query and headers through', async () => {
    const backend = new LiveBackend();
    const api = createControlApi({ engine: backend.engine, functions: ['fn'] });
    const server = await listen(toNodeListener(api));
    closers.push(server.close);
    const bad = await fetch(`${server.url}/v1/runs?status=NOPE`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.message).toMatch(/^status: /);
    const wrong = await fetch(`${server.url}/v1/runs`, {
      method: 'POST',
      headers: { 'Idempotency-Key': 'é', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(wrong.status).toBe(400);
    const notFound = await fetch(`${server.url}//v1/runs`);
    expect(notFound.status).toBe(404);
  });
});
