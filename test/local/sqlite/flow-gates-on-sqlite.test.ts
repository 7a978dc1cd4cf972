/**
 * Flow control's gates end to end on the SQLite store (the dev server's): the engine, the SDK's
 * Lambda entry and a real database, on a virtual clock. The gates' registers and slots are its
 * tables, so this proves their transactions serve the gates as the memory store does.
 */
import { SqliteStore } from '@durable-lambda/local';
import { describe, expect, it } from 'vitest';
import { type FlowOptions, FlowWorld, T0 } from '../../engine/flow/flow-world';

const world = (options: FlowOptions) => new FlowWorld(options, (clock) => new SqliteStore({ path: ':memory:', clock }));
const byTenant = (e: unknown) => (e as { tenant: string }).tenant;

describe('flow control on SQLite', () => {
  it('throttle spaces starts; rateLimit skips past its window; keys stay apart', async () => {
    const w = world({
      throttle: { key: byTenant, limit: 2, period: { seconds: 10 } },
      rateLimit: { key: byTenant, limit: 3, period: { minutes: 1 } },
    });
    const ids = [];
    for (const id of ['a1', 'a2', 'a3', 'a4']) ids.push(await w.start({ tenant: 'a', id }));
    const b1 = await w.start({ tenant: 'b', id: 'b1' });
    await w.advanceTo(T0 + 20_000);
    expect(await w.statuses([...ids, b1])).toEqual(['RUNNING', 'RUNNING', 'RUNNING', 'CANCELLED', 'RUNNING']);
    expect(w.startOffsets(['a1', 'a2', 'a3', 'b1'])).toEqual([0, 5_000, 10_000, 0]);
  });

  it('debounce runs the last of a burst; singleton cancels the running one; priority orders the queue', async () => {
    const d = world({ debounce: { key: byTenant, period: { seconds: 5 } } });
    const a1 = await d.start({ tenant: 'a', id: 'a1' });
    const a2 = await d.start({ tenant: 'a', id: 'a2' });
    await d.advanceTo(T0 + 5_000);
    expect(await d.statuses([a1, a2])).toEqual(['CANCELLED', 'RUNNING']);

    const s = world({ singleton: { key: byTenant, mode: 'cancel' } });
    const s1 = await s.start({ tenant: 'a', id: 's1' });
    const s2 = await s.start({ tenant: 'a', id: 's2' });
    expect(await s.statuses([s1, s2])).toEqual(['CANCELLED', 'RUNNING']);

    const p = world({
      concurrency: { key: () => 'all', limit: 1, priority: (e) => ((e as { id: string }).id === 'p3' ? 5 : 0) },
    });
    const p1 = await p.start({ tenant: 'a', id: 'p1' });
    await p.start({ tenant: 'a', id: 'p2' });
    const p3 = await p.start({ tenant: 'a', id: 'p3' });
    expect((await p.run(p3))?.queuePosition).toBe(1);
    await p.finish(p1);
    expect(await p.statuses([p3])).toEqual(['RUNNING']);
  });
});
