/**
 * `POST /v1/runs/{id}/signals/{name}` and `GET /v1/runs/{id}/signals` (issue 27): a signal sent
 * through the API wakes the run waiting for it and is listed as delivered; a retry with the same
 * `Idempotency-Key` is answered as the first and stored once; bad input is refused with the field
 * named and a stable code; an ended run answers 409 `run_ended`.
 */
import { describe, expect, it } from 'vitest';
import { ApiFixture, durable } from './support';

const waiter = durable(async (_event, ctx) => {
  const first = await ctx.waitForSignal<{ ok: boolean }>('approved');
  const second = await ctx
    .waitForSignal('approved', { timeout: { minutes: 5 } })
    .catch((e: unknown) => (e as Error).name);
  return { first, second };
});

describe('signal routes', () => {
  it('sends a signal that wakes the waiting run, and lists it delivered, with the open waits before', async () => {
    const f = new ApiFixture();
    const runId = await f.start('fn', {});
    await f.drive(runId, waiter);
    const before = await f.call('GET', `/v1/runs/${runId}/signals`);
    expect(before.status).toBe(200);
    expect(before.json).toEqual({ runId, signals: [], waiting: [{ operationId: '1', name: 'approved' }] });
    expect((await f.call('GET', `/v1/runs/${runId}`)).json.signals).toBeUndefined();
    // The run list says what it waits for: the signal, by name (no callback id to hand out).
    const listedRuns = await f.call('GET', '/v1/runs', { query: { include: 'waitingFor' } });
    expect(listedRuns.json.runs.find((r: { runId: string }) => r.runId === runId)?.waitingFor).toEqual([
      { kind: 'signal', operationId: '1', name: 'approved' },
    ]);
    const wakeUps = f.wakeUps.length;
    const sent = await f.call('POST', `/v1/runs/${runId}/signals/approved`, { body: { ok: true } });
    expect(sent.status).toBe(200);
    expect(sent.json).toMatchObject({ runId, name: 'approved', seq: 1, created: true });
    // The run was woken (asked of the waker, now).
    expect(f.wakeUps.slice(wakeUps)).toEqual([expect.objectContaining({ runId, reason: 'event' })]);
    await f.drive(runId, waiter);
    // The run says how many signals it was sent (the dashboard asks for the list only then).
    expect((await f.call('GET', `/v1/runs/${runId}`)).json.signals).toBe(1);
    const listed = await f.call('GET', `/v1/runs/${runId}/signals`);
    expect(listed.json.signals).toEqual([
      {
        seq: 1,
        name: 'approved',
        payload: { ok: true },
        sentAt: sent.json.sentAt,
        state: 'delivered',
        operationId: '1',
      },
    ]);
    expect(listed.json.waiting).toEqual([{ operationId: '2', name: 'approved', timeoutAt: expect.any(String) }]);
  });

  it('stores a signal retried with the same Idempotency-Key once, and keeps it for the wait', async () => {
    const f = new ApiFixture();
    const runId = await f.start('fn', {});
    const headers = { 'idempotency-key': 'send-1' };
    const first = await f.call('POST', `/v1/runs/${runId}/signals/approved`, { body: { ok: 1 }, headers });
    const again = await f.call('POST', `/v1/runs/${runId}/signals/approved`, { body: { ok: 1 }, headers });
    expect(first.status).toBe(200);
    expect(again.json).toEqual(first.json);
    // The same key on the store itself (the API's record of the answer lost): still once.
    const direct = await f.engine.sendSignal(runId, 'approved', '{"ok":1}', { dedupeKey: 'approved send-1' });
    expect(direct).toMatchObject({ created: false, seq: 1 });
    expect(await f.store.listSignals(runId)).toHaveLength(1);
    await f.drive(runId, waiter);
    await f.drive(runId, waiter);
    const run = await f.engine.getRun(runId);
    expect(JSON.parse(run?.result ?? 'null')).toEqual({ first: { ok: 1 }, second: 'SignalTimeoutError' });
  });

  it('refuses bad input with the field named and a stable code', async () => {
    const f = new ApiFixture();
    const runId = await f.start('fn', {});
    const bad = await f.call('POST', `/v1/runs/${runId}/signals/${encodeURIComponent('no spaces')}`, { body: 1 });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'invalid_argument' });
    expect(bad.json.error.message).toMatch(/^name: /);
    const long = await f.call('POST', `/v1/runs/${runId}/signals/${'x'.repeat(129)}`, { body: 1 });
    expect(long.status).toBe(400);
    expect(long.json.error.message).toMatch(/^name: must be at most 128 characters/);
    const json = await f.call('POST', `/v1/runs/${runId}/signals/go`, { body: '{nope' });
    expect(json.json.error.code).toBe('invalid_json');
    const big = await f.call('POST', `/v1/runs/${runId}/signals/go`, { body: JSON.stringify('x'.repeat(70_000)) });
    expect(big.status).toBe(413);
    expect(big.json.error).toMatchObject({ code: 'payload_too_large' });
    expect(big.json.error.message).toMatch(/^payload: /);
    const missing = await f.call('POST', '/v1/runs/nobody/signals/go', { body: 1 });
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe('run_not_found');
    expect((await f.call('GET', '/v1/runs/nobody/signals')).status).toBe(404);
  });

  it('refuses a signal to an ended run with 409 run_ended', async () => {
    const f = new ApiFixture();
    const runId = await f.start('fn', {});
    await f.drive(
      runId,
      durable(async () => 'done'),
    );
    const late = await f.call('POST', `/v1/runs/${runId}/signals/go`);
    expect(late.status).toBe(409);
    expect(late.json.error).toMatchObject({ code: 'run_ended' });
  });
});
