import { createControlApi, operationToWire, runToWire, toLambdaHandler } from '@durable-lambda/api';
import { type Engine, issueCallbackId, wakeEvent } from '@durable-lambda/engine';
import { describe, expect, it } from 'vitest';
import { ApiFixture, durable, runWaitingOnCallback } from './support';

const failing = durable(async (_e, ctx) => {
  await ctx.step(
    'boom',
    async () => {
      throw new Error('gateway down');
    },
    { retry: { maxAttempts: 1 } },
  );
  return 'never';
});

describe('GET /v1/functions', () => {
  it('lists the served functions, read at each request', async () => {
    const f = new ApiFixture();
    expect(await f.call('GET', '/v1/functions')).toMatchObject({
      status: 200,
      json: { functions: [{ name: 'fn' }, { name: 'other' }] },
    });
    f.functions = ['late'];
    expect((await f.call('GET', '/v1/functions')).json).toEqual({ functions: [{ name: 'late' }] });
    const fixed = createControlApi({ engine: f.engine, functions: ['a'] });
    expect(JSON.parse((await fixed.handle({ method: 'GET', path: '/v1/functions' })).body)).toEqual({
      functions: [{ name: 'a' }],
    });
  });
});

describe('POST /v1/runs', () => {
  it('creates a run (201, location), answers it as RunWire and invokes its function with the wake event', async () => {
    const f = new ApiFixture();
    const answer = await f.call('POST', '/v1/runs', { body: { function: 'fn', input: { order: 7 } } });
    expect(answer.status).toBe(201);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers.location).toBe(`/v1/runs/${answer.json.runId}`);
    expect(answer.json).toEqual({
      runId: expect.stringMatching(/^r[0-9a-z]+$/),
      function: 'fn',
      status: 'RUNNING',
      input: { order: 7 },
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      nextWakeAt: '2026-01-01T00:00:00.000Z',
      invocations: 0,
      lostInvocations: 0,
    });
    expect(f.invoked).toEqual([{ functionName: 'fn', event: wakeEvent(answer.json.runId) }]);
    expect((await f.engine.getRun(answer.json.runId))?.input).toBe('{"order":7}');
  });

  it('answers the existing run (200) for the same runKey, function and input, without invoking it again', async () => {
    const f = new ApiFixture();
    const body = { function: 'fn', input: [1, 2], runKey: 'order-1' };
    const first = await f.call('POST', '/v1/runs', { body });
    expect(first.status).toBe(201);
    expect(first.json.runKey).toBe('order-1');
    await f.drive(
      first.json.runId,
      durable(async () => 'done'),
    );
    const again = await f.call('POST', '/v1/runs', { body });
    expect(again.status).toBe(200);
    expect(again.headers.location).toBeUndefined();
    expect(again.json).toMatchObject({ runId: first.json.runId, status: 'SUCCEEDED', result: 'done' });
    expect(f.invoked).toHaveLength(1);
  });

  it('invokes again a run found by its runKey that was never invoked (its first invoke failed)', async () => {
    const f = new ApiFixture();
    f.invokerImpl = async () => {
      throw new Error('throttled');
    };
    const body = { function: 'fn', runKey: 'k' };
    const first = await f.call('POST', '/v1/runs', { body });
    // The invoke failed: the waker was asked instead, so the run is not stranded.
    expect(first.status).toBe(201);
    expect(f.wakeUps).toEqual([{ runId: first.json.runId, functionName: 'fn', at: f.clock.now(), reason: 'event' }]);
    f.invokerImpl = async () => {};
    expect((await f.call('POST', '/v1/runs', { body })).status).toBe(200);
    expect(f.invoked).toHaveLength(2);
  });

  it('answers 201 when neither the invoker nor the waker can start the run: the run is due, left to the reconciler', async () => {
    const f = new ApiFixture();
    f.invokerImpl = async () => {
      throw new Error('throttled');
    };
    (f.engine as { waker: Engine['waker'] }).waker = {
      wakeAt: async () => {
        throw new Error('scheduler down');
      },
    };
    const answer = await f.call('POST', '/v1/runs', { body: { function: 'fn', runKey: 'k' } });
    expect(answer.status).toBe(201);
    expect(answer.json).toMatchObject({ status: 'RUNNING', invocations: 0 });
    expect(f.errors.map(String)).toEqual(['Error: throttled', 'Error: scheduler down']);
    expect(await f.store.findDueRuns(f.clock.now(), 10)).toEqual([{ runId: answer.json.runId, dueAt: f.clock.now() }]);
  });

  it('without any invoker, asks the engine waker to wake the new run', async () => {
    const f = new ApiFixture();
    const api = createControlApi({ engine: { ...pick(f.engine), invoker: undefined }, functions: ['fn'] });
    const answer = await api.handle({
      method: 'POST',
      path: '/v1/runs',
      headers: { 'content-type': 'application/json' },
      body: '{"function":"fn"}',
    });
    expect(answer.status).toBe(201);
    expect(f.invoked).toEqual([]);
    expect(f.wakeUps).toHaveLength(1);
  });

  it('refuses a runKey reused with another input or function: 409 run_key_conflict', async () => {
    const f = new ApiFixture();
    await f.call('POST', '/v1/runs', { body: { function: 'fn', input: 1, runKey: 'k' } });
    for (const body of [
      { function: 'fn', input: 2, runKey: 'k' },
      { function: 'other', input: 1, runKey: 'k' },
      { function: 'fn', runKey: 'k' },
    ]) {
      const answer = await f.call('POST', '/v1/runs', { body });
      expect(answer.status).toBe(409);
      expect(answer.json.error.code).toBe('run_key_conflict');
    }
  });

  it('answers 404 function_not_found for a function the API does not serve, and starts nothing', async () => {
    const f = new ApiFixture();
    const answer = await f.call('POST', '/v1/runs', { body: { function: 'nope' } });
    expect(answer.status).toBe(404);
    expect(answer.json.error.code).toBe('function_not_found');
    expect(answer.json.error.message).toMatch(/^function: /);
    expect(f.store.runIds()).toEqual([]);
  });

  it('answers 400 naming the field for bad input, and invalid_json for text that is not JSON', async () => {
    const f = new ApiFixture();
    const cases: Array<[unknown, string, string]> = [
      [{}, 'invalid_argument', 'function: '],
      [{ function: '' }, 'invalid_argument', 'function: '],
      [{ function: 3 }, 'invalid_argument', 'function: '],
      [{ function: 'fn', runKey: 5 }, 'invalid_argument', 'runKey: '],
      [{ function: 'fn', runKey: 'x'.repeat(257) }, 'invalid_argument', 'runKey: '],
      [{ function: 'fn', fnction: 'x' }, 'invalid_argument', 'fnction: '],
      ['[1]', 'invalid_argument', 'body: '],
      ['', 'invalid_argument', 'body: '],
      ['{"function":', 'invalid_json', 'body: '],
    ];
    for (const [body, code, prefix] of cases) {
      const answer = await f.call('POST', '/v1/runs', { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.json.error.code, JSON.stringify(body)).toBe(code);
      expect(answer.json.error.message.startsWith(prefix), answer.json.error.message).toBe(true);
    }
    expect(f.store.runIds()).toEqual([]);
  });

  it('stores a null input as JSON null and any JSON input as its text', async () => {
    const f = new ApiFixture();
    const runId = await f.start('fn', null);
    expect((await f.engine.getRun(runId))?.input).toBe('null');
    expect((await f.call('GET', `/v1/runs/${runId}`)).json.input).toBeNull();
  });
});

