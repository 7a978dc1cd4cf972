/**
 * `ctx.publish` in concurrent branches: on replay, one branch may reach new work (the run leaves
 * replay) while another still walks operations it recorded before; a publish of the latter is at
 * a point its branch already passed, and must not be sent, or the stored state would go back.
 */
import { MemoryStore, type RunPatch, type Store } from '@durable-lambda/engine';
import { TestDriver } from '@durable-lambda/local';
import type { Operation } from '@durable-lambda/protocol';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

/** The in-memory store, keeping the published states its commits stored, in order. */
class PublishedLog extends MemoryStore {
  readonly stored: string[] = [];

  override async commit(
    runId: string,
    fence: number,
    write: { operations: readonly Operation[]; run?: RunPatch },
  ): Promise<void> {
    await super.commit(runId, fence, write);
    const published = write.run?.published;
    if (published) this.stored.push(JSON.parse(published.state));
  }
}

const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
  await ctx.parallel('branches', [
    async (a: DurableContext) => {
      // Several recorded steps before its publishes: on replay this branch is still walking them
      // when the other one reaches new work.
      for (let i = 0; i < 12; i++) await a.step(`a${i}`, async () => i);
      await a.publish('a-1');
      await a.step('a-mid', async () => 'm');
      await a.publish('a-2');
      await a.wait('a-long', { seconds: 60 });
      return 'a';
    },
    async (b: DurableContext) => {
      await b.wait('b-short', { seconds: 10 });
      await b.step('b-after', async () => 'b');
      return 'b';
    },
  ]);
  return 'done';
});

describe('ctx.publish in concurrent branches', () => {
  it('a branch still replaying sends none of its publishes after another reached new work', async () => {
    let store: PublishedLog | undefined;
    const driver = new TestDriver(
      { fn: handler as never },
      {
        store: (clock) => {
          store = new PublishedLog(clock);
          return store as Store;
        },
        startTime: Date.UTC(2026, 0, 1),
      },
    );
    const started = await driver.start('fn', {});
    const ended = await driver.runUntilDone(started.runId);
    expect(ended.status).toBe('SUCCEEDED');
    expect(ended.invocations).toBeGreaterThan(1);
    expect(store?.stored).toEqual(['a-1', 'a-2']);
    expect(ended.published).toMatchObject({ state: JSON.stringify('a-2'), seq: 2 });
  });
});
