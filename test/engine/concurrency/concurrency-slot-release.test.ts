import { describe, expect, it } from 'vitest';
import { ConcurrencyWorld } from './concurrency-world';

/** One run holding the key's only slot and one queued behind it. */
async function busyKey(w: ConcurrencyWorld): Promise<[string, string]> {
  const a1 = await w.start({ tenant: 'a', id: 'a1' });
  w.clock.advanceBy(1000);
  const a2 = await w.start({ tenant: 'a', id: 'a2' });
  await w.deliver();
  expect(await w.statuses([a1, a2])).toEqual(['RUNNING', 'QUEUED']);
  return [a1, a2];
}

describe('flow control per key: every way a run ends frees its slot', () => {
  it('success hands the slot to the head of the queue', async () => {
    const w = new ConcurrencyWorld(1);
    const [a1, a2] = await busyKey(w);
    await w.finish(a1);
    expect(await w.statuses([a1, a2])).toEqual(['SUCCEEDED', 'RUNNING']);
    expect((await w.run(a2))?.queuedAt).toBeUndefined();
  });

  it('failure hands the slot over', async () => {
    const w = new ConcurrencyWorld(1);
    const [a1, a2] = await busyKey(w);
    await w.finish(a1, 'fail');
    expect(await w.statuses([a1, a2])).toEqual(['FAILED', 'RUNNING']);
  });

  it('an operator cancel hands the slot over; a queued run can be cancelled and leaves the queue', async () => {
    const w = new ConcurrencyWorld(1);
    const [a1, a2] = await busyKey(w);
    w.clock.advanceBy(1000);
    const a3 = await w.start({ tenant: 'a', id: 'a3' });
    await w.engine.cancelRun(a2);
    expect((await w.run(a3))?.queuePosition).toBe(1);
    await w.engine.cancelRun(a1);
    await w.deliver();
    expect(await w.statuses([a1, a2, a3])).toEqual(['CANCELLED', 'CANCELLED', 'RUNNING']);
  });

  it('an execution timeout hands the slot over', async () => {
    const w = new ConcurrencyWorld(1, { executionTimeoutSeconds: 60 });
    const a1 = await w.start({ tenant: 'a', id: 'a1' });
    w.clock.advanceBy(61_000);
    const a2 = await w.start({ tenant: 'a', id: 'a2' });
    expect(await w.statuses([a1, a2])).toEqual(['RUNNING', 'QUEUED']);
    await w.engine.reconcile();
    await w.deliver();
    expect(await w.statuses([a1, a2])).toEqual(['TIMED_OUT', 'RUNNING']);
  });

  it('a retried run that had ended takes a slot again', async () => {
    const w = new ConcurrencyWorld(1);
    const [a1, a2] = await busyKey(w);
    await w.finish(a1, 'fail');
    await w.engine.retryRun(a1);
    await w.deliver();
    expect(await w.statuses([a1, a2])).toEqual(['QUEUED', 'RUNNING']);
    const before = (await w.run(a1))?.invocations ?? 0;
    await w.finish(a2);
    // Admitted at the hand-over, the retried run replays its stored callback result and fails again.
    expect(await w.statuses([a1, a2])).toEqual(['FAILED', 'SUCCEEDED']);
    expect((await w.run(a1))?.invocations).toBeGreaterThan(before);
    expect(w.maxActive).toBe(1);
  });
});