describe('GET /v1/runs/{runId}', () => {
  it('answers the run, with its result once it ended', async () => {
    const f = new ApiFixture();
    const runId = await f.start('fn', { a: 1 });
    f.clock.advanceBy(1000);
    await f.drive(
      runId,
      durable(async (event: { a: number }) => ({ doubled: event.a * 2 })),
    );
    const answer = await f.call('GET', `/v1/runs/${runId}`);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      runId,
      status: 'SUCCEEDED',
      input: { a: 1 },
      result: { doubled: 2 },
      endedAt: '2026-01-01T00:00:01.000Z',
      invocations: 1,
    });
    expect(answer.json.nextWakeAt).toBeUndefined();
  });

  it('answers 404 run_not_found for an unknown run', async () => {
    const f = new ApiFixture();
    const answer = await f.call('GET', '/v1/runs/rnope');
    expect(answer).toMatchObject({ status: 404, json: { error: { code: 'run_not_found' } } });
  });

  it('shows a failed run error as {code, message, type}', async () => {
    const f = new ApiFixture();
    const runId = await f.start();
    await f.drive(runId, failing);
    const answer = await f.call('GET', `/v1/runs/${runId}`);
    expect(answer.json.status).toBe('FAILED');
    expect(answer.json.error).toEqual({ code: expect.any(String), message: 'gateway down', type: expect.any(String) });
  });
});

