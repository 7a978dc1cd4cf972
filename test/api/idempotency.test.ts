import type { Engine } from '@durable-lambda/engine';
import { describe, expect, it } from 'vitest';
import { ApiFixture } from './support';

const key = (value: string) => ({ 'Idempotency-Key': value });

/** A promise with its resolver, to hold a request open on purpose. */
function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe('Idempotency-Key on POST', () => {
  it('replays the first answer (status, body, headers) with idempotent-replayed: true, and does the work once', async () => {
    const f = new ApiFixture();
    const body = { function: 'fn', input: { n: 1 } };
    const first = await f.call('POST', '/v1/runs', { body, headers: key('k-1') });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await f.call('POST', '/v1/runs', { body, headers: { 'idempotency-key': 'k-1' } });
    expect(again.status).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(first.headers.location);
    expect(f.store.runIds()).toHaveLength(1);
    expect(f.invoked).toHaveLength(1);
  });

  it('without a key, the same POST twice starts two runs (the key is what deduplicates)', async () => {
    const f = new ApiFixture();
    await f.call('POST', '/v1/runs', { body: { function: 'fn' } });
    await f.call('POST', '/v1/runs', { body: { function: 'fn' } });
    expect(f.store.runIds()).toHaveLength(2);
  });

  it('stores 4xx answers too: a repeat replays them even when the request would now succeed', async () => {
    const f = new ApiFixture();
    const body = { function: 'late' };
    const first = await f.call('POST', '/v1/runs', { body, headers: key('k') });
    expect(first.status).toBe(404);
    f.functions = ['late'];
    const again = await f.call('POST', '/v1/runs', { body, headers: key('k') });
    expect(again).toMatchObject({ status: 404, json: { error: { code: 'function_not_found' } } });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(f.store.runIds()).toEqual([]);
  });

  it('answers 409 idempotency_in_progress to a repeat while the first request still runs', async () => {
    const f = new ApiFixture();
    const hold = gate();
    let entered = 0;
    f.invokerImpl = async () => {
      entered += 1;
      await hold.promise;
    };
    const body = { function: 'fn' };
    const first = f.call('POST', '/v1/runs', { body, headers: key('slow') });
    await until(() => entered === 1);
    const during = await f.call('POST', '/v1/runs', { body, headers: key('slow') }).finally(() => {
      // Let the first request end whatever the assertions below find.
      setTimeout(hold.open, 0);
    });
    expect(during.status).toBe(409);
    expect(during.json.error.code).toBe('idempotency_in_progress');
    expect(during.headers['retry-after']).toBe('1');
    expect((await first).status).toBe(201);
    const after = await f.call('POST', '/v1/runs', { body, headers: key('slow') });
    expect(after.status).toBe(201);
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(f.store.runIds()).toHaveLength(1);
    expect(entered).toBe(1);
  });

  it('answers 422 idempotency_key_reused for the same key with another body', async () => {
    const f = new ApiFixture();
    await f.call('POST', '/v1/runs', { body: { function: 'fn', input: 1 }, headers: key('k') });
    const other = await f.call('POST', '/v1/runs', { body: { function: 'fn', input: 2 }, headers: key('k') });
    expect(other.status).toBe(422);
    expect(other.json.error.code).toBe('idempotency_key_reused');
    expect(f.store.runIds()).toHaveLength(1);
  });

  it('scopes keys by method and path: one key on two routes is two requests', async () => {
    const f = new ApiFixture();
    const a = await f.start();
    const b = await f.start();
    expect((await f.call('POST', `/v1/runs/${a}/cancel`, { headers: key('same') })).status).toBe(200);
    const second = await f.call('POST', `/v1/runs/${b}/cancel`, { headers: key('same') });
    expect(second.status).toBe(200);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.json.runId).toBe(b);
  });

  it('forgets a key after idempotencyTtlMs: the same request then runs again', async () => {
    const f = new ApiFixture({ idempotencyTtlMs: 60_000 });
    const body = { function: 'fn' };
    await f.call('POST', '/v1/runs', { body, headers: key('k') });
    f.clock.advanceBy(59_999);
    expect((await f.call('POST', '/v1/runs', { body, headers: key('k') })).headers['idempotent-replayed']).toBe('true');
    expect(f.store.runIds()).toHaveLength(1);
    f.clock.advanceBy(1);
    const fresh = await f.call('POST', '/v1/runs', { body, headers: key('k') });
    expect(fresh.status).toBe(201);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(f.store.runIds()).toHaveLength(2);
  });

  it('keeps a key 24 hours by default', async () => {
    const f = new ApiFixture();
    await f.call('POST', '/v1/runs', { body: { function: 'fn' }, headers: key('k') });
    f.clock.advanceBy(24 * 3600_000 - 1);
    await f.call('POST', '/v1/runs', { body: { function: 'fn' }, headers: key('k') });
    expect(f.store.runIds()).toHaveLength(1);
    f.clock.advanceBy(1);
    await f.call('POST', '/v1/runs', { body: { function: 'fn' }, headers: key('k') });
    expect(f.store.runIds()).toHaveLength(2);
  });

  it('releases the key after a 5xx answer, so a retry with the same key runs again', async () => {
    const f = new ApiFixture();
    const realStart = f.engine.startRun.bind(f.engine);
    let failures = 1;
    (f.engine as { startRun: Engine['startRun'] }).startRun = async (request) => {
      if (failures-- > 0) throw new Error('store unavailable');
      return realStart(request);
    };
    const body = { function: 'fn' };
    const first = await f.call('POST', '/v1/runs', { body, headers: key('k') });
    expect(first).toMatchObject({ status: 500, json: { error: { code: 'internal_error' } } });
    const retry = await f.call('POST', '/v1/runs', { body, headers: key('k') });
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(f.errors).toHaveLength(1);
  });

  it('keeps the success of a run created but not started (invoker and waker down): a retry replays it, no second run', async () => {
    const f = new ApiFixture();
    f.invokerImpl = async () => {
      throw new Error('throttled');
    };
    (f.engine as { waker: Engine['waker'] }).waker = {
      wakeAt: async () => {
        throw new Error('scheduler down');
      },
    };
    const body = { function: 'fn' };
    const first = await f.call('POST', '/v1/runs', { body, headers: key('k') });
    expect(first.status).toBe(201);
    const retry = await f.call('POST', '/v1/runs', { body, headers: key('k') });
    expect(retry).toMatchObject({ status: 201, body: first.body });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(f.store.runIds()).toEqual([first.json.runId]);
  });

  it('20 concurrent duplicate POSTs with one key create exactly one run', async () => {
    const f = new ApiFixture();
    f.invokerImpl = () => new Promise((resolve) => setTimeout(resolve, 20));
    const body = { function: 'fn', input: { big: true } };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => f.call('POST', '/v1/runs', { body, headers: key('burst') })),
    );
    expect(f.store.runIds()).toHaveLength(1);
    expect(f.invoked).toHaveLength(1);
    const created = answers.filter((a) => a.status === 201 && a.headers['idempotent-replayed'] === undefined);
    expect(created).toHaveLength(1);
    for (const a of answers) {
      if (a === created[0]) continue;
      expect(a.status === 409 ? a.json.error.code : a.headers['idempotent-replayed']).toMatch(
        /^(idempotency_in_progress|true)$/,
      );
    }
  });

  it('answers 400 naming the header for a key that is empty, too long, not printable ASCII or repeated', async () => {
    const f = new ApiFixture();
    for (const value of ['', 'x'.repeat(256), 'clé', 'tab\there', ['a', 'b']]) {
      const answer = await f.call('POST', '/v1/runs', {
        body: { function: 'fn' },
        headers: { 'Idempotency-Key': value },
      });
      expect(answer.status, JSON.stringify(value)).toBe(400);
      expect(answer.json.error.code).toBe('invalid_argument');
      expect(answer.json.error.message).toMatch(/^Idempotency-Key: /);
    }
    expect(f.store.runIds()).toEqual([]);
    const longest = await f.call('POST', '/v1/runs', { body: { function: 'fn' }, headers: key('x'.repeat(255)) });
    expect(longest.status).toBe(201);
  });

  it('ignores the header on GET', async () => {
    const f = new ApiFixture();
    const answer = await f.call('GET', '/v1/functions', { headers: key('') });
    expect(answer.status).toBe(200);
  });
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 2));
  if (!check()) throw new Error('condition not reached');
}
