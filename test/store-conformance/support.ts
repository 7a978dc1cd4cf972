/**
 * What the store suites (`conformance.ts`, `control-conformance.ts`, and the suites they call)
 * share beyond their fixtures.
 */
import type { RunRecord, Store } from '@durable-lambda/engine';
import { beforeEach, it } from 'vitest';
import { type ConformanceClock, type ConformanceOptions, executionOp, leaseToken, runRecord, T0 } from './fixtures';

/**
 * The suites' `it`: a test named in `options.knownDeviations` runs as `it.fails`, so one helper
 * decides, for every suite alike, how a store's known deviation shows.
 */
export function conformanceTest(
  options: ConformanceOptions,
): (title: string, body: () => Promise<void>, timeout?: number) => void {
  const known = new Set(options.knownDeviations ?? []);
  return (title, body, timeout) => (known.has(title) ? it.fails : it)(title, body, timeout);
}

/** What a suite's tests work on: a fresh store (per test) and its clock, set to {@link T0}. */
export interface StoreUnderTest {
  readonly store: Store;
  readonly clock: ConformanceClock;
  /** Creates `runId` and takes its lease until now + 60 s; returns the fence. */
  leased(runId: string, overrides?: Partial<RunRecord>): Promise<number>;
}

/** Registers a `beforeEach` (call it inside a `describe`) giving each test a fresh store. */
export function useStore(setup: () => Promise<{ store: Store; clock: ConformanceClock }>): StoreUnderTest {
  let current: { store: Store; clock: ConformanceClock } | undefined;
  beforeEach(async () => {
    current = await setup();
    current.clock.set(T0);
  });
  const get = () => {
    if (!current) throw new Error('the store is set up before each test');
    return current;
  };
  return {
    get store() {
      return get().store;
    },
    get clock() {
      return get().clock;
    },
    async leased(runId, overrides = {}) {
      const { store, clock } = get();
      await store.createRun(runRecord(runId, overrides), executionOp(overrides.input));
      const grant = await store.acquireLease(runId, clock.now(), clock.now() + 60_000, leaseToken());
      if (!grant) throw new Error(`lease not granted; the run reads ${JSON.stringify(await store.getRun(runId))}`);
      return grant.run.fence;
    },
  };
}