describe('GET /v1/runs', () => {
  async function threeRuns(f: ApiFixture) {
    const a = await f.start('fn');
    f.clock.advanceBy(60_000);
    const b = await f.start('other');
    f.clock.advanceBy(60_000);
    const c = await f.start('fn');
    await f.drive(
      c,
      durable(async () => 'ok'),
    );
    return { a, b, c };
  }

  it('lists runs newest first, filtered by function and status, paginated with nextCursor', async () => {
    const f = new ApiFixture();
    const { a, b, c } = await threeRuns(f);
    const all = await f.call('GET', '/v1/runs');
    expect(all.status).toBe(200);
    expect(all.json.runs.map((r: { runId: string }) => r.runId)).toEqual([c, b, a]);
    expect(all.json.nextCursor).toBeUndefined();

    const fn = await f.call('GET', '/v1/runs', { query: { function: 'fn' } });
    expect(fn.json.runs.map((r: { runId: string }) => r.runId)).toEqual([c, a]);
    const done = await f.call('GET', '/v1/runs', { query: { status: 'SUCCEEDED' } });
    expect(done.json.runs.map((r: { runId: string }) => r.runId)).toEqual([c]);

    const page1 = await f.call('GET', '/v1/runs', { query: { limit: '2' } });
    expect(page1.json.runs.map((r: { runId: string }) => r.runId)).toEqual([c, b]);
    expect(typeof page1.json.nextCursor).toBe('string');
    const page2 = await f.call('GET', '/v1/runs', { query: { limit: '2', cursor: page1.json.nextCursor } });
    expect(page2.json.runs.map((r: { runId: string }) => r.runId)).toEqual([a]);
    expect(page2.json.nextCursor).toBeUndefined();
  });

  it('filters by creation time with ISO createdAfter (inclusive) and createdBefore (exclusive)', async () => {
    const f = new ApiFixture();
    const { a, b } = await threeRuns(f);
    const answer = await f.call('GET', '/v1/runs', {
      query: { createdAfter: '2026-01-01T00:00:00Z', createdBefore: '2026-01-01T00:02:00.000Z' },
    });
    expect(answer.json.runs.map((r: { runId: string }) => r.runId)).toEqual([b, a]);
    const later = await f.call('GET', '/v1/runs', { query: { createdAfter: '2026-01-01T00:01:00+00:00' } });
    expect(later.json.runs).toHaveLength(2);
  });

  it('treats empty parameters as absent', async () => {
    const f = new ApiFixture();
    await threeRuns(f);
    const answer = await f.call('GET', '/v1/runs', { query: { function: '', status: '' } });
    expect(answer.json.runs).toHaveLength(3);
  });

  it('answers 400 naming the parameter for bad query values', async () => {
    const f = new ApiFixture();
    const cases: Array<[Record<string, string | string[]>, string]> = [
      [{ status: 'DONE' }, 'status: '],
      [{ limit: '0' }, 'limit: '],
      [{ limit: '101' }, 'limit: '],
      [{ limit: 'ten' }, 'limit: '],
      [{ limit: '1.5' }, 'limit: '],
      [{ cursor: 'garbage' }, 'cursor: '],
      [{ createdAfter: 'yesterday' }, 'createdAfter: '],
      [{ createdBefore: '1767225600000' }, 'createdBefore: '],
      [{ stauts: 'RUNNING' }, 'stauts: '],
      [{ status: ['RUNNING', 'FAILED'] }, 'status: '],
    ];
    for (const [query, prefix] of cases) {
      const answer = await f.call('GET', '/v1/runs', { query });
      expect(answer.status, JSON.stringify(query)).toBe(400);
      expect(answer.json.error.code).toBe('invalid_argument');
      expect(answer.json.error.message.startsWith(prefix), answer.json.error.message).toBe(true);
    }
  });
});

