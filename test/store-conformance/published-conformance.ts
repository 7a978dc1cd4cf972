/**
 * Store conformance, continued: a run's published state (`ctx.publish`, issue 27) is a run field
 * a commit sets, replaced by the next one, read back whole by `getRun` and in listings, and kept
 * as the run ends. Called by `describeStoreConformance`.
 */
import type { PublishedState, Store } from '@durable-lambda/engine';
import { describe, expect } from 'vitest';
import { type ConformanceClock, type ConformanceOptions, executionOp, leaseToken, runRecord, T0 } from './fixtures';
import { conformanceTest, useStore } from './support';

export function describePublishedConformance(
  name: string,
  setup: () => Promise<{ store: Store; clock: ConformanceClock }>,
  options: ConformanceOptions = {},
): void {
  const test = conformanceTest(options);

  describe(`${name}: store conformance (published state)`, () => {
    const s = useStore(setup);

    test('a commit stores the published state, the next replaces it, the end keeps it, listings show it', async () => {
      await s.store.createRun(runRecord('p1'), executionOp());
      const grant = await s.store.acquireLease('p1', T0, T0 + 60_000, leaseToken());
      const fence = grant?.run.fence ?? 0;
      expect(grant?.run.published).toBeUndefined();
      const first: PublishedState = {
        state: JSON.stringify({ stage: 'reserving', items: ['a', 'ü'] }),
        at: T0,
        seq: 1,
      };
      await s.store.commit('p1', fence, { operations: [], run: { published: first } });
      expect((await s.store.getRun('p1'))?.published).toEqual(first);
      // The largest state the SDK sends: 4,096 bytes.
      const second: PublishedState = { state: JSON.stringify('x'.repeat(4_094)), at: T0 + 5, seq: 2 };
      await s.store.commit('p1', fence, {
        operations: [],
        run: { status: 'SUCCEEDED', endedAt: T0 + 5, leaseExpiresAt: null, dueAt: null, published: second },
      });
      const ended = await s.store.getRun('p1');
      expect(ended?.status).toBe('SUCCEEDED');
      expect(ended?.published).toEqual(second);
      const listed = (await s.store.listRuns({ limit: 10 })).runs.find((run) => run.runId === 'p1');
      expect(listed?.published).toEqual(second);
    });
  });
}
