import { describe, expect, it } from 'vitest';
import { ConcurrencyWorld } from './concurrency-world';

describe('flow control per key: concurrency', () => {
  it('runs at most `limit` runs of a key at once; the rest wait QUEUED with their key and position', async () => {
    const w = new ConcurrencyWorld(2);
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) {
      ids.push(await w.start({ tenant: 'a', id: `a${i}` }));
      w.clock.advanceBy(1000);
    }
    await w.deliver();
    expect(await w.statuses(ids)).toEqual(['RUNNING', 'RUNNING', 'QUEUED', 'QUEUED', 'QUEUED']);
    const third = await w.run(ids[2] as string);
    expect(third).toMatchObject({ concurrencyKey: 'a', queuePosition: 1 });
    expect((await w.run(ids[4] as string))?.queuePosition).toBe(3);
    const listed = (await w.engine.listRuns({ status: 'QUEUED' })).runs;
    expect(listed.map((r) => r.queuePosition).sort()).toEqual([1, 2, 3]);
    expect(w.maxActive).toBe(2);
  });

  it('starts queued runs oldest first as slots free, never above the limit', async () => {
    const w = new ConcurrencyWorld(2);
    const ids: string[] = [];
    for (let i = 1; i <= 6; i++) {
      ids.push(await w.start({ tenant: 'a', id: `a${i}` }));
      w.clock.advanceBy(1000);
    }
    await w.deliver();
    for (const id of ids) {
      if ((await w.run(id))?.status === 'RUNNING') await w.finish(id);
    }
    for (let round = 0; round < 6; round++) {
      for (const id of ids) if ((await w.run(id))?.status === 'RUNNING') await w.finish(id);
    }
    expect(await w.statuses(ids)).toEqual(Array(6).fill('SUCCEEDED'));
    expect(w.started).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'a6']);
    expect(w.maxActive).toBe(2);
  });

  it('a busy key does not hold another key back', async () => {
    const w = new ConcurrencyWorld(1);
    const a1 = await w.start({ tenant: 'a', id: 'a1' });
    const a2 = await w.start({ tenant: 'a', id: 'a2' });
    const b1 = await w.start({ tenant: 'b', id: 'b1' });
    expect(await w.statuses([a1, a2, b1])).toEqual(['RUNNING', 'QUEUED', 'RUNNING']);
  });
});
