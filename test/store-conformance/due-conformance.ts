/**
 * Store conformance, continued: the due index. After every kind of write a run's stored `dueAt`
 * is `dueAtOf(run)` (while a lease is held, possibly earlier: never later), and `findDueRuns` finds exactly the runs with a `dueAt` at or before its
 * bound, earliest first (ties by run id), at most `limit`, never an ended or expired run that
 * nothing waits on. Called by `describeStoreConformance`.
 *
 * Patches carry `dueAt` the way the engine writes them: computed with `dueAtOf` from the run as
 * the invocation sees it (see {@link engineView}), since a store that cannot read before it
 * writes (DynamoDB's commit) writes the patch's `dueAt` as it is.
 */
import { dueAtOf, type RunPatch, type RunRecord, type Store } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import { describe, expect } from 'vitest';
import {
  type ConformanceClock,
  type ConformanceOptions,
  callbackOp,
  executionOp,
  leaseToken,
  runRecord,
  stepOp,
  T0,
} from './fixtures';
import { conformanceTest, useStore } from './support';

/** `patch` with the `dueAt` the engine computes from `seen` (the run as its invocation knows it). */
export function engineView(seen: RunRecord, patch: RunPatch): RunPatch {
  const next = { ...seen } as Record<string, unknown>;
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else if (value !== undefined) next[key] = value;
  }
  return { ...patch, dueAt: dueAtOf(next as unknown as RunRecord) ?? null };
}

const done = (id: string): Operation => ({
  ...callbackOp(id),
  Status: 'SUCCEEDED',
  EndTimestamp: T0 + 5,
  CallbackDetails: { CallbackId: `cb-${id}`, Result: '"ok"' },
});

