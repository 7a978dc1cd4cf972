import { describe, expect, it } from 'vitest';
import { FlowWorld, T0 } from './flow-world';

const events = (n: number, tenant = 'a') => Array.from({ length: n }, (_, i) => ({ tenant, id: `${tenant}${i + 1}` }));

describe('throttle: at most `limit` starts per period per key, later ones wait their turn', () => {
  it('spaces starts period / limit apart; each waits QUEUED for its turn and starts when it comes', async () => {
    const w = new FlowWorld({
      throttle: { key: (e) => (e as { tenant: string }).tenant, limit: 2, period: { seconds: 10 } },
    });
    const ids = [];
    for (const e of events(4)) ids.push(await w.start(e));
    expect(await w.statuses(ids)).toEqual(['RUNNING', 'QUEUED', 'QUEUED', 'QUEUED']);
    const second = await w.run(ids[1] as string);
    expect(second?.flow).toMatchObject({ waitingFor: 'throttle', until: T0 + 5_000 });
    for (const at of [5_000, 10_000, 15_000]) await w.advanceTo(T0 + at);
    expect(w.startOffsets(['a1', 'a2', 'a3', 'a4'])).toEqual([0, 5_000, 10_000, 15_000]);
    expect(await w.statuses(ids)).toEqual(['RUNNING', 'RUNNING', 'RUNNING', 'RUNNING']);
  });

  it('`burst` starts go at once; the next waits for the bucket', async () => {
    const w = new FlowWorld({ throttle: { limit: 3, period: { seconds: 30 }, burst: 2 } });
    for (const e of events(3)) await w.start(e);
    await w.advanceTo(T0 + 30_000);
    // Burst 2 of a bucket refilled every 10 s: the third waits one interval.
    expect(w.startOffsets(['a1', 'a2', 'a3'])).toEqual([0, 0, 10_000]);
  });

  it('a wake-up before its turn starts nothing; a lost one is made up by the reconciler', async () => {
    const w = new FlowWorld({ throttle: { limit: 1, period: { minutes: 1 } } });
    await w.start({ tenant: 'a', id: 'a1' });
    const late = await w.start({ tenant: 'a', id: 'a2' });
    await w.wakeEarly(late);
    expect(await w.statuses([late])).toEqual(['QUEUED']);
    expect(w.startedAt.has('a2')).toBe(false);
    w.wakeUps = [];
    w.clock.advanceBy(60_000);
    await w.engine.reconcile({ graceMs: 0 });
    await w.deliver();
    expect(w.startOffsets(['a2'])).toEqual([60_000]);
  });

  it('keys are throttled apart: a busy key never delays another', async () => {
    const w = new FlowWorld({
      throttle: { key: (e) => (e as { tenant: string }).tenant, limit: 1, period: { hours: 1 } },
    });
    for (const e of events(3, 'a')) await w.start(e);
    await w.start({ tenant: 'b', id: 'b1' });
    expect(w.startOffsets(['a1', 'a2', 'b1'])).toEqual([0, undefined, 0]);
  });

  it('a write whose response was lost keeps the one reservation it made', async () => {
    const w = new FlowWorld({ throttle: { limit: 1, period: { seconds: 10 } } });
    await w.start({ tenant: 'a', id: 'a1' });
    const write = w.store.writeGate?.bind(w.store);
    let lost = 0;
    w.store.writeGate = async (...args) => {
      const written = (await write?.(...args)) ?? false;
      if (written && lost++ === 0) throw new Error('response lost');
      return written;
    };
    // The invocation faults after its reservation is stored; the run comes back and finds it.
    await w.start({ tenant: 'a', id: 'a2' }).catch(() => undefined);
    await w.advanceTo(T0 + 60_000);
    await w.start({ tenant: 'a', id: 'a3' });
    await w.advanceTo(T0 + 120_000);
    // a2 kept its turn at 10 s (not a second one at 20 s), so a3, arriving at 60 s, starts at once.
    expect(w.startOffsets(['a1', 'a2', 'a3'])).toEqual([0, 10_000, 60_000]);
    expect(lost).toBeGreaterThan(1);
  });
});
