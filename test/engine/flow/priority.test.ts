import { describe, expect, it } from 'vitest';
import { FlowWorld } from './flow-world';

describe('concurrency priority: queued runs start by priority (higher first), then oldest first', () => {
  it('a later run with a higher priority starts before older ones when a slot frees', async () => {
    const w = new FlowWorld({
      concurrency: {
        key: () => 'all',
        limit: 1,
        priority: (e) => (String((e as { id: string }).id).startsWith('vip') ? 10 : 0),
      },
    });
    const first = await w.start({ tenant: 'a', id: 'a1' });
    const a2 = await w.start({ tenant: 'a', id: 'a2' });
    const a3 = await w.start({ tenant: 'a', id: 'a3' });
    const vip = await w.start({ tenant: 'a', id: 'vip1' });
    expect(await w.statuses([first, a2, a3, vip])).toEqual(['RUNNING', 'QUEUED', 'QUEUED', 'QUEUED']);
    expect((await w.run(vip))?.queuePosition).toBe(1);
    expect((await w.run(a2))?.queuePosition).toBe(2);
    await w.finish(first);
    await w.finish(vip);
    await w.finish(a2);
    expect([...w.startedAt.keys()]).toEqual(['a1', 'vip1', 'a2', 'a3']);
  });

  it('a priority function that returns no whole number fails the run, naming the field', async () => {
    const w = new FlowWorld({ concurrency: { key: () => 'all', limit: 1, priority: () => 1.5 } });
    const run = await w.start({ tenant: 'a', id: 'a1' });
    expect(await w.run(run)).toMatchObject({ status: 'FAILED' });
    expect((await w.run(run))?.error?.ErrorMessage).toContain('config.concurrency.priority');
  });
});
