import { afterAll, describe, expect, it } from 'vitest';
import { runFlowSeed } from './flow-world';
import { CHAOS_FAULTS, ChaosTotals, envCount, runSeed, seeds } from './harness';

/**
 * 500 runs in `npm test` (~4,400 faults, every kind many times over, ~13 CPU-s; 1,000 cost twice
 * that on a 5-minute budget). 13 seeds in 20 meet an operator (`operators.ts`): ~100 cancels,
 * ~130 retries, ~130 execution timeouts, ~50 runs re-created after retention.
 * DURABLE_CHAOS_RUNS=5000 (passed with 0 violations: 43,630 faults, 2,601 operator actions, 1,347
 * timeouts, 504 re-created runs) or 20000 for a longer soak; DURABLE_CHAOS_OPERATORS=0 for no operator.
 */
const RUNS = envCount('DURABLE_CHAOS_RUNS', 500);
/**
 * Flow seeds (issue 26: keyed concurrency, triggers, schedules; `flow-world.ts`): one per six runs,
 * 84 by default (~6 CPU-s here). With DURABLE_CHAOS_RUNS=2000, 334 flow seeds passed with 0
 * violations: 3,172 keyed runs, 1,446 queued, 1,371 hand-overs, 764 kills in admission or before a
 * slot's release, 452 slot writes' responses lost, 6,714 trigger deliveries, 2,411 firings.
 */
const FLOW_RUNS = Math.ceil(RUNS / 6);
/** Flow seeds apart from the reference ones. */
const FLOW_FIRST_SEED = 1_000_001;
const totals = new ChaosTotals();

afterAll(() => {
  process.stdout.write(`${totals.report('memory store')}\n`);
});

describe('chaos on the memory store', () => {
  it(`every run of the reference workflows finishes correctly under random faults (${RUNS} runs)`, async () => {
    for (const seed of seeds(1, RUNS)) {
      totals.add(await runSeed(seed, { storeLabel: 'memory', faults: CHAOS_FAULTS }));
    }
    expect(totals.runs).toBe(seeds(1, RUNS).length);
    expect(Object.values(totals.faults).every((n) => n > 0) || totals.runs < 100).toBe(true);
    expect(totals.report('memory store')).not.toMatch(/violations [1-9]/);
  }, 600_000);

  it(`every keyed run keeps its key's limit, frees its slot and starts once per event under random faults (${FLOW_RUNS} flow seeds)`, async () => {
    const before = totals.runs;
    for (const seed of seeds(FLOW_FIRST_SEED, FLOW_RUNS)) {
      totals.add(await runFlowSeed(seed, { faults: CHAOS_FAULTS }));
    }
    expect(totals.runs - before).toBe(seeds(FLOW_FIRST_SEED, FLOW_RUNS).length);
    expect(totals.report('memory store')).not.toMatch(/violations [1-9]/);
  }, 600_000);
});
