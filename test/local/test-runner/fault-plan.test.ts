import { FAULT_KINDS, FaultPlan, keyedRandom, mulberry32 } from '@durable-lambda/local';
import { describe, expect, it } from 'vitest';

const clock = { now: () => Date.UTC(2030, 0, 1) };
const site = { runId: 'r1', run: 'main', invocation: 0 };

/** The decisions a plan makes for a fixed list of places. */
function decisions(seed: number, keys: readonly string[]): boolean[] {
  const plan = new FaultPlan({ seed, defaultProbability: 0.3 }, clock);
  return keys.map((key, i) => plan.roll(FAULT_KINDS[i % FAULT_KINDS.length] ?? 'race', key, site));
}

const places = Array.from({ length: 200 }, (_, i) => `main|#${i % 7}|${i}:START`);

describe('FaultPlan', () => {
  it('makes the same decisions and records the same faults for the same seed', () => {
    expect(decisions(42, places)).toEqual(decisions(42, places));
    const a = new FaultPlan({ seed: 7 }, clock);
    const b = new FaultPlan({ seed: 7 }, clock);
    for (const key of places) {
      a.roll('wakeDropped', key, site);
      b.roll('wakeDropped', key, site);
    }
    expect(a.log.length).toBeGreaterThan(0);
    expect(a.log).toEqual(b.log);
    expect(a.describe()).toBe(b.describe());
  });

  it('makes other decisions for another seed', () => {
    expect(decisions(42, places)).not.toEqual(decisions(43, places));
  });

  it('keys each decision by its place, so the order of decisions does not change them', () => {
    const forward = new FaultPlan({ seed: 9, defaultProbability: 0.5 }, clock);
    const backward = new FaultPlan({ seed: 9, defaultProbability: 0.5 }, clock);
    const ahead = places.map((key) => forward.roll('killInCheckpoint', key, site));
    const behind = [...places].reverse().map((key) => backward.roll('killInCheckpoint', key, site));
    expect(behind.reverse()).toEqual(ahead);
  });

  it('gives the n-th visit of one place its own decision', () => {
    const plan = new FaultPlan({ seed: 1, defaultProbability: 0.5 }, clock);
    const visits = Array.from({ length: 64 }, () => plan.roll('race', 'main|#0|1:START', site));
    expect(visits).toContain(true);
    expect(visits).toContain(false);
  });

  it('injects each kind at about its probability, and never a kind set to 0', () => {
    const plan = new FaultPlan({ seed: 2024, defaultProbability: 0, wakeLate: 0.25 }, clock);
    let late = 0;
    for (let i = 0; i < 10_000; i++) {
      if (plan.roll('wakeLate', `k${i}`, site)) late++;
      expect(plan.roll('wakeDropped', `k${i}`, site)).toBe(false);
    }
    expect(late).toBeGreaterThan(2_250);
    expect(late).toBeLessThan(2_750);
    expect(plan.counts()).toMatchObject({ wakeLate: late, wakeDropped: 0 });
  });

  it('stops injecting after maxFaults', () => {
    const plan = new FaultPlan({ seed: 3, defaultProbability: 1, maxFaults: 2 }, clock);
    const rolled = places.map((key) => plan.roll('throttleWaker', key, site));
    expect(rolled.filter(Boolean)).toHaveLength(2);
    expect(plan.log.map((r) => r.seq)).toEqual([1, 2]);
  });

  it('records where each fault was injected and prints the seed with them', () => {
    const plan = new FaultPlan({ seed: 5, defaultProbability: 1 }, clock);
    plan.roll('killBeforeStep', 'main|#2|4:START', {
      runId: 'r9',
      run: 'main/3',
      invocation: 2,
      operationId: '4',
      detail: 'STEP START',
    });
    expect(plan.log).toEqual([
      {
        kind: 'killBeforeStep',
        seq: 1,
        at: clock.now(),
        runId: 'r9',
        run: 'main/3',
        invocation: 2,
        operationId: '4',
        detail: 'STEP START',
      },
    ]);
    expect(plan.describe()).toBe(
      'seed 5, 1 fault(s) injected:\n  #1 killBeforeStep run main/3 invocation 2 operation 4 (STEP START) at 2030-01-01T00:00:00.000Z',
    );
  });

  it.each([
    [{ seed: -1 }, 'faults.seed'],
    [{ seed: 1.5 }, 'faults.seed'],
    [{ seed: 2 ** 32 }, 'faults.seed'],
    [{ seed: 1, wakeLate: 2 }, 'faults.wakeLate'],
    [{ seed: 1, defaultProbability: -0.1 }, 'faults.defaultProbability'],
    [{ seed: 1, maxFaults: 1.5 }, 'faults.maxFaults'],
    [{ seed: 1, wakeLatee: 0.1 }, 'faults.wakeLatee'],
  ])('refuses bad options %j naming the field %s with a stable code', (options, field) => {
    expect(() => new FaultPlan(options as never, clock)).toThrow(
      expect.objectContaining({ field, code: 'invalid_argument' }),
    );
  });
});

describe('seeded random numbers', () => {
  it('repeat for a seed and stay in [0, 1)', () => {
    const a = mulberry32(11);
    const b = mulberry32(11);
    const xs = Array.from({ length: 100 }, () => a());
    expect(xs).toEqual(Array.from({ length: 100 }, () => b()));
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(keyedRandom(11, 'place')).toBe(keyedRandom(11, 'place'));
    expect(keyedRandom(11, 'place')).not.toBe(keyedRandom(12, 'place'));
  });
});