export function describeDueConformance(
  name: string,
  setup: () => Promise<{ store: Store; clock: ConformanceClock }>,
  options: ConformanceOptions = {},
): void {
  const test = conformanceTest(options);

  describe(`${name}: store conformance (due index)`, () => {
    const s = useStore(setup);

    /**
     * The stored run; checks its `dueAt` is `dueAtOf` of it (or earlier while a lease is held: a
     * store may keep the due time the run was leased at) and that the index agrees.
     */
    async function indexed(runId: string): Promise<RunRecord> {
      const run = await s.store.getRun(runId);
      if (!run) throw new Error(`run ${runId} is gone`);
      const due = dueAtOf(run);
      if (run.leaseExpiresAt !== undefined && run.dueAt !== undefined && due !== undefined) {
        expect(run.dueAt, `dueAt of ${runId}`).toBeLessThanOrEqual(due);
      } else {
        expect(run.dueAt, `dueAt of ${runId}`).toBe(due);
      }
      const entry = (await s.store.findDueRuns(Number.MAX_SAFE_INTEGER, 1_000)).find((due) => due.runId === runId);
      expect(entry, `index entry of ${runId}`).toEqual(
        run.dueAt === undefined ? undefined : { runId, dueAt: run.dueAt },
      );
      return run;
    }

    /** Creates a run, takes its lease and commits a STARTED callback: the run waits on it. */
    async function waiting(runId: string, overrides: Partial<RunRecord> = {}): Promise<number> {
      const fence = await s.leased(runId, overrides);
      const seen = (await s.store.getRun(runId)) as RunRecord;
      const patch = engineView(seen, { leaseExpiresAt: null, nextWakeAt: null, handledEventSeq: seen.eventSeq });
      await s.store.commit(runId, fence, { operations: [callbackOp('1')], run: patch });
      return fence;
    }

    test('createRun: a new run is due at its nextWakeAt; one waiting only on events is not indexed', async () => {
      await s.store.createRun(runRecord('r1', { nextWakeAt: T0 + 5 }), executionOp());
      expect((await indexed('r1')).dueAt).toBe(T0 + 5);
      const { nextWakeAt: _none, ...quiet } = runRecord('r2');
      await s.store.createRun(quiet, executionOp());
      expect((await indexed('r2')).dueAt).toBeUndefined();
    });

    test('acquireLease: due when the lease lapses or earlier, and the token is stored', async () => {
      await s.store.createRun(runRecord('r1'), executionOp());
      const token = leaseToken();
      const grant = await s.store.acquireLease('r1', T0, T0 + 60_000, token);
      const run = await indexed('r1');
      expect(run).toMatchObject({ leaseToken: token });
      // A store may keep the run's earlier due time (DynamoDB does: no index write per lease).
      expect(run.dueAt).toBeLessThanOrEqual(T0 + 60_000);
      expect(grant?.run.dueAt).toBe(run.dueAt);
      // A run leased with no due time (it waited on an outside event only) is due at the lease's end.
      const { nextWakeAt: _none, dueAt: _due, ...quiet } = runRecord('r2');
      await s.store.createRun(quiet, executionOp());
      await s.store.acquireLease('r2', T0, T0 + 60_000, leaseToken());
      expect((await indexed('r2')).dueAt).toBe(T0 + 60_000);
    });

    test('commit: a patch moves dueAt as the engine computes it; no patch leaves it', async () => {
      const fence = await s.leased('r1');
      s.clock.set(T0 + 3);
      const leased = (await s.store.getRun('r1'))?.dueAt;
      await s.store.commit('r1', fence, { operations: [stepOp('1', '"a"')] });
      expect((await indexed('r1')).dueAt).toBe(leased);
      const seen = (await s.store.getRun('r1')) as RunRecord;
      await s.store.commit('r1', fence, {
        operations: [],
        run: engineView(seen, { leaseExpiresAt: null, nextWakeAt: T0 + 500, handledEventSeq: 0 }),
      });
      expect((await indexed('r1')).dueAt).toBe(T0 + 500);
    });

    test('commit: a run waiting only on a callback leaves the index', async () => {
      await waiting('r1');
      expect((await indexed('r1')).dueAt).toBeUndefined();
    });

    test('commit: handledEventSeq below the stored eventSeq leaves the run due at once', async () => {
      const fence = await s.leased('r1');
      await s.store.commit('r1', fence, { operations: [callbackOp('1')] });
      const seen = (await s.store.getRun('r1')) as RunRecord;
      // The callback completes while the invocation runs: it does not see the event.
      s.clock.set(T0 + 40);
      expect(await s.store.writeOutsideEvent('r1', done('1'), { Status: 'STARTED' }, true)).toBe(true);
      s.clock.set(T0 + 100);
      await s.store.commit('r1', fence, {
        operations: [stepOp('2', '"b"')],
        run: engineView(seen, { leaseExpiresAt: null, nextWakeAt: null, handledEventSeq: 0 }),
      });
      const run = await indexed('r1');
      expect(run).toMatchObject({ eventSeq: 1, handledEventSeq: 0, dueAt: T0 + 100 });
      expect(await s.store.findDueRuns(T0 + 100, 10)).toEqual([{ runId: 'r1', dueAt: T0 + 100 }]);
      expect(await s.store.loadOperations('r1')).toHaveLength(3);
    });

    test('commit: handledEventSeq equal to eventSeq writes the dueAt the patch says', async () => {
      await waiting('r1');
      expect(await s.store.writeOutsideEvent('r1', done('1'), { Status: 'STARTED' }, true)).toBe(true);
      const grant = await s.store.acquireLease('r1', T0 + 1, T0 + 60_000, leaseToken());
      if (!grant) throw new Error('lease not granted');
      await s.store.commit('r1', grant.run.fence, {
        operations: [],
        run: engineView(grant.run, { leaseExpiresAt: null, nextWakeAt: T0 + 900, handledEventSeq: 1 }),
      });
      expect(await indexed('r1')).toMatchObject({ handledEventSeq: 1, dueAt: T0 + 900 });
    });

    test('writeOutsideEvent: an event makes a waiting run due now; a heartbeat does not', async () => {
      await s.store.createRun(runRecord('r1'), executionOp());
      const fence = (await s.store.acquireLease('r1', T0, T0 + 60_000, leaseToken()))?.run.fence ?? 0;
      const beating = callbackOp('1', { HeartbeatTimeoutSeconds: 10, HeartbeatDeadline: T0 + 10_000 });
      const seen = (await s.store.getRun('r1')) as RunRecord;
      await s.store.commit('r1', fence, {
        operations: [beating],
        run: engineView(seen, { leaseExpiresAt: null, nextWakeAt: null, handledEventSeq: 0 }),
      });
      s.clock.set(T0 + 20);
      const beat = callbackOp('1', { HeartbeatTimeoutSeconds: 10, HeartbeatDeadline: T0 + 20_000 });
      const heartbeat = { Status: 'STARTED' as const, deadlines: { HeartbeatDeadline: T0 + 10_000 } };
      expect(await s.store.writeOutsideEvent('r1', beat, heartbeat, false)).toBe(true);
      expect((await indexed('r1')).dueAt).toBeUndefined();
      s.clock.set(T0 + 30);
      const completed: Operation = {
        ...done('1'),
        CallbackDetails: {
          CallbackId: 'cb-1',
          Result: '"ok"',
          HeartbeatTimeoutSeconds: 10,
          HeartbeatDeadline: T0 + 20_000,
        },
      };
      const expected = { Status: 'STARTED' as const, deadlines: { HeartbeatDeadline: T0 + 20_000 } };
      expect(await s.store.writeOutsideEvent('r1', completed, expected, true)).toBe(true);
      expect(await indexed('r1')).toMatchObject({ eventSeq: 1, dueAt: T0 + 30 });
    });

    test('writeOutsideEvent: while a lease is held the run stays due when the lease lapses', async () => {
      const fence = await s.leased('r1');
      await s.store.commit('r1', fence, { operations: [callbackOp('1')] });
      s.clock.set(T0 + 30);
      expect(await s.store.writeOutsideEvent('r1', done('1'), { Status: 'STARTED' }, true)).toBe(true);
      expect((await indexed('r1')).dueAt).toBe(T0 + 60_000);
    });

    test('reviseRun: a cancelled run leaves the index; a retried one is due at once', async () => {
      await s.leased('r1');
      s.clock.set(T0 + 9);
      await s.store.reviseRun('r1', 'RUNNING', { status: 'CANCELLED', endedAt: T0 + 9, nextWakeAt: null }, []);
      expect((await indexed('r1')).dueAt).toBeUndefined();
      const fence = await s.leased('r2');
      await s.store.commit('r2', fence, {
        operations: [],
        run: { status: 'FAILED', endedAt: T0 + 9, leaseExpiresAt: null, nextWakeAt: null, dueAt: null },
      });
      expect((await indexed('r2')).dueAt).toBeUndefined();
      s.clock.set(T0 + 20);
      const retried = await s.store.reviseRun(
        'r2',
        'FAILED',
        { status: 'RUNNING', endedAt: null, nextWakeAt: T0 + 20 },
        [],
      );
      expect(retried?.dueAt).toBe(T0 + 20);
      expect(await indexed('r2')).toEqual(retried);
    });

    test('an ended child run stays due until its parent is notified', async () => {
      const parent = { runId: 'p1', operationId: '3' };
      const fence = await s.leased('c1', { parent });
      s.clock.set(T0 + 50);
      const seen = (await s.store.getRun('c1')) as RunRecord;
      await s.store.commit('c1', fence, {
        operations: [],
        run: engineView(seen, {
          status: 'SUCCEEDED',
          result: '"r"',
          endedAt: T0 + 50,
          leaseExpiresAt: null,
          nextWakeAt: null,
        }),
      });
      expect((await indexed('c1')).dueAt).toBe(T0 + 50);
      await s.leased('c2', { parent });
      await s.store.reviseRun('c2', 'RUNNING', { status: 'CANCELLED', endedAt: T0 + 50, nextWakeAt: null }, []);
      expect((await indexed('c2')).dueAt).toBe(T0 + 50);
      const notified = await s.store.reviseRun('c1', 'SUCCEEDED', { parentNotified: true, dueAt: null }, []);
      expect(notified).toMatchObject({ parentNotified: true, status: 'SUCCEEDED' });
      expect(notified && 'dueAt' in notified).toBe(false);
      expect(await indexed('c1')).toMatchObject({ parentNotified: true });
      expect((await s.store.findDueRuns(T0 + 1_000, 10)).map((due) => due.runId)).toEqual(['c2']);
    });

    test('findDueRuns: earliest first (ties by run id), at or before the bound, at most limit', async () => {
      // 40 runs over the shards a store may spread its index across, due in a shuffled order.
      const dueAts = Array.from({ length: 40 }, (_, i) => T0 + ((i * 17) % 40) * 10 + (i % 3 === 0 ? 0 : 5));
      for (const [i, at] of dueAts.entries()) {
        await s.store.createRun(runRecord(`run-${i}`, { nextWakeAt: at }), executionOp());
      }
      const expected = dueAts
        .map((dueAt, i) => ({ runId: `run-${i}`, dueAt }))
        .sort((a, b) => a.dueAt - b.dueAt || (a.runId < b.runId ? -1 : 1));
      expect(await s.store.findDueRuns(Number.MAX_SAFE_INTEGER, 100)).toEqual(expected);
      expect(await s.store.findDueRuns(Number.MAX_SAFE_INTEGER, 7)).toEqual(expected.slice(0, 7));
      const bound = expected[20]?.dueAt ?? 0;
      expect(await s.store.findDueRuns(bound, 100)).toEqual(expected.filter((due) => due.dueAt <= bound));
      expect(await s.store.findDueRuns(T0 - 1, 100)).toEqual([]);
      // Paging: each page starts after the last entry of the one before, ties included.
      const paged: typeof expected = [];
      let after: (typeof expected)[number] | undefined;
      for (let page = 0; page < 20; page++) {
        const entries = await s.store.findDueRuns(Number.MAX_SAFE_INTEGER, 3, after);
        paged.push(...entries);
        after = entries[entries.length - 1];
        if (entries.length < 3) break;
      }
      expect(paged).toEqual(expected);
      const middle = expected[10] as (typeof expected)[number];
      expect(await s.store.findDueRuns(bound, 100, middle)).toEqual(
        expected.filter((due) => due.dueAt <= bound).slice(11),
      );
    });

    test('findDueRuns: sparse, ended and expired runs are not in it', async () => {
      await s.store.createRun(runRecord('due'), executionOp());
      const fence = await s.leased('ended');
      await s.store.commit('ended', fence, {
        operations: [],
        run: { status: 'SUCCEEDED', endedAt: T0, leaseExpiresAt: null, nextWakeAt: null, dueAt: null },
      });
      await waiting('quiet');
      await s.store.createRun(runRecord('expiring', { expiresAt: T0 + 1_000 }), executionOp());
      expect((await s.store.findDueRuns(T0 + 1_000, 10)).map((due) => due.runId)).toEqual(['due', 'expiring']);
      s.clock.set(T0 + 1_000);
      expect(await s.store.findDueRuns(T0 + 1_000, 10)).toEqual([{ runId: 'due', dueAt: T0 }]);
    });
  });
}
