/**
 * `ctx.publish` under faults (killed invocations, killed checkpoints, lost store responses,
 * racing invocations): the states the store took, in the order it took them, never go back to an
 * older one, and the run ends with its last. `PUBLISH_FAULT_SEEDS` runs more seeds.
 */
import { MemoryStore, type RunPatch, type Store } from '@durable-lambda/engine';
import { TestDriver } from '@durable-lambda/local';
import type { Operation } from '@durable-lambda/protocol';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

const SEEDS = Number(process.env.PUBLISH_FAULT_SEEDS ?? 8);

/** The in-memory store, keeping the published states its commits stored, in order. */
class PublishedLog extends MemoryStore {
  readonly stored: number[] = [];

  override async commit(
    runId: string,
    fence: number,
    write: { operations: readonly Operation[]; run?: RunPatch },
  ): Promise<void> {
    await super.commit(runId, fence, write);
    const published = write.run?.published;
    if (published) this.stored.push(JSON.parse(published.state).n);
  }
}

const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
  for (let n = 1; n <= 4; n++) {
    await ctx.publish({ n });
    await ctx.step(`work-${n}`, async () => n);
    if (n === 2) await ctx.wait('pause', { seconds: 30 });
  }
  await ctx.runInChildContext('last', async (child) => {
    await child.publish({ n: 5 });
    await child.step('inner', async () => 5);
  });
  await ctx.wait('settle', { seconds: 30 });
  return 'done';
});

describe('ctx.publish under faults', () => {
  it('the stored state only moves forward and ends at the last published, on every seed', async () => {
    let faults = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      let store: PublishedLog | undefined;
      const driver = new TestDriver(
        { fn: handler as never },
        {
          store: (clock) => {
            store = new PublishedLog(clock);
            return store as Store;
          },
          startTime: Date.UTC(2026, 0, 1),
          faults: {
            seed,
            defaultProbability: 0,
            killInCheckpoint: 0.2,
            storeLostResponse: 0.2,
            killAfterStep: 0.2,
            race: 0.1,
            maxFaults: 6,
          },
        },
      );
      const started = await driver.start('fn', {});
      const ended = await driver.runUntilDone(started.runId);
      faults += driver.faults.length;
      const where = `seed ${seed}: ${JSON.stringify(driver.faults.map((f) => `${f.kind}@${f.operationId}`))} stored ${JSON.stringify(store?.stored)}`;
      expect(ended.status, where).toBe('SUCCEEDED');
      expect(JSON.parse(ended.published?.state ?? 'null'), where).toEqual({ n: 5 });
      const stored = store?.stored ?? [];
      expect(
        stored.every((n, i) => i === 0 || n >= (stored[i - 1] as number)),
        where,
      ).toBe(true);
    }
    // The seeds did inject faults: the test proves something.
    expect(faults).toBeGreaterThan(0);
  });
});
