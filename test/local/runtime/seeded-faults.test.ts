/**
 * The LocalRuntime (what the dev server runs) with seeded fault injection on the real clock:
 * dropped and throttled wake-ups, lost store responses and killed invocations, and every run
 * still finishes, each step's key executed at most once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalRuntime, SqliteStore } from '@durable-lambda/local';
import { type DurableLambdaHandler, withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'durable-embedded-faults-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('LocalRuntime with injected faults', () => {
  it('finishes every run under dropped wake-ups, lost responses and killed invocations', async () => {
    const keys: string[] = [];
    const handler: DurableLambdaHandler = withDurableExecution(
      async (event: { n: number }, ctx) => {
        let total = 0;
        for (let i = 0; i < 3; i++) {
          total += await ctx.step(`add-${i}`, async ({ idempotencyKey }) => {
            keys.push(idempotencyKey);
            return event.n + i;
          });
        }
        await ctx.wait('breathe', { seconds: 1 });
        return total;
      },
      { logSink: () => {} },
    );
    const store = new SqliteStore({ path: join(dir, 'faults.sqlite') });
    const errors: unknown[] = [];
    const runtime = new LocalRuntime({
      store,
      functions: new Map([['adder', handler]]),
      // A killed invocation's lease lapses after this; the reconciler then resumes the run.
      invocationMs: 1_500,
      reconcileEveryMs: 200,
      engine: { leaseGraceMs: 100, faultRetryMs: 200 },
      faults: {
        seed: 20261201,
        defaultProbability: 0,
        wakeDropped: 0.3,
        throttleWaker: 0.2,
        storeLostResponse: 0.1,
        killAfterStep: 0.15,
        killBeforeStep: 0.1,
        maxFaults: 12,
      },
      onError: (error) => errors.push(error),
    });
    await runtime.start();
    try {
      // A start whose response was lost is retried with its run key, as a client would.
      const start = async (n: number) => {
        for (let attempt = 0; ; attempt++) {
          try {
            return await runtime.startRun('adder', { n }, { runKey: `adder-${n}` });
          } catch (error) {
            if (attempt >= 5) throw error;
          }
        }
      };
      const runs = await Promise.all([1, 10, 100].map(start));
      const ended = await Promise.all(runs.map((run) => runtime.waitForRun(run.runId, { timeoutMs: 90_000 })));
      expect(ended.map((run) => [run.status, run.result])).toEqual([
        ['SUCCEEDED', String(1 * 3 + 3)],
        ['SUCCEEDED', String(10 * 3 + 3)],
        ['SUCCEEDED', String(100 * 3 + 3)],
      ]);
      expect(runtime.faultPlan?.describe()).toMatch(/fault/);
      expect(Object.values(runtime.faultPlan?.counts() ?? {}).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
      // A key is never executed for two attempts.
      expect(new Set(keys).size).toBe(keys.length);
    } finally {
      await runtime.stop();
      store.close();
    }
  }, 120_000);

  it('refuses racing invocations, which only the test runner injects', () => {
    const store = new SqliteStore({ path: ':memory:' });
    expect(() => new LocalRuntime({ store, functions: new Map(), faults: { seed: 1, race: 0.5 } })).toThrow(
      /faults\.race/,
    );
    store.close();
  });
});
