/**
 * Store conformance, continued: `Store.pinRun`, the write a version policy's pin makes at a run's
 * first lease (`orders` or `orders:live` re-recorded as `orders:7`). It renames a RUNNING run only
 * while the run still has the name read and the lease just taken; a retried write finds its own
 * success; and the listings by function follow the new name. For the stores that pin (memory,
 * DynamoDB): the SQLite store has no `pinRun`, as the dev server's engine pins nothing.
 */
import type { RunQuery, Store } from '@durable-lambda/engine';
import { describe, expect } from 'vitest';
import { type ConformanceClock, type ConformanceOptions, executionOp, runRecord } from './fixtures';
import { conformanceTest, useStore } from './support';

export function describePinRunConformance(
  name: string,
  setup: () => Promise<{ store: Store; clock: ConformanceClock }>,
  options: ConformanceOptions = {},
): void {
  const test = conformanceTest(options);

  describe(`${name}: pinRun, a version policy's pin at the first lease`, () => {
    const s = useStore(setup);

    const pin = (runId: string, from: string, to: string, token: string) => {
      const pinRun = s.store.pinRun?.bind(s.store);
      if (!pinRun) throw new Error(`${name} has no pinRun`);
      return pinRun(runId, from, to, token);
    };

    /** Creates `runId` recorded as `functionName` and leases it with `token`. */
    async function leasedAs(runId: string, functionName: string, token: string): Promise<void> {
      const now = s.clock.now();
      await s.store.createRun(runRecord(runId, { functionName }), executionOp());
      const grant = await s.store.acquireLease(runId, now, now + 60_000, token);
      if (!grant) throw new Error('lease not granted');
    }

    const ids = async (query: RunQuery) => (await s.store.listRuns(query)).runs.map((run) => run.runId);

    test('renames the run leased with the token, once; a retried write finds it done', async () => {
      await leasedAs('r1', 'orders:live', 'token-1');
      expect(await pin('r1', 'orders:live', 'orders:7', 'token-1')).toBe(true);
      expect((await s.store.getRun('r1'))?.functionName).toBe('orders:7');
      // The same write again (its answer was lost): the run has the name asked for.
      expect(await pin('r1', 'orders:live', 'orders:7', 'token-1')).toBe(true);
      expect(await ids({ functionName: 'orders:7' })).toEqual(['r1']);
      expect(await ids({ functionName: 'orders:live' })).toEqual([]);
      expect(await ids({ functionName: 'orders' })).toEqual(['r1']);
    });

    test('leaves the run alone under another lease, another name, or once it ended', async () => {
      await leasedAs('r2', 'orders', 'token-2');
      expect(await pin('r2', 'orders', 'orders:7', 'token-other')).toBe(false);
      expect(await pin('r2', 'orders:live', 'orders:7', 'token-2')).toBe(false);
      expect((await s.store.getRun('r2'))?.functionName).toBe('orders');
      const ended = await s.store.reviseRun('r2', 'RUNNING', { status: 'CANCELLED' }, []);
      expect(ended?.status).toBe('CANCELLED');
      expect(await pin('r2', 'orders', 'orders:7', 'token-2')).toBe(false);
      expect((await s.store.getRun('r2'))?.functionName).toBe('orders');
      expect(await pin('missing', 'orders', 'orders:7', 'token-2')).toBe(false);
    });
  });
}