describe('flow control per key: no slot is leaked', () => {
  it('a death between the terminal write and the release is healed by the next admission', async () => {
    const w = new ConcurrencyWorld(1);
    const [a1, a2] = await busyKey(w);
    const release = w.store.releaseSlot.bind(w.store);
    w.store.releaseSlot = async () => {
      throw new Error('process died');
    };
    await w.finish(a1);
    w.store.releaseSlot = release;
    expect(await w.statuses([a1, a2])).toEqual(['SUCCEEDED', 'QUEUED']);
    // The next run of the key finds it full, evicts the ended holder and wakes the head.
    const a3 = await w.start({ tenant: 'a', id: 'a3' });
    await w.deliver();
    expect(await w.statuses([a1, a2, a3])).toEqual(['SUCCEEDED', 'RUNNING', 'QUEUED']);
    expect(w.maxActive).toBe(1);
  });

  it('a death between the terminal write and the release is healed by the reconciler, with no admission', async () => {
    const w = new ConcurrencyWorld(1);
    const [a1, a2] = await busyKey(w);
    const release = w.store.releaseSlot.bind(w.store);
    w.store.releaseSlot = async () => {
      throw new Error('process died');
    };
    await w.finish(a1);
    w.store.releaseSlot = release;
    // The ended run still holds the slot, and says so: it stays due until it is released.
    expect(await w.run(a1)).toMatchObject({ status: 'SUCCEEDED', slotHeld: true });
    expect(await w.store.slotHolders({ functionName: 'jobs', key: 'a' })).toEqual([a1]);
    await w.engine.reconcile({ graceMs: 0 });
    await w.deliver();
    expect(await w.store.slotHolders({ functionName: 'jobs', key: 'a' })).toEqual([a2]);
    expect(await w.statuses([a1, a2])).toEqual(['SUCCEEDED', 'RUNNING']);
    const ended = await w.run(a1);
    expect(ended?.slotHeld).toBeUndefined();
    expect(ended?.dueAt).toBeUndefined();
  });

  it('a run ended while its invocation took a slot (its admission then fenced) leaves no slot held', async () => {
    const w = new ConcurrencyWorld(1);
    const take = w.store.takeSlot.bind(w.store);
    let cancelled = false;
    // The run is cancelled between its slot's take and the write recording it.
    w.store.takeSlot = async (slot, runId, limit) => {
      const taken = await take(slot, runId, limit);
      if (!cancelled) {
        cancelled = true;
        await w.engine.cancelRun(runId);
      }
      return taken;
    };
    const a1 = await w.start({ tenant: 'a', id: 'a1' }).catch(async () => {
      const runs = await w.engine.listRuns({ functionName: 'jobs', limit: 10 });
      return runs.runs[0]?.runId as string;
    });
    expect(await w.statuses([a1])).toEqual(['CANCELLED']);
    expect(await w.store.slotHolders({ functionName: 'jobs', key: 'a' })).toEqual([]);
  });

  it('a retry of a run whose release was lost releases the slot first: the queue goes on in order', async () => {
    const w = new ConcurrencyWorld(1);
    const [a1, a2] = await busyKey(w);
    const release = w.store.releaseSlot.bind(w.store);
    w.store.releaseSlot = async () => {
      throw new Error('process died');
    };
    await w.finish(a1, 'fail');
    w.store.releaseSlot = release;
    expect(await w.run(a1)).toMatchObject({ status: 'FAILED', slotHeld: true });
    await w.engine.retryRun(a1);
    await w.deliver();
    // The head (a2) got the slot the retry let go of; the retried run queues behind it.
    expect(await w.statuses([a1, a2])).toEqual(['QUEUED', 'RUNNING']);
    expect(await w.store.slotHolders({ functionName: 'jobs', key: 'a' })).toEqual([a2]);
  });

  it('a run that ends and releases its slot leaves the due index with it', async () => {
    const w = new ConcurrencyWorld(1);
    const [a1] = await busyKey(w);
    await w.finish(a1);
    const ended = await w.run(a1);
    expect(ended).toMatchObject({ status: 'SUCCEEDED' });
    expect(ended?.slotHeld).toBeUndefined();
    expect(ended?.dueAt).toBeUndefined();
  });

  it('a run whose slot was taken by an invocation that lost the answer runs, not queued behind the head while holding it', async () => {
    const w = new ConcurrencyWorld(1);
    const take = w.store.takeSlot.bind(w.store);
    // a1's first admission takes the slot, then the answer is lost: the invocation fails before recording it.
    w.store.takeSlot = async (...args) => {
      await take(...args);
      throw new Error('response lost');
    };
    const a1 = await w.start({ tenant: 'a', id: 'a1' }).catch(async () => {
      const runs = await w.engine.listRuns({ functionName: 'jobs', limit: 10 });
      return runs.runs[0]?.runId as string;
    });
    w.store.takeSlot = take;
    w.clock.advanceBy(1000);
    // a2 finds the key full (a1 holds the slot and is RUNNING): it queues, the head of the key's queue.
    const a2 = await w.start({ tenant: 'a', id: 'a2' });
    expect(await w.statuses([a1, a2])).toEqual(['RUNNING', 'QUEUED']);
    // a1 comes back (its retry wake-up): it holds the slot, so it runs.
    w.clock.advanceBy(5 * 60_000);
    await w.deliver();
    expect(await w.statuses([a1, a2])).toEqual(['RUNNING', 'QUEUED']);
    expect(w.started).toEqual(['a1']);
    await w.finish(a1);
    expect(await w.statuses([a1, a2])).toEqual(['SUCCEEDED', 'RUNNING']);
    expect(w.maxActive).toBe(1);
  });

  it('a lost hand-over wake-up is healed by the reconciler', async () => {
    const w = new ConcurrencyWorld(1);
    const [a1, a2] = await busyKey(w);
    const list = w.store.listQueuedRuns.bind(w.store);
    w.store.listQueuedRuns = async () => {
      throw new Error('process died');
    };
    await w.finish(a1);
    w.store.listQueuedRuns = list;
    expect(await w.statuses([a1, a2])).toEqual(['SUCCEEDED', 'QUEUED']);
    w.clock.advanceBy(65 * 60_000);
    await w.engine.reconcile();
    await w.deliver();
    expect(await w.statuses([a1, a2])).toEqual(['SUCCEEDED', 'RUNNING']);
  });
});
