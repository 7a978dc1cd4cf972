import type { Engine, IdempotencyRecord } from '@durable-lambda/engine';
import { describe, expect, it } from 'vitest';
import { ApiFixture, durable, runWaitingOnCallback } from './support';

const key = (value: string) => ({ 'Idempotency-Key': value });

/** Makes every wake-up fail, as a throttled Scheduler would. */
function wakerDown(f: ApiFixture): void {
  (f.engine as { waker: Engine['waker'] }).waker = {
    wakeAt: async () => {
      throw new Error('scheduler throttled');
    },
  };
}

/**
 * Makes the engine's `method` do its work and then throw, as a call whose write landed but whose
 * later step (or answer) failed does, whatever the engine does about such faults itself.
 */
function landedThenThrew<K extends 'sendCallbackSuccess' | 'sendCallbackFailure' | 'cancelRun' | 'retryRun'>(
  engine: Engine,
  method: K,
): void {
  const real = (engine[method] as (...args: unknown[]) => Promise<unknown>).bind(engine);
  (engine as unknown as Record<K, (...args: unknown[]) => Promise<unknown>>)[method] = async (...args) => {
    await real(...args);
    throw new Error('connection reset after the write');
  };
}

const failing = durable(async (_e, ctx) => {
  await ctx.step(
    'boom',
    async () => {
      throw new Error('gateway down');
    },
    { retry: { maxAttempts: 1 } },
  );
});