describe('GET /v1/runs/{runId}/operations', () => {
  it("answers the run's history as OperationWire, a waiting callback with its id", async () => {
    const f = new ApiFixture();
    const handler = durable(async (_e, ctx) => {
      const n = await ctx.step('count', async () => 41 + 1);
      await ctx.step('text', async () => 'plain');
      await ctx.wait('pause', { seconds: 30 });
      const [promise] = await ctx.createCallback('approval', { timeout: { hours: 1 } });
      return { n, answer: await promise };
    });
    const runId = await f.start();
    await f.drive(runId, handler);
    await f.drive(runId, handler);
    const answer = await f.call('GET', `/v1/runs/${runId}/operations`);
    expect(answer.status).toBe(200);
    expect(answer.json.runId).toBe(runId);
    const byName = Object.fromEntries(answer.json.operations.map((op: { name?: string }) => [op.name ?? '-', op]));
    expect(byName['-']).toMatchObject({ id: '0', type: 'EXECUTION', status: 'STARTED' });
    expect(byName.count).toMatchObject({ type: 'STEP', status: 'SUCCEEDED', attempt: 1, result: 42 });
    expect(byName.text).toMatchObject({ type: 'STEP', result: 'plain' });
    expect(byName.pause).toMatchObject({ type: 'WAIT', status: 'SUCCEEDED', waitUntil: '2026-01-01T00:00:30.000Z' });
    expect(byName.approval).toMatchObject({
      type: 'CALLBACK',
      status: 'STARTED',
      callbackId: expect.stringMatching(/\./),
      timeoutAt: '2026-01-01T01:00:30.000Z',
    });
    expect(byName.approval.endedAt).toBeUndefined();
  });

  it('answers 404 run_not_found for an unknown run', async () => {
    const f = new ApiFixture();
    expect((await f.call('GET', '/v1/runs/rnope/operations')).json.error.code).toBe('run_not_found');
  });
});

describe('POST /v1/runs/{runId}/cancel and /retry', () => {
  it('cancels a running run and answers it; a second cancel is 409 run_state_conflict', async () => {
    const f = new ApiFixture();
    const { runId } = await runWaitingOnCallback(f);
    const answer = await f.call('POST', `/v1/runs/${runId}/cancel`);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ runId, status: 'CANCELLED', error: { code: 'run_cancelled' } });
    const again = await f.call('POST', `/v1/runs/${runId}/cancel`);
    expect(again).toMatchObject({ status: 409, json: { error: { code: 'run_state_conflict' } } });
    expect((await f.call('POST', '/v1/runs/rnope/cancel')).status).toBe(404);
  });

  it('retries a failed run: answers it RUNNING and wakes it once; a running run is 409', async () => {
    const f = new ApiFixture();
    const runId = await f.start();
    await f.drive(runId, failing);
    const invokedBefore = f.invoked.length;
    const answer = await f.call('POST', `/v1/runs/${runId}/retry`);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ runId, status: 'RUNNING' });
    expect(answer.json.error).toBeUndefined();
    // One wake-up, by the engine's waker: the route invokes nothing more.
    expect(f.wakeUps.filter((w) => w.runId === runId && w.reason === 'event')).toHaveLength(1);
    expect(f.invoked).toHaveLength(invokedBefore);
    const again = await f.call('POST', `/v1/runs/${runId}/retry`);
    expect(again).toMatchObject({ status: 409, json: { error: { code: 'run_state_conflict' } } });
    expect((await f.call('POST', '/v1/runs/rnope/retry')).json.error.code).toBe('run_not_found');
  });
});

