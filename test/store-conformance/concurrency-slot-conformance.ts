/**
 * Store conformance, continued: the slots and queues of concurrency keys (flow control per key).
 * A slot is taken conditionally (a holder again: yes; under the limit: yes; else no), released
 * idempotently, and its holders read back; a key's queue is kept in admission order (priority,
 * queue time, run id) and paged. Keys of other functions or keys never mix. Called by
 * `describeStoreConformance`.
 */
import type { SlotKey, Store } from '@durable-lambda/engine';
import { describe, expect } from 'vitest';
import { type ConformanceClock, type ConformanceOptions, executionOp, leaseToken, runRecord, T0 } from './fixtures';
import { conformanceTest, useStore } from './support';

const A: SlotKey = { functionName: 'jobs', key: 'tenant-a' };
const B: SlotKey = { functionName: 'jobs', key: 'tenant-b' };
const OTHER: SlotKey = { functionName: 'mail', key: 'tenant-a' };

/** The store's slot methods, which every store under conformance has. */
function slots(
  store: Store,
): Required<Pick<Store, 'takeSlot' | 'releaseSlot' | 'slotHolders' | 'enqueueRun' | 'dequeueRun' | 'listQueuedRuns'>> {
  const { takeSlot, releaseSlot, slotHolders, enqueueRun, dequeueRun, listQueuedRuns } = store;
  if (!takeSlot || !releaseSlot || !slotHolders || !enqueueRun || !dequeueRun || !listQueuedRuns) {
    throw new Error('the store keeps no concurrency slots');
  }
  return {
    takeSlot: takeSlot.bind(store),
    releaseSlot: releaseSlot.bind(store),
    slotHolders: slotHolders.bind(store),
    enqueueRun: enqueueRun.bind(store),
    dequeueRun: dequeueRun.bind(store),
    listQueuedRuns: listQueuedRuns.bind(store),
  };
}

