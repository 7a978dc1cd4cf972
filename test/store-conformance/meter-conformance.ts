/**
 * Store conformance, continued: the run's meter (`RunRecord.meter`, `RunPatch.meter`). A patch's
 * meter is an increment: every store adds it field by field in the same atomic write as the rest
 * of the commit (DynamoDB `ADD`, a SQLite transaction, `+=` in memory), so increments that race
 * never lose a count, a refused write adds nothing, and a figure never measured stays absent.
 * Called by `describeStoreConformance`.
 */
import type { Store } from '@durable-lambda/engine';
import { FencedError } from '@durable-lambda/protocol';
import { describe, expect } from 'vitest';
import { type ConformanceClock, type ConformanceOptions, stepOp, T0 } from './fixtures';
import { conformanceTest, useStore } from './support';

export function describeMeterConformance(
  name: string,
  setup: () => Promise<{ store: Store; clock: ConformanceClock }>,
  options: ConformanceOptions = {},
): void {
  const test = conformanceTest(options);

  describe(`${name}: store conformance (run meter)`, () => {
    const s = useStore(setup);

    test('a new run has no meter; commits add their increments field by field', async () => {
      const fence = await s.leased('r1');
      expect((await s.store.getRun('r1'))?.meter).toBeUndefined();
      await s.store.commit('r1', fence, {
        operations: [stepOp('1', '"a"')],
        run: { meter: { invocations: 1, billedMs: 12, wru: 2.5, rru: 0.5 } },
      });
      await s.store.commit('r1', fence, {
        operations: [],
        run: { nextWakeAt: T0 + 1_000, meter: { invocations: 1, billedMs: 30, wru: 1, sqsRequests: 3, mbMs: 0 } },
      });
      const run = await s.store.getRun('r1');
      // Absent fields (never measured, or zero) stay absent; the rest of the patch is applied too.
      expect(run?.meter).toEqual({ invocations: 2, billedMs: 42, wru: 3.5, rru: 0.5, sqsRequests: 3 });
      expect(run?.nextWakeAt).toBe(T0 + 1_000);
      // Listing returns the meter with the run.
      const listed = (await s.store.listRuns({})).runs.find((r) => r.runId === 'r1');
      expect(listed?.meter).toEqual(run?.meter);
    });

    test('increments racing each other never lose a count', async () => {
      const fence = await s.leased('r1');
      await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          s.store.commit('r1', fence, { operations: [], run: { meter: { invocations: 1, billedMs: i + 1, wru: 1 } } }),
        ),
      );
      expect((await s.store.getRun('r1'))?.meter).toEqual({ invocations: 12, billedMs: 78, wru: 12 });
    });

    test('a fenced-out commit adds nothing', async () => {
      const fence = await s.leased('r1');
      await s.store.commit('r1', fence, { operations: [], run: { meter: { invocations: 1, billedMs: 5 } } });
      const stale = s.store.commit('r1', fence + 1, {
        operations: [],
        run: { meter: { invocations: 1, billedMs: 5 } },
      });
      await expect(stale).rejects.toBeInstanceOf(FencedError);
      expect((await s.store.getRun('r1'))?.meter).toEqual({ invocations: 1, billedMs: 5 });
    });

    test('the meter survives the run ending and a revision, which may add to it too', async () => {
      const fence = await s.leased('r1');
      await s.store.commit('r1', fence, {
        operations: [],
        run: { status: 'FAILED', endedAt: T0, leaseExpiresAt: null, meter: { invocations: 1, billedMs: 7, wru: 4 } },
      });
      const revised = await s.store.reviseRun('r1', 'FAILED', { status: 'RUNNING', meter: { rru: 1.5 } }, []);
      expect(revised?.meter).toEqual({ invocations: 1, billedMs: 7, wru: 4, rru: 1.5 });
      expect((await s.store.getRun('r1'))?.meter).toEqual(revised?.meter);
    });

    test('an increment that is not a finite number of at least 0 is refused (invalid_meter), nothing written', async () => {
      const fence = await s.leased('r1');
      for (const meter of [{ wru: -1 }, { billedMs: Number.NaN }, { rru: Number.POSITIVE_INFINITY }]) {
        await expect(
          s.store.commit('r1', fence, { operations: [stepOp('9', '"x"')], run: { meter } }),
        ).rejects.toMatchObject({ code: 'invalid_meter' });
      }
      const unknown = { meter: { dollars: 1 } } as unknown as { meter: { wru: number } };
      await expect(s.store.commit('r1', fence, { operations: [], run: unknown })).rejects.toMatchObject({
        code: 'invalid_meter',
      });
      expect((await s.store.getRun('r1'))?.meter).toBeUndefined();
      expect(await s.store.getOperation('r1', '9')).toBeUndefined();
    });
  });
}
