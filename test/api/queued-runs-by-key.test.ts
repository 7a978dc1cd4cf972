/**
 * `GET /v1/runs?concurrencyKey=…`: the runs of one concurrency key. With `function` and
 * `status=QUEUED` the key's queue in queue order with positions (one page); otherwise the runs of
 * the key among the newest; the key is checked like every other filter.
 */
import { withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { ApiFixture } from './support';

const handler = withDurableExecution(
  async (_event, ctx) => {
    await ctx.wait({ hours: 1 });
    return 'done';
  },
  { logSink: () => {}, concurrency: { key: (e) => (e as { tenant: string }).tenant, limit: 1 } },
);

/** Starts runs of `fn` for the tenants given, in that order, a second apart; returns their ids. */
async function started(fx: ApiFixture, tenants: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const tenant of tenants) {
    const id = await fx.start('fn', { tenant });
    await fx.drive(id, handler);
    fx.clock.advanceBy(1000);
    ids.push(id);
  }
  return ids;
}

type Listed = { runs: Array<{ runId: string; status: string; concurrencyKey?: string; queuePosition?: number }> };

describe('control API: runs filtered by concurrency key', () => {
  it('lists a key’s queue in queue order with positions, the other keys left out', async () => {
    const fx = new ApiFixture();
    const [, , a2, b2, a3] = await started(fx, ['a', 'b', 'a', 'b', 'a']);
    const listed = await fx.call('GET', '/v1/runs', {
      query: { function: 'fn', status: 'QUEUED', concurrencyKey: 'a' },
    });
    expect(listed.status).toBe(200);
    const { runs, nextCursor } = listed.json as Listed & { nextCursor?: string };
    expect(runs.map((r) => [r.runId, r.status, r.concurrencyKey, r.queuePosition])).toEqual([
      [a2, 'QUEUED', 'a', 1],
      [a3, 'QUEUED', 'a', 2],
    ]);
    expect(nextCursor).toBeUndefined();
    const b = await fx.call('GET', '/v1/runs', { query: { function: 'fn', status: 'QUEUED', concurrencyKey: 'b' } });
    expect((b.json as Listed).runs.map((r) => [r.runId, r.queuePosition])).toEqual([[b2, 1]]);
    // `limit` is the queue's first entries.
    const first = await fx.call('GET', '/v1/runs', {
      query: { function: 'fn', status: 'QUEUED', concurrencyKey: 'a', limit: '1' },
    });
    expect((first.json as Listed).runs.map((r) => r.runId)).toEqual([a2]);
  });

  it('without a function or with another status, finds the key’s runs among the newest', async () => {
    const fx = new ApiFixture();
    const [a1, , a2, , a3] = await started(fx, ['a', 'b', 'a', 'b', 'a']);
    const all = await fx.call('GET', '/v1/runs', { query: { concurrencyKey: 'a' } });
    expect(all.status).toBe(200);
    expect((all.json as Listed).runs.map((r) => [r.runId, r.status, r.queuePosition])).toEqual([
      [a3, 'QUEUED', 2],
      [a2, 'QUEUED', 1],
      [a1, 'RUNNING', undefined],
    ]);
    const running = await fx.call('GET', '/v1/runs', { query: { status: 'RUNNING', concurrencyKey: 'a' } });
    expect((running.json as Listed).runs.map((r) => r.runId)).toEqual([a1]);
  });

  it('refuses a key longer than a key may be, or combined with search or contains', async () => {
    const fx = new ApiFixture();
    for (const query of [
      { concurrencyKey: 'k'.repeat(257) },
      { concurrencyKey: 'a', search: 'x' },
      { concurrencyKey: 'a', contains: 'x' },
      { concurrencyKey: ['a', 'b'] },
    ]) {
      const answer = await fx.call('GET', '/v1/runs', { query });
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ error: { code: 'invalid_argument' } });
      expect((answer.json as { error: { message: string } }).error.message).toMatch(/^concurrencyKey: /);
    }
  });
});
