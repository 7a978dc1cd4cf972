/**
 * Store conformance, continued: the run's history as a record (issue 23). A store keeps where
 * each history event stands as the engine wrote it (`RunRecord.historySeq`,
 * `RunRecord.historyInvocations`, each operation's `HistoryOrder`) through every write (create,
 * commit, outside event) and every read (`getRun`, `loadOperations`, `loadReplayOperations`,
 * `getOperation`, `loadOperationPage`), and a run written without them reads back without them.
 * Called by `describeStoreConformance`.
 */
import type { HistoryInvocation, Store } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import { describe, expect } from 'vitest';
import {
  type ConformanceClock,
  type ConformanceOptions,
  callbackOp,
  contextOp,
  executionOp,
  leaseToken,
  payload,
  runRecord,
  stepOp,
  T0,
} from './fixtures';
import { conformanceTest, useStore } from './support';

/** Every read of a run's operations, each by id. */
async function everyRead(store: Store, runId: string): Promise<Array<[string, Map<string, Operation>]>> {
  const byId = (ops: readonly Operation[]) => new Map(ops.map((op) => [op.Id, op]));
  const reads: Array<[string, Map<string, Operation>]> = [['loadOperations', byId(await store.loadOperations(runId))]];
  if (store.loadReplayOperations) reads.push(['loadReplayOperations', byId(await store.loadReplayOperations(runId))]);
  if (store.loadOperationPage) {
    reads.push(['loadOperationPage', byId((await store.loadOperationPage(runId, { limit: 100 })).operations)]);
  }
  return reads;
}

export function describeHistoryOrderConformance(
  name: string,
  setup: () => Promise<{ store: Store; clock: ConformanceClock }>,
  options: ConformanceOptions = {},
): void {
  const test = conformanceTest(options);

  describe(`${name}: store conformance (history order)`, () => {
    const s = useStore(setup);

    /** A run that records its history's order, leased: its fence. */
    async function recordingRun(runId: string): Promise<number> {
      await s.store.createRun(runRecord(runId, { historySeq: 1 }), { ...executionOp(), HistoryOrder: [1] });
      const grant = await s.store.acquireLease(runId, s.clock.now(), s.clock.now() + 60_000, leaseToken());
      if (!grant) throw new Error('lease not granted');
      return grant.run.fence;
    }

    test('keeps each operation its places and the run its count and invocations, through every read', async () => {
      const fence = await recordingRun('r1');
      const written: Operation[] = [
        stepOp('1', '"a"', { HistoryOrder: [2, 3] }),
        // Places far apart, and an outside event's half place (a callback completed from outside).
        stepOp('2', '"b"', { HistoryOrder: [4, 40, 41.5, 1000.75] }),
        { ...contextOp('3'), HistoryOrder: [5] },
        stepOp('3-1', '"c"', { HistoryOrder: [6, 7] }),
        // A result large enough that a store may keep it apart from the run (an operation item).
        stepOp('4', JSON.stringify(payload(6_000)), { HistoryOrder: [8, 9] }),
        { ...callbackOp('5'), HistoryOrder: [10] },
      ];
      await s.store.commit('r1', fence, { operations: written, run: { historySeq: 10 } });
      const invocations: HistoryInvocation[] = [
        { startedAt: T0, endedAt: T0 + 25, order: 11 },
        { startedAt: T0 + 3_600_000, endedAt: T0 + 3_600_000, order: 12 },
      ];
      await s.store.commit('r1', fence, {
        operations: [],
        run: { historySeq: 12, historyInvocations: invocations, leaseExpiresAt: null },
      });
      s.clock.set(T0 + 3_600_001);
      const completed: Operation = {
        ...callbackOp('5'),
        Status: 'SUCCEEDED',
        EndTimestamp: T0 + 3_600_001,
        CallbackDetails: { CallbackId: 'cb-5', Result: '"ok"' },
        HistoryOrder: [10, 12.5],
      };
      expect(await s.store.writeOutsideEvent('r1', completed, { Status: 'STARTED' }, true)).toBe(true);

      expect(await s.store.getRun('r1')).toMatchObject({ historySeq: 12, historyInvocations: invocations });
      const expected = new Map([...written, completed].map((op) => [op.Id, op.HistoryOrder]));
      expected.set('0', [1]);
      for (const [read, ops] of await everyRead(s.store, 'r1')) {
        for (const [id, order] of expected) {
          // A replay load leaves out what is under a finished context: nothing here is.
          expect({ read, id, order: ops.get(id)?.HistoryOrder }).toEqual({ read, id, order });
        }
      }
      for (const [id, order] of expected) expect((await s.store.getOperation('r1', id))?.HistoryOrder).toEqual(order);
    });

    test('a run and operations written without places read back without them', async () => {
      await s.store.createRun(runRecord('r2'), executionOp());
      const grant = await s.store.acquireLease('r2', s.clock.now(), s.clock.now() + 60_000, leaseToken());
      if (!grant) throw new Error('lease not granted');
      await s.store.commit('r2', grant.run.fence, { operations: [stepOp('1', '"a"')] });
      const run = await s.store.getRun('r2');
      expect(run?.historySeq).toBeUndefined();
      expect(run?.historyInvocations).toBeUndefined();
      for (const [, ops] of await everyRead(s.store, 'r2')) {
        for (const op of ops.values()) expect(op.HistoryOrder).toBeUndefined();
      }
    });
  });
}