export function describeConcurrencySlotConformance(
  name: string,
  setup: () => Promise<{ store: Store; clock: ConformanceClock }>,
  options: ConformanceOptions = {},
): void {
  const test = conformanceTest(options);

  describe(`${name}: store conformance (concurrency slots and queues)`, () => {
    const s = useStore(setup);

    test('takes at most `limit` slots of a key; a holder asking again is still a holder', async () => {
      const store = slots(s.store);
      expect(await store.takeSlot(A, 'r1', 2)).toBe(true);
      expect(await store.takeSlot(A, 'r2', 2)).toBe(true);
      expect(await store.takeSlot(A, 'r3', 2)).toBe(false);
      // A retry after a lost response, or a holder checking its slot.
      expect(await store.takeSlot(A, 'r1', 2)).toBe(true);
      expect((await store.slotHolders(A)).sort()).toEqual(['r1', 'r2']);
    });

    test('a released slot can be taken again; releasing twice or a slot never held is no change', async () => {
      const store = slots(s.store);
      expect(await store.takeSlot(A, 'r1', 1)).toBe(true);
      await store.releaseSlot(A, 'r1');
      await store.releaseSlot(A, 'r1');
      await store.releaseSlot(B, 'never');
      expect(await store.slotHolders(A)).toEqual([]);
      expect(await store.slotHolders(B)).toEqual([]);
      expect(await store.takeSlot(A, 'r2', 1)).toBe(true);
      expect(await store.slotHolders(A)).toEqual(['r2']);
    });

    test('keys, and the same key of another function, have slots of their own', async () => {
      const store = slots(s.store);
      expect(await store.takeSlot(A, 'r1', 1)).toBe(true);
      expect(await store.takeSlot(B, 'r2', 1)).toBe(true);
      expect(await store.takeSlot(OTHER, 'r3', 1)).toBe(true);
      expect(await store.takeSlot(A, 'r4', 1)).toBe(false);
      expect(await store.slotHolders(B)).toEqual(['r2']);
    });

    test('concurrent takes never pass the limit', async () => {
      const store = slots(s.store);
      const ids = Array.from({ length: 8 }, (_, i) => `r${i}`);
      const taken = await Promise.all(ids.map((id) => store.takeSlot(A, id, 3)));
      expect(taken.filter(Boolean)).toHaveLength(3);
      expect(await store.slotHolders(A)).toHaveLength(3);
    });

    test('a key’s queue lists in admission order: priority, then queue time, then run id', async () => {
      const store = slots(s.store);
      await store.enqueueRun(A, { runId: 'late', priority: 0, queuedAt: T0 + 2000 });
      await store.enqueueRun(A, { runId: 'b', priority: 0, queuedAt: T0 });
      await store.enqueueRun(A, { runId: 'a', priority: 0, queuedAt: T0 });
      await store.enqueueRun(A, { runId: 'later-priority', priority: 1, queuedAt: T0 - 5000 });
      await store.enqueueRun(B, { runId: 'other-key', priority: 0, queuedAt: T0 - 9000 });
      // The same entry again is no change.
      await store.enqueueRun(A, { runId: 'a', priority: 0, queuedAt: T0 });
      const all = await store.listQueuedRuns(A, 10);
      expect(all.map((e) => e.runId)).toEqual(['a', 'b', 'late', 'later-priority']);
      expect(all[0]).toEqual({ runId: 'a', priority: 0, queuedAt: T0 });
      const first = await store.listQueuedRuns(A, 2);
      expect(first.map((e) => e.runId)).toEqual(['a', 'b']);
      const next = await store.listQueuedRuns(A, 2, first[1]);
      expect(next.map((e) => e.runId)).toEqual(['late', 'later-priority']);
    });

    test('a run is marked QUEUED with its key and queue time, listed by that status, and revised back to RUNNING', async () => {
      await s.store.createRun(runRecord('q1'), executionOp());
      const grant = await s.store.acquireLease('q1', T0, T0 + 60_000, leaseToken());
      const fence = grant?.run.fence ?? 0;
      const recheck = T0 + 900_000;
      await s.store.commit('q1', fence, {
        operations: [],
        run: {
          status: 'QUEUED',
          concurrencyKey: 'tenant-a',
          queuedAt: T0,
          queuePriority: 0,
          leaseExpiresAt: null,
          nextWakeAt: recheck,
          dueAt: recheck,
        },
      });
      expect(await s.store.getRun('q1')).toMatchObject({
        status: 'QUEUED',
        concurrencyKey: 'tenant-a',
        queuedAt: T0,
        queuePriority: 0,
        dueAt: recheck,
      });
      const listed = await s.store.listRuns({ status: 'QUEUED' });
      expect(listed.runs.map((r) => r.runId)).toEqual(['q1']);
      const revised = await s.store.reviseRun('q1', 'QUEUED', { status: 'RUNNING', nextWakeAt: T0, dueAt: T0 }, []);
      expect(revised).toMatchObject({ status: 'RUNNING', concurrencyKey: 'tenant-a', queuedAt: T0 });
      const admitted = await s.store.acquireLease('q1', T0, T0 + 60_000, leaseToken());
      await s.store.commit('q1', admitted?.run.fence ?? 0, {
        operations: [],
        run: { queuedAt: null, queuePriority: null },
      });
      const run = await s.store.getRun('q1');
      expect(run?.queuedAt).toBeUndefined();
      expect(run?.concurrencyKey).toBe('tenant-a');
    });

    test('a dequeued entry leaves the queue; dequeuing twice is no change', async () => {
      const store = slots(s.store);
      const entry = { runId: 'a', priority: 0, queuedAt: T0 };
      await store.enqueueRun(A, entry);
      await store.enqueueRun(A, { runId: 'b', priority: 0, queuedAt: T0 + 1 });
      await store.dequeueRun(A, entry);
      await store.dequeueRun(A, entry);
      expect((await store.listQueuedRuns(A, 10)).map((e) => e.runId)).toEqual(['b']);
      expect(await store.listQueuedRuns(B, 10)).toEqual([]);
    });
  });
}
