/**
 * The reconciler handler's policy at scale, on the bench's simulation (bench/lib/reconciler-sim.ts:
 * an explicit simulated clock, modelled request latencies, the engine and `reconcileInvocation`
 * unchanged) at a small size: behind, it pages the due index's shards side by side, takes more
 * passes than it used to, raises the wake-ups in flight within its bound, and ends each
 * invocation within its timeout; idle, it costs one Query a shard. The bench runs 100,000 runs.
 */
import { SHARDS_AT_ONCE, WAKE_UPS_IN_FLIGHT_WHEN_BEHIND } from '@durable-lambda/aws';
import { describe, expect, it } from 'vitest';
import {
  LATENCY,
  type LatencyModel,
  RECONCILER_TIMEOUT_MS,
  simulateIdleInvocation,
  simulateRecovery,
} from '../../../bench/lib/reconciler-sim';

const SHARDS = 64;

describe('the reconciler at scale (simulated)', () => {
  it('behind, wakes a backlog of 3,000 in one invocation: shards side by side, more passes, more wake-ups at once', async () => {
    const result = await simulateRecovery({ runs: 3_000, shards: SHARDS, policy: 'shipped' });
    expect(result.invocations).toHaveLength(1);
    expect(result.invocations[0]).toMatchObject({ woken: 3_000, stoppedBy: 'done' });
    // The first pass (the whole index), then every shard from its cursor.
    expect(result.invocations[0]?.passes).toBe(1 + SHARDS);
    expect(result.counts).toMatchObject({ getItems: 3_000, invokes: 3_000 });
    expect(result.wokenTwice).toBe(0);
    expect(result.maxPassesInFlight).toBe(SHARDS_AT_ONCE);
    expect(result.counts.maxWakeUpsInFlight).toBeGreaterThan(8);
    expect(result.counts.maxWakeUpsInFlight).toBeLessThanOrEqual(WAKE_UPS_IN_FLIGHT_WHEN_BEHIND);

    // The reconciler before: 25 merged passes of 100 a minute, 8 at once.
    const before = await simulateRecovery({ runs: 3_000, shards: SHARDS, policy: 'before' });
    expect(before.invocations.map((i) => [i.woken, i.stoppedBy])).toEqual([
      [2_500, 'passes'],
      [500, 'done'],
    ]);
    expect(before.counts.maxWakeUpsInFlight).toBe(8);
  });

  it('goes on while time remains, and ends every invocation within its timeout', async () => {
    // Every request 20× slower: one invocation cannot wake 5,000.
    const slow = (x: { median: number; p99: number }) => ({ median: x.median * 20, p99: x.p99 * 20 });
    const latency: LatencyModel = {
      query: slow(LATENCY.query),
      getItem: slow(LATENCY.getItem),
      invoke: slow(LATENCY.invoke),
    };
    const result = await simulateRecovery({ runs: 5_000, shards: SHARDS, policy: 'shipped', latency });
    expect(result.invocations.length).toBeGreaterThan(1);
    expect(result.invocations[0]?.stoppedBy).toBe('time');
    expect(result.invocations.at(-1)?.stoppedBy).toBe('done');
    for (const invocation of result.invocations) expect(invocation.durationMs).toBeLessThan(RECONCILER_TIMEOUT_MS);
    expect(result.invocations.reduce((sum, i) => sum + i.woken, 0)).toBe(5_000);
  });

  it('idle, costs one Query a shard (0.5 RRU each) and nothing else', async () => {
    const idle = await simulateIdleInvocation(SHARDS);
    expect(idle.counts).toEqual({
      queries: SHARDS,
      queryRru: SHARDS / 2,
      getItems: 0,
      invokes: 0,
      maxWakeUpsInFlight: 0,
    });
  });
});
