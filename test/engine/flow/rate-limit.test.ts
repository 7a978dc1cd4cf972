import { describe, expect, it } from 'vitest';
import { FlowWorld, T0 } from './flow-world';

const byTenant = (e: unknown) => (e as { tenant: string }).tenant;

describe('rateLimit: at most `limit` starts of a key in any window of the period; one past it is skipped', () => {
  it('the third start inside the window ends CANCELLED with rate_limited, its handler never run', async () => {
    const w = new FlowWorld({ rateLimit: { key: byTenant, limit: 2, period: { minutes: 1 } } });
    const a1 = await w.start({ tenant: 'a', id: 'a1' });
    const a2 = await w.start({ tenant: 'a', id: 'a2' });
    await w.advanceTo(T0 + 30_000);
    const a3 = await w.start({ tenant: 'a', id: 'a3' });
    expect(await w.statuses([a1, a2, a3])).toEqual(['RUNNING', 'RUNNING', 'CANCELLED']);
    const skipped = await w.run(a3);
    expect(skipped?.error).toMatchObject({ ErrorType: 'RunSkipped', ErrorCode: 'rate_limited' });
    expect(skipped?.error?.ErrorMessage).toContain('2026-01-01T00:01:00.000Z');
    expect(skipped?.leaseExpiresAt).toBeUndefined();
    expect(w.startedAt.has('a3')).toBe(false);
  });

  it('the window slides: a start is allowed once the oldest of the last `limit` left it', async () => {
    const w = new FlowWorld({ rateLimit: { limit: 2, period: { minutes: 1 } } });
    await w.start({ tenant: 'a', id: 'a1' });
    await w.advanceTo(T0 + 40_000);
    await w.start({ tenant: 'a', id: 'a2' });
    await w.advanceTo(T0 + 59_999);
    const early = await w.start({ tenant: 'a', id: 'a3' });
    await w.advanceTo(T0 + 60_000);
    const first = await w.start({ tenant: 'a', id: 'a4' });
    await w.advanceTo(T0 + 99_999);
    const second = await w.start({ tenant: 'a', id: 'a5' });
    await w.advanceTo(T0 + 100_000);
    const third = await w.start({ tenant: 'a', id: 'a6' });
    expect(await w.statuses([early, first, second, third])).toEqual(['CANCELLED', 'RUNNING', 'CANCELLED', 'RUNNING']);
  });

  it('keys are limited apart, and a duplicate delivery of a start is admitted once', async () => {
    const w = new FlowWorld({ rateLimit: { key: byTenant, limit: 1, period: { hours: 1 } } });
    const a1 = await w.start({ tenant: 'a', id: 'a1' });
    const b1 = await w.start({ tenant: 'b', id: 'b1' });
    // The same event again (same run key): its run is found, not started twice nor skipped.
    await w.start({ tenant: 'a', id: 'a1' });
    expect(await w.statuses([a1, b1])).toEqual(['RUNNING', 'RUNNING']);
  });
});
