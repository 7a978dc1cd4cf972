import { describe, expect, it } from 'vitest';
import { FlowWorld } from './flow-world';

const byTenant = (e: unknown) => (e as { tenant: string }).tenant;

describe('singleton: one run of a key at a time, with no queue', () => {
  it('`skip`: a run arriving while another runs ends CANCELLED (singleton_running), naming the holder', async () => {
    const w = new FlowWorld({ singleton: { key: byTenant, mode: 'skip' } });
    const a1 = await w.start({ tenant: 'a', id: 'a1' });
    const a2 = await w.start({ tenant: 'a', id: 'a2' });
    const b1 = await w.start({ tenant: 'b', id: 'b1' });
    expect(await w.statuses([a1, a2, b1])).toEqual(['RUNNING', 'CANCELLED', 'RUNNING']);
    expect((await w.run(a2))?.error).toMatchObject({ ErrorCode: 'singleton_running' });
    expect((await w.run(a2))?.error?.ErrorMessage).toContain(a1);
    // Once the holder ends, the key is free again.
    await w.finish(a1);
    const a3 = await w.start({ tenant: 'a', id: 'a3' });
    expect(await w.statuses([a3])).toEqual(['RUNNING']);
  });

  it('`cancel`: the new run cancels the running one and runs; the cancel is recorded as its doing', async () => {
    const w = new FlowWorld({ singleton: { key: byTenant, mode: 'cancel' } });
    const a1 = await w.start({ tenant: 'a', id: 'a1' });
    const a2 = await w.start({ tenant: 'a', id: 'a2' });
    expect(await w.statuses([a1, a2])).toEqual(['CANCELLED', 'RUNNING']);
    expect((await w.run(a1))?.actions?.[0]).toMatchObject({ action: 'cancel', actor: `singleton:${a2}` });
    expect(w.startOffsets(['a1', 'a2'])).toEqual([0, 0]);
  });

  it('a holder that ended without freeing its slot (a crash) does not block the key', async () => {
    const w = new FlowWorld({ singleton: { mode: 'skip' } });
    const a1 = await w.start({ tenant: 'a', id: 'a1' });
    const release = w.store.releaseSlot?.bind(w.store);
    w.store.releaseSlot = async () => {
      throw new Error('process died');
    };
    await w.finish(a1);
    w.store.releaseSlot = release;
    expect(await w.store.slotHolders?.({ functionName: 'jobs', key: '*' })).toEqual([a1]);
    const a2 = await w.start({ tenant: 'a', id: 'a2' });
    expect(await w.statuses([a1, a2])).toEqual(['SUCCEEDED', 'RUNNING']);
  });

  it('cannot be combined with concurrency: a clear error naming the field at wrap time', () => {
    expect(
      () =>
        new FlowWorld({
          singleton: { mode: 'skip' },
          concurrency: { key: byTenant, limit: 2 },
        }),
    ).toThrow(/config\.singleton/);
  });
});
