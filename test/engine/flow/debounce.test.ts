import { MemoryStore } from '@durable-lambda/engine';
import { describe, expect, it } from 'vitest';
import { FlowWorld, T0 } from './flow-world';

const byTenant = (e: unknown) => (e as { tenant: string }).tenant;

describe('debounce: the last run of a key in a quiet window runs, the earlier ones are skipped', () => {
  it('each run waits the period after it arrives; only the last of a burst runs, once the key is quiet', async () => {
    const w = new FlowWorld({ debounce: { key: byTenant, period: { seconds: 10 } } });
    const a1 = await w.start({ tenant: 'a', id: 'a1' });
    await w.advanceTo(T0 + 4_000);
    const a2 = await w.start({ tenant: 'a', id: 'a2' });
    await w.advanceTo(T0 + 8_000);
    const a3 = await w.start({ tenant: 'a', id: 'a3' });
    expect(await w.statuses([a1, a2, a3])).toEqual(['QUEUED', 'QUEUED', 'QUEUED']);
    expect((await w.run(a3))?.flow).toMatchObject({ waitingFor: 'debounce', until: T0 + 18_000 });
    await w.advanceTo(T0 + 17_999);
    expect(w.startedAt.size).toBe(0);
    await w.advanceTo(T0 + 18_000);
    expect(await w.statuses([a1, a2, a3])).toEqual(['CANCELLED', 'CANCELLED', 'RUNNING']);
    expect(w.startOffsets(['a3'])).toEqual([18_000]);
    expect((await w.run(a1))?.error).toMatchObject({ ErrorType: 'RunSkipped', ErrorCode: 'debounced' });
  });

  it('`timeout` bounds the wait from the window’s first run, however often it is extended', async () => {
    const w = new FlowWorld({ debounce: { period: { seconds: 10 }, timeout: { seconds: 25 } } });
    const ids: string[] = [];
    for (let t = 0; t <= 24_000; t += 8_000) {
      await w.advanceTo(T0 + t);
      ids.push(await w.start({ tenant: 'a', id: `a${t}` }));
    }
    await w.advanceTo(T0 + 60_000);
    // Arrivals at 0, 8, 16, 24 s: the last fires at 25 s (the timeout), not 34 s.
    expect(w.startOffsets(['a24000'])).toEqual([25_000]);
    expect(await w.statuses(ids)).toEqual(['CANCELLED', 'CANCELLED', 'CANCELLED', 'RUNNING']);
  });

  it('a window that fired closes: a later run opens a new one and runs after its own quiet period', async () => {
    const w = new FlowWorld({ debounce: { period: { seconds: 5 } } });
    await w.start({ tenant: 'a', id: 'a1' });
    await w.advanceTo(T0 + 20_000);
    await w.start({ tenant: 'a', id: 'a2' });
    await w.advanceTo(T0 + 40_000);
    expect(w.startOffsets(['a1', 'a2'])).toEqual([5_000, 25_000]);
  });

  it('keys debounce apart', async () => {
    const w = new FlowWorld({ debounce: { key: byTenant, period: { seconds: 5 } } });
    await w.start({ tenant: 'a', id: 'a1' });
    await w.start({ tenant: 'b', id: 'b1' });
    await w.advanceTo(T0 + 5_000);
    expect(w.startOffsets(['a1', 'b1'])).toEqual([5_000, 5_000]);
  });

  it('a decision whose write response was lost is found again: the latest fires exactly once', async () => {
    const w = new FlowWorld({ debounce: { period: { seconds: 5 } } }, (clock) => new MemoryStore(clock));
    const a1 = await w.start({ tenant: 'a', id: 'a1' });
    const write = w.store.writeGate?.bind(w.store);
    let lost = 0;
    w.store.writeGate = async (gate, value, expected, expiresAt) => {
      const written = (await write?.(gate, value, expected, expiresAt)) ?? false;
      // The write recording the fire lands, its response does not (once).
      if (written && value.fired !== undefined && lost++ === 0) throw new Error('response lost');
      return written;
    };
    await w.advanceTo(T0 + 30_000);
    expect(lost).toBe(1);
    expect(await w.statuses([a1])).toEqual(['RUNNING']);
    expect(w.startOffsets(['a1'])).toEqual([expect.any(Number)]);
  });
});
