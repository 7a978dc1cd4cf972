/**
 * Store conformance, continued: each function's flow-control limits (what `noteFunctionLimits`
 * records for the control API's functions listing). A record is put, read back by name and listed
 * by name; a second put replaces the first; records of one function never touch another's, and a
 * function's runs (its registry entry) are not mistaken for limits. Called by
 * `describeStoreConformance`.
 */
import type { FunctionLimitsRecord, Store } from '@durable-lambda/engine';
import { describe, expect } from 'vitest';
import { type ConformanceClock, type ConformanceOptions, executionOp, runRecord, T0 } from './fixtures';
import { conformanceTest, useStore } from './support';

/** The store's limits methods, which every store under conformance has. */
function limits(store: Store): Required<Pick<Store, 'putFunctionLimits' | 'getFunctionLimits' | 'listFunctionLimits'>> {
  const { putFunctionLimits, getFunctionLimits, listFunctionLimits } = store;
  if (!putFunctionLimits || !getFunctionLimits || !listFunctionLimits) {
    throw new Error('the store keeps no function limits');
  }
  return {
    putFunctionLimits: putFunctionLimits.bind(store),
    getFunctionLimits: getFunctionLimits.bind(store),
    listFunctionLimits: listFunctionLimits.bind(store),
  };
}

const JOBS: FunctionLimitsRecord = {
  functionName: 'jobs',
  limits: {
    concurrency: { limit: 2 },
    throttle: { limit: 10, periodMs: 60_000, burst: 5 },
    rateLimit: { limit: 100, periodMs: 3_600_000 },
    debounce: { periodMs: 5_000, timeoutMs: 60_000 },
    singleton: { mode: 'cancel' },
    priority: true,
  },
  recordedAt: T0,
  version: '7',
};

export function describeFunctionLimitsConformance(
  name: string,
  setup: () => Promise<{ store: Store; clock: ConformanceClock }>,
  options: ConformanceOptions = {},
): void {
  const test = conformanceTest(options);

  describe(`${name}: store conformance (function limits)`, () => {
    const s = useStore(setup);

    test('keeps a function’s limits record and reads it back whole, by name', async () => {
      const store = limits(s.store);
      expect(await store.getFunctionLimits('jobs')).toBeUndefined();
      await store.putFunctionLimits(JOBS);
      expect(await store.getFunctionLimits('jobs')).toEqual(JOBS);
      expect(await store.getFunctionLimits('mail')).toBeUndefined();
    });

    test('a second record of a function replaces the first (a version with other limits)', async () => {
      const store = limits(s.store);
      await store.putFunctionLimits(JOBS);
      const next: FunctionLimitsRecord = {
        functionName: 'jobs',
        limits: { concurrency: { limit: 5 } },
        recordedAt: T0 + 1,
      };
      await store.putFunctionLimits(next);
      expect(await store.getFunctionLimits('jobs')).toEqual(next);
      expect(await store.listFunctionLimits()).toEqual([next]);
    });

    test('lists every function’s record by name, and nothing else (runs of a function are not limits)', async () => {
      const store = limits(s.store);
      await s.store.createRun(runRecord('r1', { functionName: 'billing' }), executionOp());
      await store.putFunctionLimits({ functionName: 'mail', limits: {}, recordedAt: T0 });
      await store.putFunctionLimits(JOBS);
      expect(await store.listFunctionLimits()).toEqual([JOBS, { functionName: 'mail', limits: {}, recordedAt: T0 }]);
    });
  });
}
