/**
 * `ctx.publish(state)` (issue 27, "Signals and queries": queries): the run's published state is
 * stored with the run's writes (no write of its own), read back parsed, never moved back to an
 * older state by a replay, and refused past its size with the field named.
 */
import { MemoryStore, type RunPatch, type Store } from '@durable-lambda/engine';
import { LocalDurableTestRunner, TestDriver } from '@durable-lambda/local';
import type { Operation } from '@durable-lambda/protocol';
import { type DurableContext, InvalidArgumentError, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

/** The in-memory store, counting its commits and keeping the published states they wrote, in order. */
class CountingStore extends MemoryStore {
  commits = 0;
  readonly written: string[] = [];

  override async commit(
    runId: string,
    fence: number,
    write: { operations: readonly Operation[]; run?: RunPatch },
  ): Promise<void> {
    await super.commit(runId, fence, write);
    this.commits += 1;
    const published = write.run?.published;
    if (published) this.written.push(JSON.parse(published.state).stage);
  }
}

async function drive(handler: unknown) {
  let store: CountingStore | undefined;
  const driver = new TestDriver(
    { fn: handler as never },
    {
      store: (clock) => {
        store = new CountingStore(clock);
        return store as Store;
      },
      startTime: Date.UTC(2026, 0, 1),
    },
  );
  const run = await driver.start('fn', {});
  const ended = await driver.runUntilDone(run.runId);
  if (!store) throw new Error('the driver built no store');
  return { ended, store };
}

describe('ctx.publish', () => {
  it('stores the latest state, parsed back with when and how many', async () => {
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      await ctx.publish({ stage: 'reserving', done: 0 });
      await ctx.step('reserve', async () => 'r');
      await ctx.publish({ stage: 'charging', done: 1 });
      await ctx.step('charge', async () => 'c');
      return 'ok';
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toBe('ok');
    const published = result.getPublished<{ stage: string; done: number }>();
    expect(published?.state).toEqual({ stage: 'charging', done: 1 });
    expect(published?.seq).toBe(2);
    expect(published?.at).toBeInstanceOf(Date);
  });

  it('costs no write of its own: a publish right before the end rides with the end', async () => {
    const body = async (ctx: DurableContext, publish: boolean) => {
      await ctx.step('work', async () => 1);
      if (publish) await ctx.publish({ stage: 'finished' });
      return 'done';
    };
    const without = await drive(withDurableExecution((_e: unknown, ctx: DurableContext) => body(ctx, false)));
    const withPublish = await drive(withDurableExecution((_e: unknown, ctx: DurableContext) => body(ctx, true)));
    expect(withPublish.ended.status).toBe('SUCCEEDED');
    expect(withPublish.store.commits).toBe(without.store.commits);
    expect(withPublish.store.written).toEqual(['finished']);
    expect(withPublish.ended.published).toMatchObject({ seq: 1 });
    expect(without.ended.published).toBeUndefined();
  });

  it('is written with the next checkpoint, and several publishes between two writes store the last', async () => {
    const { ended, store } = await drive(
      withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
        await ctx.publish({ stage: 'a' });
        await ctx.publish({ stage: 'b' });
        await ctx.step('one', async () => 1);
        await ctx.publish({ stage: 'c' });
        await ctx.wait('pause', { seconds: 30 });
        return 'done';
      }),
    );
    expect(ended.status).toBe('SUCCEEDED');
    expect(store.written).toEqual(['b', 'c']);
    expect(JSON.parse(ended.published?.state ?? 'null')).toEqual({ stage: 'c' });
  });

  it('a run resumed after a wait never moves back to a state it passed (replay sends no publish)', async () => {
    // Inside a finished child context the body is skipped on replay: replaying the publish before
    // it would otherwise leave 'before' as the state after the wait.
    const { ended, store } = await drive(
      withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
        await ctx.publish({ stage: 'before' });
        await ctx.runInChildContext('inner', async (child) => {
          await child.publish({ stage: 'inside' });
          return 1;
        });
        await ctx.wait('pause', { seconds: 30 });
        return 'done';
      }),
    );
    expect(ended.status).toBe('SUCCEEDED');
    expect(ended.invocations).toBeGreaterThan(1);
    expect(store.written).toEqual(['inside']);
    expect(JSON.parse(ended.published?.state ?? 'null')).toEqual({ stage: 'inside' });
  });

  it('a publish before a wait, then one after it: the resumed run stores the newer, once each', async () => {
    const runner = new LocalDurableTestRunner({
      handlerFunction: withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
        await ctx.publish({ stage: 'waiting' });
        await ctx.wait('pause', { seconds: 30 });
        await ctx.publish({ stage: 'resumed' });
        await ctx.step('after', async () => 1);
        return 'done';
      }),
    });
    const result = await runner.run();
    expect(result.getInvocationCount()).toBe(2);
    expect(result.getPublished()).toMatchObject({ state: { stage: 'resumed' }, seq: 2 });
  });

  it('a recorded run replays clean through its publishes (`runner.replay` stores nothing, refuses nothing)', async () => {
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      await ctx.publish({ stage: 'one' });
      await ctx.step('one', async () => 1);
      await ctx.publish({ stage: 'two' });
      return 'done';
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    await runner.run();
    const recorded = await runner.exportRun();
    const report = await new LocalDurableTestRunner({ handlerFunction: handler }).replay(recorded);
    expect(report).toMatchObject({ outcome: 'clean', reached: 'end' });
  });

  it('refuses a state over 4,096 bytes, or one JSON cannot hold, naming the field, with a stable code', async () => {
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      const refused: Array<{ field: string; code: string; message: string }> = [];
      for (const state of ['x'.repeat(4_100), undefined, { n: 1n }]) {
        try {
          await ctx.publish(state);
        } catch (error) {
          if (!(error instanceof InvalidArgumentError)) throw error;
          refused.push({ field: error.field, code: error.code, message: error.message });
        }
      }
      await ctx.publish('x'.repeat(4_094));
      return refused;
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    const refused = result.getResult() as Array<{ field: string; code: string; message: string }>;
    expect(refused.map((r) => [r.field, r.code])).toEqual([
      ['state', 'invalid_argument'],
      ['state', 'invalid_argument'],
      ['state', 'invalid_argument'],
    ]);
    expect(refused[0]?.message).toMatch(/4102 bytes.*at most 4096/);
    // The largest that fits (4,094 characters and two quotes) is stored.
    expect(result.getPublished<string>()?.state).toHaveLength(4_094);
  });
});
