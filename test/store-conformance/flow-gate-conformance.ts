/**
 * Store conformance, continued: flow control's registers (`throttle`, `rateLimit`, `debounce`)
 * and the flow marks of a run. A register is written only by compare-and-set on its version (0:
 * it must not exist), reads back what was written, expires at its `expiresAt` (then reads as
 * absent and is written as new), and registers of other gates, keys or functions never mix. A
 * run's `flow` marks are stored and removed like its other fields. Called by
 * `describeStoreConformance`.
 */
import type { GateKey, Store } from '@durable-lambda/engine';
import { describe, expect } from 'vitest';
import { type ConformanceClock, type ConformanceOptions, executionOp, leaseToken, runRecord, T0 } from './fixtures';
import { conformanceTest, useStore } from './support';

const THROTTLE: GateKey = { functionName: 'jobs', gate: 'throttle', key: 'tenant-a' };

/** The store's gate methods, which every store under conformance has. */
function gates(store: Store): Required<Pick<Store, 'readGate' | 'writeGate'>> {
  const { readGate, writeGate } = store;
  if (!readGate || !writeGate) throw new Error('the store keeps no flow-control registers');
  return { readGate: readGate.bind(store), writeGate: writeGate.bind(store) };
}

export function describeFlowGateConformance(
  name: string,
  setup: () => Promise<{ store: Store; clock: ConformanceClock }>,
  options: ConformanceOptions = {},
): void {
  const test = conformanceTest(options);

  describe(`${name}: store conformance (flow-control registers)`, () => {
    const s = useStore(setup);

    test('a register is written only at the version read: first at 0, then each version once', async () => {
      const store = gates(s.store);
      expect(await store.readGate(THROTTLE)).toBeUndefined();
      expect(await store.writeGate(THROTTLE, { tat: T0 + 10, by: 'r1' }, 0, T0 + 60_000)).toBe(true);
      // A second writer that also read nothing loses.
      expect(await store.writeGate(THROTTLE, { tat: T0 + 20, by: 'r2' }, 0, T0 + 60_000)).toBe(false);
      expect(await store.readGate(THROTTLE)).toEqual({ version: 1, value: { tat: T0 + 10, by: 'r1' } });
      expect(await store.writeGate(THROTTLE, { tat: T0 + 20, by: 'r2' }, 1, T0 + 60_000)).toBe(true);
      // A stale version (a retry after a lost response, a racing writer) writes nothing.
      expect(await store.writeGate(THROTTLE, { tat: T0 + 30, by: 'r3' }, 1, T0 + 60_000)).toBe(false);
      expect(await store.readGate(THROTTLE)).toEqual({ version: 2, value: { tat: T0 + 20, by: 'r2' } });
    });

    test('a register past its expiry reads as absent and is written as new', async () => {
      const store = gates(s.store);
      await store.writeGate(THROTTLE, { tat: T0 }, 0, T0 + 1_000);
      s.clock.set(T0 + 1_000);
      expect(await store.readGate(THROTTLE)).toBeUndefined();
      expect(await store.writeGate(THROTTLE, { tat: T0 + 5 }, 1, T0 + 9_000)).toBe(false);
      expect(await store.writeGate(THROTTLE, { tat: T0 + 5 }, 0, T0 + 9_000)).toBe(true);
      expect((await store.readGate(THROTTLE))?.value).toEqual({ tat: T0 + 5 });
    });

    test('registers of other gates, keys and functions never mix', async () => {
      const store = gates(s.store);
      const others: GateKey[] = [
        { ...THROTTLE, gate: 'rateLimit' },
        { ...THROTTLE, gate: 'debounce' },
        { ...THROTTLE, key: 'tenant-b' },
        { ...THROTTLE, functionName: 'mail' },
      ];
      await store.writeGate(THROTTLE, { n: 1 }, 0, T0 + 60_000);
      for (const [i, other] of others.entries()) {
        expect(await store.readGate(other)).toBeUndefined();
        expect(await store.writeGate(other, { n: i + 2 }, 0, T0 + 60_000)).toBe(true);
      }
      expect((await store.readGate(THROTTLE))?.value).toEqual({ n: 1 });
      expect((await store.readGate(others[3] as GateKey))?.value).toEqual({ n: 5 });
    });

    test("a run's flow marks are stored with it and removed by null", async () => {
      await s.store.createRun(runRecord('f1'), executionOp());
      const grant = await s.store.acquireLease('f1', T0, T0 + 60_000, leaseToken());
      const flow = {
        passed: ['debounce' as const, 'throttle' as const],
        waitingFor: 'throttle' as const,
        until: T0 + 5,
      };
      await s.store.commit('f1', grant?.run.fence ?? 0, {
        operations: [],
        run: { status: 'QUEUED', flow, leaseExpiresAt: null, nextWakeAt: T0 + 5, dueAt: T0 + 5 },
      });
      expect((await s.store.getRun('f1'))?.flow).toEqual(flow);
      const revised = await s.store.reviseRun('f1', 'QUEUED', { status: 'RUNNING', flow: null }, []);
      expect(revised?.flow).toBeUndefined();
      expect((await s.store.getRun('f1'))?.flow).toBeUndefined();
    });
  });
}
