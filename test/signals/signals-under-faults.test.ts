/**
 * Named signals under the test driver's seeded faults (issue 27): lost store responses (a send
 * retried with its key), killed invocations, races for the lease, wake-ups late, doubled or
 * dropped. Whatever the seed, each wait gets the signals of its name in the order sent, each
 * exactly once, and the inbox holds each signal once.
 */
import { type FaultOptions, TestDriver } from '@durable-lambda/local';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

const START = Date.UTC(2030, 0, 1);

/** Sends until the engine accepts it, as a client retrying with the same key (a lost answer is a retry). */
async function sendOnce(driver: TestDriver, runId: string, n: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await driver.sendSignal(runId, 'item', n, { dedupeKey: `item-${n}` });
      return;
    } catch (error) {
      if (attempt >= 20) throw error;
    }
  }
}

async function world(faults: FaultOptions) {
  const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
    const got: number[] = [];
    await ctx.step('begin', async () => 'b');
    for (let i = 0; i < 3; i++) {
      got.push(await ctx.waitForSignal<number>('item'));
      await ctx.step(`after-${i}`, async () => i);
    }
    return got;
  });
  const driver = new TestDriver({ fn: handler }, { startTime: START, faults, printLogs: false });
  const run = await driver.start('fn', {});
  // One before the run waits; the others while it runs or waits.
  await sendOnce(driver, run.runId, 1);
  const done = driver.runUntilDone(run.runId);
  await sendOnce(driver, run.runId, 2);
  await new Promise((resolve) => setTimeout(resolve, 5));
  await sendOnce(driver, run.runId, 3);
  const ended = await done;
  return { driver, runId: run.runId, ended };
}

describe('signals under faults', () => {
  it('deliver each signal once, in order, on every seed', async () => {
    const kinds = new Set<string>();
    for (let seed = 1; seed <= 40; seed++) {
      const { driver, runId, ended } = await world({ seed, defaultProbability: 0.08, maxLateMs: 30_000 });
      for (const fault of driver.faults) kinds.add(fault.kind);
      expect([seed, ended.status, JSON.parse(ended.result ?? 'null')]).toEqual([seed, 'SUCCEEDED', [1, 2, 3]]);
      const inbox = (await driver.store.listSignals?.(runId)) ?? [];
      expect([seed, inbox.map((s) => s.payload)]).toEqual([seed, ['1', '2', '3']]);
    }
    // The seeds above met these kinds at least (so the test exercises them).
    expect([...kinds]).toEqual(
      expect.arrayContaining(['storeLostResponse', 'killInCheckpoint', 'killAfterStep', 'race', 'wakeDropped']),
    );
  }, 120_000);
});
