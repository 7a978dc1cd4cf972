/**
 * `GET /v1/functions`: each function with its flow-control limits as the engine recorded them
 * (`noteFunctionLimits`), what starts it where the server knows, and with `include=counts` its
 * RUNNING and QUEUED runs, counted up to a bound.
 */
import { noteFunctionLimits } from '@durable-lambda/engine';
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

type Fn = {
  name: string;
  limits?: unknown;
  limitsRecordedAt?: string;
  limitsVersion?: string;
  counts?: unknown;
  starts?: unknown;
};

describe('control API: functions with their limits and run counts', () => {
  it('answers each function with the limits recorded for it, and none for a function without', async () => {
    const fx = new ApiFixture();
    await noteFunctionLimits(fx.store, 'fn', { concurrency: { limit: 1 } }, fx.clock, { version: '4' });
    const answer = await fx.call('GET', '/v1/functions');
    expect(answer.status).toBe(200);
    const functions = (answer.json as { functions: Fn[] }).functions;
    expect(functions).toEqual([
      {
        name: 'fn',
        limits: { concurrency: { limit: 1 } },
        limitsRecordedAt: new Date(fx.clock.now()).toISOString(),
        limitsVersion: '4',
      },
      { name: 'other' },
    ]);
  });

  it('counts RUNNING and QUEUED runs with include=counts (and only then)', async () => {
    const fx = new ApiFixture();
    for (const tenant of ['a', 'a', 'a', 'b']) {
      await fx.drive(await fx.start('fn', { tenant }), handler);
      fx.clock.advanceBy(1000);
    }
    const plain = await fx.call('GET', '/v1/functions');
    expect((plain.json as { functions: Fn[] }).functions[0]?.counts).toBeUndefined();
    const counted = await fx.call('GET', '/v1/functions', { query: { include: 'counts' } });
    expect(counted.status).toBe(200);
    expect((counted.json as { functions: Fn[] }).functions.map((f) => [f.name, f.counts])).toEqual([
      ['fn', { running: 2, queued: 2 }],
      ['other', { running: 0, queued: 0 }],
    ]);
  });

  it('says a count is a lower bound past FUNCTION_COUNT_LIMIT runs', async () => {
    const fx = new ApiFixture();
    for (let i = 0; i < 501; i++) await fx.start('fn', { i });
    const counted = await fx.call('GET', '/v1/functions', { query: { include: 'counts' } });
    expect((counted.json as { functions: Fn[] }).functions[0]?.counts).toEqual({
      running: 500,
      queued: 0,
      runningMore: true,
    });
  });

  it('lists what starts a function when the server says (the dev server’s schedules and events route)', async () => {
    const fx = new ApiFixture({
      starts: (name) =>
        name === 'fn'
          ? {
              schedules: [{ name: 'nightly', rateMs: 60_000, overlap: 'skip', catchUp: false }],
              eventsPath: '/v1/functions/fn/events',
            }
          : undefined,
    });
    const answer = await fx.call('GET', '/v1/functions');
    const [fn, other] = (answer.json as { functions: Fn[] }).functions;
    expect(fn?.starts).toEqual({
      schedules: [{ name: 'nightly', rateMs: 60_000, overlap: 'skip', catchUp: false }],
      eventsPath: '/v1/functions/fn/events',
    });
    expect(other?.starts).toBeUndefined();
  });

  it('refuses an unknown parameter or include value', async () => {
    const fx = new ApiFixture();
    for (const [query, field] of [
      [{ include: 'everything' }, 'include'],
      [{ status: 'QUEUED' }, 'status'],
    ] as const) {
      const answer = await fx.call('GET', '/v1/functions', { query });
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ error: { code: 'invalid_argument' } });
      expect((answer.json as { error: { message: string } }).error.message.startsWith(`${field}: `)).toBe(true);
    }
  });
});