describe('POST /v1/callbacks/{callbackId}/...', () => {
  it('succeed delivers the result as its JSON text; a second completion is 409 callback_already_completed', async () => {
    const f = new ApiFixture();
    const { runId, callbackId, handler } = await runWaitingOnCallback(f);
    const answer = await f.call('POST', `/v1/callbacks/${encodeURIComponent(callbackId)}/succeed`, {
      body: { result: { approved: true } },
    });
    expect(answer).toMatchObject({ status: 200, json: { callbackId, outcome: 'succeeded' } });
    await f.drive(runId, handler);
    expect((await f.call('GET', `/v1/runs/${runId}`)).json.result).toEqual({ received: '{"approved":true}' });
    const again = await f.call('POST', `/v1/callbacks/${callbackId}/succeed`, { body: { result: 1 } });
    expect(again).toMatchObject({ status: 409, json: { error: { code: 'callback_already_completed' } } });
  });

  it('succeed takes any JSON value, or no body at all', async () => {
    const f = new ApiFixture();
    const { runId, callbackId, handler } = await runWaitingOnCallback(f);
    await f.call('POST', `/v1/callbacks/${callbackId}/succeed`, { body: { result: 'yes' } });
    await f.drive(runId, handler);
    expect((await f.call('GET', `/v1/runs/${runId}`)).json.result).toEqual({ received: '"yes"' });

    const other = await runWaitingOnCallback(f);
    expect((await f.call('POST', `/v1/callbacks/${other.callbackId}/succeed`)).status).toBe(200);
    const op = (await f.call('GET', `/v1/runs/${other.runId}/operations`)).json.operations.find(
      (o: { type: string }) => o.type === 'CALLBACK',
    );
    expect(op).toMatchObject({ status: 'SUCCEEDED' });
    expect('result' in op).toBe(false);
  });

  it('fail delivers {code, message} to the waiting run', async () => {
    const f = new ApiFixture();
    const { runId, callbackId, handler } = await runWaitingOnCallback(f);
    const answer = await f.call('POST', `/v1/callbacks/${callbackId}/fail`, {
      body: { error: { code: 'declined', message: 'card declined' } },
    });
    expect(answer).toMatchObject({ status: 200, json: { callbackId, outcome: 'failed' } });
    await f.drive(runId, handler);
    expect((await f.call('GET', `/v1/runs/${runId}`)).json.result).toEqual({
      failed: 'card declined',
      code: 'declined',
    });
    const history = (await f.call('GET', `/v1/runs/${runId}/operations`)).json.operations;
    expect(history.find((o: { type: string }) => o.type === 'CALLBACK').error).toMatchObject({
      code: 'declined',
      message: 'card declined',
    });
  });

  it('fail keeps the error type and data (AWS ErrorObject fields), shown back on the operation', async () => {
    const f = new ApiFixture();
    const { callbackId, runId } = await runWaitingOnCallback(f);
    const answer = await f.call('POST', `/v1/callbacks/${callbackId}/fail`, {
      body: { error: { message: 'card declined', type: 'PaymentError', data: '{"retryable":false}' } },
    });
    expect(answer.status).toBe(200);
    const stored = (await f.engine.getOperations(runId)).find((o) => o.Type === 'CALLBACK')?.CallbackDetails?.Error;
    expect(stored).toMatchObject({
      ErrorMessage: 'card declined',
      ErrorType: 'PaymentError',
      ErrorData: '{"retryable":false}',
    });
    const history = (await f.call('GET', `/v1/runs/${runId}/operations`)).json.operations;
    expect(history.find((o: { type: string }) => o.type === 'CALLBACK').error).toMatchObject({
      message: 'card declined',
      type: 'PaymentError',
      data: '{"retryable":false}',
    });
  });

  it('fail answers 400 naming the field for a bad body', async () => {
    const f = new ApiFixture();
    const { callbackId } = await runWaitingOnCallback(f);
    const cases: Array<[unknown, string]> = [
      [{}, 'error: '],
      [{ error: 'x' }, 'error: '],
      [{ error: {} }, 'error.message: '],
      [{ error: { message: 1 } }, 'error.message: '],
      [{ error: { message: 'm', code: '' } }, 'error.code: '],
      [{ error: { message: 'm', type: 3 } }, 'error.type: '],
      [{ error: { message: 'm', data: {} } }, 'error.data: '],
      [{ error: { message: 'm', kind: 'x' } }, 'error.kind: '],
      [{ error: { message: 'm' }, extra: 1 }, 'extra: '],
      [undefined, 'body: '],
    ];
    for (const [body, prefix] of cases) {
      const answer = await f.call('POST', `/v1/callbacks/${callbackId}/fail`, { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.json.error.message.startsWith(prefix), answer.json.error.message).toBe(true);
    }
  });

  it('heartbeat keeps a callback alive (200), and refuses body fields', async () => {
    const f = new ApiFixture();
    const { runId, callbackId } = await runWaitingOnCallback(f, { heartbeatSeconds: 60 });
    const before = (await f.engine.getOperations(runId)).find((o) => o.Type === 'CALLBACK')?.CallbackDetails;
    f.clock.advanceBy(30_000);
    const answer = await f.call('POST', `/v1/callbacks/${callbackId}/heartbeat`);
    expect(answer).toMatchObject({ status: 200, json: { callbackId, outcome: 'heartbeat' } });
    const after = (await f.engine.getOperations(runId)).find((o) => o.Type === 'CALLBACK')?.CallbackDetails;
    expect(after?.HeartbeatDeadline).toBe((before?.HeartbeatDeadline ?? 0) + 30_000);
    expect((await f.call('POST', `/v1/callbacks/${callbackId}/heartbeat`, { body: {} })).status).toBe(200);
    const bad = await f.call('POST', `/v1/callbacks/${callbackId}/heartbeat`, { body: { x: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toMatch(/^x: /);
  });

  it('maps callback errors: 400 invalid_callback_id, 404 callback_not_found, 413 payload_too_large', async () => {
    const f = new ApiFixture({ maxPayloadBytes: 100 });
    const malformed = await f.call('POST', '/v1/callbacks/not-an-id/succeed', { body: {} });
    expect(malformed).toMatchObject({ status: 400, json: { error: { code: 'invalid_callback_id' } } });
    const unknown = await f.call('POST', `/v1/callbacks/${issueCallbackId('rnope', '1')}/heartbeat`);
    expect(unknown).toMatchObject({ status: 404, json: { error: { code: 'callback_not_found' } } });
    const { callbackId } = await runWaitingOnCallback(f);
    const big = await f.call('POST', `/v1/callbacks/${callbackId}/succeed`, { body: { result: 'x'.repeat(200) } });
    expect(big).toMatchObject({ status: 413, json: { error: { code: 'payload_too_large' } } });
  });
});

describe('routing and errors', () => {
  it('answers 404 not_found for unknown routes and 405 method_not_allowed (with allow) for wrong methods', async () => {
    const f = new ApiFixture();
    for (const path of ['/', '/v1', '/v2/runs', '/v1/runs/r1/nothing', '/v1/callbacks/x', '/v1/runs//operations']) {
      const answer = await f.call('GET', path);
      expect(answer.status, path).toBe(404);
      expect(answer.json.error.code).toBe('not_found');
    }
    const cases: Array<[string, string, string]> = [
      ['DELETE', '/v1/runs', 'GET, POST'],
      ['PUT', '/v1/runs/r1', 'GET'],
      ['GET', '/v1/runs/r1/cancel', 'POST'],
      ['GET', '/v1/callbacks/x/succeed', 'POST'],
      ['POST', '/v1/functions', 'GET'],
    ];
    for (const [method, path, allow] of cases) {
      const answer = await f.call(method, path);
      expect(answer.status, `${method} ${path}`).toBe(405);
      expect(answer.json.error.code).toBe('method_not_allowed');
      expect(answer.headers.allow).toBe(allow);
    }
  });

  it('accepts one trailing slash, any method case, and percent-encoded ids', async () => {
    const f = new ApiFixture();
    const runId = await f.start();
    expect((await f.call('get', `/v1/runs/${runId}/`)).json.runId).toBe(runId);
    expect((await f.call('GET', `/v1/runs/${encodeURIComponent(runId)}`)).status).toBe(200);
    const bad = await f.call('GET', '/v1/runs/%E0%A4%A');
    expect(bad).toMatchObject({ status: 400, json: { error: { code: 'invalid_argument' } } });
  });

  it('answers 413 payload_too_large for a body over maxBodyBytes, before any work', async () => {
    const f = new ApiFixture({ maxBodyBytes: 64 });
    const answer = await f.call('POST', '/v1/runs', { body: { function: 'fn', input: 'x'.repeat(100) } });
    expect(answer).toMatchObject({ status: 413, json: { error: { code: 'payload_too_large' } } });
    expect(f.store.runIds()).toEqual([]);
    // Multi-byte characters count as bytes.
    expect((await f.call('POST', '/v1/runs', { body: `{"function":"fn","input":"${'é'.repeat(25)}"}` })).status).toBe(
      413,
    );
  });

  it('refuses JSON nested deeper than 256 levels: 400 naming the field, where serializing it would overflow the stack', async () => {
    const f = new ApiFixture();
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    // Deep enough to overflow JSON.stringify, and still under the default 1 MiB body limit.
    const deep = await f.call('POST', '/v1/runs', { body: `{"function":"fn","input":${nested(200_000)}}` });
    expect(deep).toMatchObject({ status: 400, json: { error: { code: 'invalid_argument' } } });
    expect(deep.json.error.message).toMatch(/^input: nests arrays and objects deeper than 256 levels/);
    expect(f.store.runIds()).toEqual([]);
    const { callbackId } = await runWaitingOnCallback(f);
    const result = await f.call('POST', `/v1/callbacks/${callbackId}/succeed`, { body: `{"result":${nested(256)}}` });
    expect(result.json.error.message).toMatch(/^result: /);
    // 256 levels, the body's own included, are accepted.
    expect(
      (await f.call('POST', `/v1/callbacks/${callbackId}/succeed`, { body: `{"result":${nested(255)}}` })).status,
    ).toBe(200);
    expect(f.errors).toEqual([]);
  });

  it('takes a query parameter named __proto__ as an unknown parameter, through the adapters too', async () => {
    const f = new ApiFixture();
    const lambda = toLambdaHandler(f.api);
    const answer = await lambda({
      rawPath: '/v1/runs',
      rawQueryString: '__proto__=a&__proto__=b',
      requestContext: { http: { method: 'GET' } },
    });
    expect(answer.statusCode).toBe(400);
    expect(JSON.parse(answer.body).error.message).toMatch(/^__proto__: unknown query parameter/);
  });

  it('answers 500 internal_error for unexpected errors, hiding them, and reports them', async () => {
    const f = new ApiFixture();
    const broken = {
      ...pick(f.engine),
      getRun: async () => {
        throw new Error('disk on fire');
      },
    };
    const errors: unknown[] = [];
    const api = createControlApi({ engine: broken, functions: [], onError: (e) => void errors.push(e) });
    const answer = await api.handle({ method: 'GET', path: '/v1/runs/r1' });
    expect(answer.status).toBe(500);
    expect(JSON.parse(answer.body)).toEqual({ error: { code: 'internal_error', message: 'internal error' } });
    expect(errors).toHaveLength(1);
  });

  it('validates its options', () => {
    const f = new ApiFixture();
    expect(() => createControlApi({ engine: f.engine, functions: [], maxBodyBytes: 0 })).toThrow(/maxBodyBytes/);
    expect(() => createControlApi({ engine: f.engine, functions: [], idempotencyTtlMs: -1 })).toThrow(
      /idempotencyTtlMs/,
    );
  });
});

describe('wire conversion', () => {
  it('keeps a payload that is not JSON as its raw string, and a missing error code as "error"', () => {
    const wire = runToWire({
      runId: 'r1',
      functionName: 'fn',
      status: 'FAILED',
      input: 'not json',
      error: { ErrorMessage: 'bad' },
      createdAt: 0,
      updatedAt: 0,
      endedAt: 5,
      nextWakeAt: 3,
      fence: 1,
      invocations: 1,
      lostInvocations: 0,
      eventSeq: 0,
      handledEventSeq: 0,
      parent: { runId: 'p', operationId: '2' },
    });
    expect(wire).toEqual({
      runId: 'r1',
      function: 'fn',
      status: 'FAILED',
      input: 'not json',
      error: { code: 'error', message: 'bad' },
      createdAt: '1970-01-01T00:00:00.000Z',
      updatedAt: '1970-01-01T00:00:00.000Z',
      endedAt: '1970-01-01T00:00:00.005Z',
      invocations: 1,
      lostInvocations: 0,
      parent: { runId: 'p', operationId: '2' },
    });
    expect(
      operationToWire({
        Id: '3',
        ParentId: '2',
        Type: 'STEP',
        SubType: 'Step',
        Status: 'PENDING',
        StartTimestamp: 0,
        StepDetails: {
          Attempt: 2,
          NextAttemptTimestamp: 1000,
          Error: { ErrorCode: 'step_timeout', ErrorMessage: 'slow', ErrorType: 'StepError' },
        },
      }),
    ).toEqual({
      id: '3',
      parentId: '2',
      type: 'STEP',
      subType: 'Step',
      status: 'PENDING',
      startedAt: '1970-01-01T00:00:00.000Z',
      attempt: 2,
      nextAttemptAt: '1970-01-01T00:00:01.000Z',
      error: { code: 'step_timeout', message: 'slow', type: 'StepError' },
    });
    expect(
      operationToWire({
        Id: '4',
        Type: 'CHAINED_INVOKE',
        Status: 'SUCCEEDED',
        StartTimestamp: 0,
        EndTimestamp: 1,
        ChainedInvokeDetails: { FunctionName: 'child', ChildRunId: 'kabc', Result: 'raw text' },
      }),
    ).toMatchObject({ invokedFunction: 'child', childRunId: 'kabc', result: 'raw text' });
  });
});

/** The engine's members the API uses, bound, so a test can replace some. */
function pick(engine: Engine) {
  return {
    startRun: engine.startRun.bind(engine),
    getRun: engine.getRun.bind(engine),
    getOperations: engine.getOperations.bind(engine),
    listRuns: engine.listRuns.bind(engine),
    cancelRun: engine.cancelRun.bind(engine),
    retryRun: engine.retryRun.bind(engine),
    skipStep: engine.skipStep.bind(engine),
    openRun: engine.openRun.bind(engine),
    wakeRun: engine.wakeRun.bind(engine),
    sendCallbackSuccess: engine.sendCallbackSuccess.bind(engine),
    sendCallbackFailure: engine.sendCallbackFailure.bind(engine),
    sendCallbackHeartbeat: engine.sendCallbackHeartbeat.bind(engine),
    sendSignal: engine.sendSignal.bind(engine),
    runSignals: engine.runSignals.bind(engine),
    store: engine.store,
    waker: engine.waker,
    invoker: engine.invoker,
    clock: engine.clock,
  };
}
