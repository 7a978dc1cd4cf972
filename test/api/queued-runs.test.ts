import { withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { ApiFixture } from './support';

describe('control API: runs queued by their concurrency key', () => {
  it('shows a QUEUED run with its key and position, in the run and in the list filtered by status', async () => {
    const fx = new ApiFixture();
    const handler = withDurableExecution(
      async (_event, ctx) => {
        await ctx.wait({ hours: 1 });
        return 'done';
      },
      { logSink: () => {}, concurrency: { key: (e) => (e as { tenant: string }).tenant, limit: 1 } },
    );
    const first = await fx.start('fn', { tenant: 'a' });
    await fx.drive(first, handler);
    const second = await fx.start('fn', { tenant: 'a' });
    await fx.drive(second, handler);
    fx.clock.advanceBy(1000);
    const third = await fx.start('fn', { tenant: 'a' });
    await fx.drive(third, handler);

    const shown = await fx.call('GET', `/v1/runs/${third}`);
    expect(shown.status).toBe(200);
    expect(shown.json).toMatchObject({ status: 'QUEUED', concurrencyKey: 'a', queuePosition: 2 });
    expect(typeof shown.json.queuedAt).toBe('string');
    const running = await fx.call('GET', `/v1/runs/${first}`);
    expect(running.json).toMatchObject({ status: 'RUNNING', concurrencyKey: 'a' });
    expect(running.json.queuePosition).toBeUndefined();

    const listed = await fx.call('GET', '/v1/runs', { query: { status: 'QUEUED' } });
    expect(listed.status).toBe(200);
    const runs = listed.json.runs as Array<{ runId: string; queuePosition: number }>;
    expect(runs.map((r) => [r.runId, r.queuePosition]).sort()).toEqual(
      [
        [second, 1],
        [third, 2],
      ].sort(),
    );
  });
});
