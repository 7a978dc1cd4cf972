import { type FaultOptions, TestDriver } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

const START = Date.UTC(2030, 0, 1);

/** A function of one slot per tenant; `entered` lists, per body entry, the run and its invocation count then. */
function keyedWorld(faults: FaultOptions) {
  const entered: Array<{ runId: string; invocations: number }> = [];
  let driver: TestDriver | undefined;
  const handler = withDurableExecution(
    async (event: { tenant: string; id: string }, ctx) => {
      entered.push({ runId: ctx.runId, invocations: driver?.invocations.get(ctx.runId)?.length ?? 0 });
      await ctx.step('work', async () => event.id);
      await ctx.wait('pause', { seconds: 30 });
      return event.id;
    },
    { concurrency: { key: (event) => (event as { tenant: string }).tenant, limit: 1 } },
  );
  driver = new TestDriver({ jobs: handler }, { startTime: START, faults });
  return { driver, entered };
}

describe('keyed runs under the test driver faults', () => {
  it('are admitted, queued and handed their slot over (the faulty invocation admits)', async () => {
    const { driver } = keyedWorld({ seed: 7, defaultProbability: 0 });
    const a = await driver.start('jobs', { tenant: 't', id: 'a' });
    const b = await driver.start('jobs', { tenant: 't', id: 'b' });
    expect((await driver.runUntilDone(a.runId)).status).toBe('SUCCEEDED');
    const ended = await driver.runUntilDone(b.runId);
    expect([ended.status, ended.result]).toEqual(['SUCCEEDED', '"b"']);
  });

  it('an invocation killed in its admission dies after its slot is taken: its handler never runs there, and the run goes on', async () => {
    const { driver, entered } = keyedWorld({ seed: 7, defaultProbability: 0, maxFaults: 1, killInCheckpoint: 1 });
    const a = await driver.start('jobs', { tenant: 't', id: 'a' });
    const ended = await driver.runUntilDone(a.runId);
    expect(ended.status).toBe('SUCCEEDED');
    expect(driver.faults.map((f) => [f.kind, f.invocation, f.detail])).toEqual([
      ['killInCheckpoint', 0, 'admission under concurrency t (dies at its slot write)'],
    ]);
    expect(driver.invocations.get(a.runId)?.[0]?.status).toBe('KILLED');
    // Every body entry came in a later invocation (the first was killed before its admission was recorded).
    expect(entered.length).toBeGreaterThan(0);
    expect(entered.every((e) => e.invocations >= 2)).toBe(true);
    expect(await driver.store.slotHolders?.({ functionName: 'jobs', key: 't' })).toEqual([]);
  });
});