describe('a request whose write is durable answers its success, whatever fails after it', () => {
  it('callback succeed stored, wake-up throttled: 200, and the retry with the same key replays it', async () => {
    const f = new ApiFixture();
    const { runId, callbackId } = await runWaitingOnCallback(f);
    wakerDown(f);
    const path = `/v1/callbacks/${callbackId}/succeed`;
    const first = await f.call('POST', path, { body: { result: { ok: 1 } }, headers: key('cb') });
    expect(first).toMatchObject({ status: 200, json: { callbackId, outcome: 'succeeded' } });
    const op = (await f.engine.getOperations(runId)).find((o) => o.Type === 'CALLBACK');
    expect(op).toMatchObject({ Status: 'SUCCEEDED', CallbackDetails: { Result: '{"ok":1}' } });
    const retry = await f.call('POST', path, { body: { result: { ok: 1 } }, headers: key('cb') });
    expect(retry).toMatchObject({ status: 200, body: first.body, headers: { 'idempotent-replayed': 'true' } });
    // The run is due (its event is unhandled), so the reconciler wakes it.
    expect((await f.store.findDueRuns(f.clock.now(), 10)).map((d) => d.runId)).toContain(runId);
  });

  it('callback succeed stored, then the engine call threw: 200, replayed to the retry (not 409 already completed)', async () => {
    const f = new ApiFixture();
    const { callbackId } = await runWaitingOnCallback(f);
    landedThenThrew(f.engine, 'sendCallbackSuccess');
    const path = `/v1/callbacks/${callbackId}/succeed`;
    const first = await f.call('POST', path, { body: { result: 'yes' }, headers: key('cb') });
    expect(first).toMatchObject({ status: 200, json: { callbackId, outcome: 'succeeded' } });
    expect(f.errors.map(String)).toEqual(['Error: connection reset after the write']);
    const retry = await f.call('POST', path, { body: { result: 'yes' }, headers: key('cb') });
    expect(retry).toMatchObject({ status: 200, body: first.body, headers: { 'idempotent-replayed': 'true' } });
  });

  it('callback fail stored, then the engine call threw: 200 failed', async () => {
    const f = new ApiFixture();
    const { callbackId } = await runWaitingOnCallback(f);
    landedThenThrew(f.engine, 'sendCallbackFailure');
    const answer = await f.call('POST', `/v1/callbacks/${callbackId}/fail`, {
      body: { error: { code: 'declined', message: 'card declined' } },
    });
    expect(answer).toMatchObject({ status: 200, json: { outcome: 'failed' } });
  });

  it('a completion stored by someone else with another result is not taken for this one: 500', async () => {
    const f = new ApiFixture();
    const { callbackId } = await runWaitingOnCallback(f);
    const real = f.engine.sendCallbackSuccess.bind(f.engine);
    f.engine.sendCallbackSuccess = async (id) => {
      await real(id, '"theirs"');
      throw new Error('connection reset after the write');
    };
    const answer = await f.call('POST', `/v1/callbacks/${callbackId}/succeed`, { body: { result: 'mine' } });
    expect(answer.status).toBe(500);
  });

  it('callback completion whose write did not land: 500, the key released, the retry completes it', async () => {
    const f = new ApiFixture();
    const { callbackId } = await runWaitingOnCallback(f);
    const real = f.store.writeOutsideEvent.bind(f.store);
    let failures = 1;
    f.store.writeOutsideEvent = async (...args) => {
      if (failures-- > 0) throw new Error('store unavailable');
      return real(...args);
    };
    const path = `/v1/callbacks/${callbackId}/succeed`;
    expect((await f.call('POST', path, { headers: key('cb') })).status).toBe(500);
    const retry = await f.call('POST', path, { headers: key('cb') });
    expect(retry).toMatchObject({ status: 200, json: { outcome: 'succeeded' } });
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it("cancel of a child run stored, its parent's notification failed: 200 CANCELLED, replayed to the retry", async () => {
    const f = new ApiFixture();
    const parentHandler = durable(async (_e, ctx) => ctx.invoke('call-child', 'other', { x: 1 }));
    const parentId = await f.start('fn');
    await f.drive(parentId, parentHandler);
    const childId = (await f.engine.getOperations(parentId)).find((o) => o.Type === 'CHAINED_INVOKE')
      ?.ChainedInvokeDetails?.ChildRunId as string;
    expect((await f.engine.getRun(childId))?.parent?.runId).toBe(parentId);
    const realGetRun = f.store.getRun.bind(f.store);
    // The notification reads the parent first: that read fails, after the cancel is stored.
    f.store.getRun = async (runId) => {
      if (runId === parentId) throw new Error('store unavailable');
      return realGetRun(runId);
    };
    const path = `/v1/runs/${childId}/cancel`;
    const first = await f.call('POST', path, { headers: key('cancel') });
    expect(first).toMatchObject({ status: 200, json: { runId: childId, status: 'CANCELLED' } });
    const retry = await f.call('POST', path, { headers: key('cancel') });
    expect(retry).toMatchObject({ status: 200, body: first.body, headers: { 'idempotent-replayed': 'true' } });
    // The ended child stays due until its parent has heard.
    expect((await f.store.findDueRuns(f.clock.now(), 10)).map((d) => d.runId)).toContain(childId);
  });

  it('cancel stored, then the engine call threw: 200 CANCELLED, replayed to the retry (not 409)', async () => {
    const f = new ApiFixture();
    const runId = await f.start();
    landedThenThrew(f.engine, 'cancelRun');
    const first = await f.call('POST', `/v1/runs/${runId}/cancel`, { headers: key('c') });
    expect(first).toMatchObject({ status: 200, json: { runId, status: 'CANCELLED' } });
    const retry = await f.call('POST', `/v1/runs/${runId}/cancel`, { headers: key('c') });
    expect(retry).toMatchObject({ status: 200, headers: { 'idempotent-replayed': 'true' } });
  });

  it('retry of a failed run stored, wake-up throttled: 200 RUNNING, the run due for the reconciler', async () => {
    const f = new ApiFixture();
    const runId = await f.start();
    await f.drive(runId, failing);
    wakerDown(f);
    const first = await f.call('POST', `/v1/runs/${runId}/retry`, { headers: key('again') });
    expect(first).toMatchObject({ status: 200, json: { runId, status: 'RUNNING' } });
    expect((await f.store.findDueRuns(f.clock.now(), 10)).map((d) => d.runId)).toContain(runId);
  });

  it('retry stored, then the engine call threw: 200 RUNNING, replayed to the retry (not 409)', async () => {
    const f = new ApiFixture();
    const runId = await f.start();
    await f.drive(runId, failing);
    landedThenThrew(f.engine, 'retryRun');
    const first = await f.call('POST', `/v1/runs/${runId}/retry`, { headers: key('again') });
    expect(first).toMatchObject({ status: 200, json: { runId, status: 'RUNNING' } });
    const retry = await f.call('POST', `/v1/runs/${runId}/retry`, { headers: key('again') });
    expect(retry).toMatchObject({ status: 200, body: first.body, headers: { 'idempotent-replayed': 'true' } });
  });

  it('retry whose revision did not land: 500, and the run stays FAILED', async () => {
    const f = new ApiFixture();
    const runId = await f.start();
    await f.drive(runId, failing);
    f.store.reviseRun = async () => {
      throw new Error('store unavailable');
    };
    expect((await f.call('POST', `/v1/runs/${runId}/retry`)).status).toBe(500);
    expect((await f.engine.getRun(runId))?.status).toBe('FAILED');
  });
});

describe('the Idempotency-Key claim recognises its own earlier success', () => {
  it('gives each request a fresh claimToken', async () => {
    const f = new ApiFixture();
    const claims: IdempotencyRecord[] = [];
    const real = f.store.claimIdempotencyKey.bind(f.store);
    f.store.claimIdempotencyKey = async (record) => {
      claims.push(record);
      return real(record);
    };
    await f.call('POST', '/v1/runs', { body: { function: 'fn' }, headers: key('a') });
    await f.call('POST', '/v1/runs', { body: { function: 'fn' }, headers: key('b') });
    const tokens = claims.map((c) => c.claimToken);
    expect(tokens.every((t) => typeof t === 'string' && t.length >= 16)).toBe(true);
    expect(new Set(tokens).size).toBe(2);
  });

  it('a claim written but whose response was lost, retried by the store client, creates the run (not 409)', async () => {
    const f = new ApiFixture();
    const real = f.store.claimIdempotencyKey.bind(f.store);
    // The first write lands, its answer is lost; the client sends the same write again.
    f.store.claimIdempotencyKey = async (record) => {
      await real(record);
      return real(record);
    };
    const answer = await f.call('POST', '/v1/runs', { body: { function: 'fn' }, headers: key('lost') });
    expect(answer.status).toBe(201);
    expect(f.store.runIds()).toEqual([answer.json.runId]);
  });

  it('a claim that landed but threw is tried again with its token: the request runs, the key is not stuck', async () => {
    const f = new ApiFixture();
    const real = f.store.claimIdempotencyKey.bind(f.store);
    let failures = 1;
    f.store.claimIdempotencyKey = async (record) => {
      const result = await real(record);
      if (failures-- > 0) throw new Error('socket hang up');
      return result;
    };
    const body = { function: 'fn' };
    const first = await f.call('POST', '/v1/runs', { body, headers: key('landed') });
    expect(first.status).toBe(201);
    const again = await f.call('POST', '/v1/runs', { body, headers: key('landed') });
    expect(again).toMatchObject({ status: 201, body: first.body, headers: { 'idempotent-replayed': 'true' } });
    expect(f.store.runIds()).toHaveLength(1);
  });
});
