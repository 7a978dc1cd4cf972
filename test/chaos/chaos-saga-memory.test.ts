import { afterAll, describe, expect, it } from 'vitest';
import { CHAOS_FAULTS, ChaosTotals, envCount, seeds } from './harness';
import { runSagaSeed, SagaTotals } from './saga-world';

/**
 * Saga seeds (issue 27, `saga-world.ts`) on the memory store: DURABLE_CHAOS_SAGA_RUNS (default
 * 120, ~3 CPU-s) seeds under the suites' random faults of every kind; each compensation once in the
 * history, only for steps that succeeded, in reverse order, reported (`saga-invariants.ts`).
 * One seed in five meets an operator's cancel (`sagaModeFor`). DURABLE_CHAOS_SAGA_RUNS=500 passed
 * with 0 violations: 5,840 faults (every kind 96 times or more), 1,098 rounds, 2,398 compensations,
 * 2,920 undo executions (529 repeats of lost attempts), 86 cancels landed (48 once a round had begun).
 */
const RUNS = envCount('DURABLE_CHAOS_SAGA_RUNS', 120);
/** Seeds apart from the other suites'. */
const FIRST_SEED = 2_000_001;
const totals = new ChaosTotals();
const sagas = new SagaTotals();

afterAll(() => {
  process.stdout.write(`${totals.report('memory store, saga seeds')}\n${sagas.report()}\n`);
});

describe('chaos on the memory store: sagas', () => {
  it(`every saga compensates once per succeeded step, in reverse order, under random faults (${RUNS} seeds)`, async () => {
    for (const seed of seeds(FIRST_SEED, RUNS)) {
      const outcome = await runSagaSeed(seed, { storeLabel: 'memory', faults: CHAOS_FAULTS });
      totals.add(outcome);
      sagas.add(outcome.saga);
    }
    expect(totals.runs).toBe(seeds(FIRST_SEED, RUNS).length);
    expect(Object.values(totals.faults).every((n) => n > 0) || totals.runs < 40).toBe(true);
    expect(totals.report('memory store')).not.toMatch(/violations [1-9]/);
  }, 600_000);
});
