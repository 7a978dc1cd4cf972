/**
 * `ctx.tag(tags)` (issue 27, "Finding runs"): search tags are stored with the run's writes (no
 * write of their own), a later tag of a key replaces it, a replay never sets a key back, and bad
 * tags are refused with the field named and a stable code.
 */
import { type CommitWrite, MemoryStore, type Store } from '@durable-lambda/engine';
import { LocalDurableTestRunner, TestDriver } from '@durable-lambda/local';
import { type DurableContext, InvalidArgumentError, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

/** The in-memory store, counting its commits and keeping the tags and replaced tags they wrote. */
class CountingStore extends MemoryStore {
  commits = 0;
  readonly written: Array<{ tags: Record<string, string>; before: Record<string, string> | undefined }> = [];

  override async commit(runId: string, fence: number, write: CommitWrite): Promise<void> {
    await super.commit(runId, fence, write);
    this.commits += 1;
    const tags = write.run?.tags;
    if (tags) this.written.push({ tags, before: write.tagged?.before as Record<string, string> | undefined });
  }
}

async function drive(handler: unknown, tags?: Record<string, string>) {
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
  const run = await driver.start('fn', {}, tags ? { tags } : {});
  const ended = await driver.runUntilDone(run.runId);
  if (!store) throw new Error('the driver built no store');
  return { ended, store };
}

describe('ctx.tag', () => {
  it('stores the tags on the run; a key tagged again takes the new value, the others stay', async () => {
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      await ctx.tag({ customer: 'c-1', stage: 'reserving' });
      await ctx.step('reserve', async () => 'r');
      await ctx.tag({ stage: 'charging' });
      await ctx.step('charge', async () => 'c');
      return 'ok';
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toBe('ok');
    expect(result.getTags()).toEqual({ customer: 'c-1', stage: 'charging' });
  });

  it('costs no write of its own: a tag right before the end rides with the end, saying what it replaced', async () => {
    const body = async (ctx: DurableContext, tag: boolean) => {
      await ctx.step('work', async () => 1);
      if (tag) await ctx.tag({ outcome: 'done' });
      return 'done';
    };
    const without = await drive(withDurableExecution((_e: unknown, ctx: DurableContext) => body(ctx, false)));
    const tagged = await drive(
      withDurableExecution((_e: unknown, ctx: DurableContext) => body(ctx, true)),
      { customer: 'c-9' },
    );
    expect(tagged.ended.status).toBe('SUCCEEDED');
    expect(tagged.store.commits).toBe(without.store.commits);
    expect(tagged.store.written).toEqual([{ tags: { customer: 'c-9', outcome: 'done' }, before: { customer: 'c-9' } }]);
    expect(tagged.ended.tags).toEqual({ customer: 'c-9', outcome: 'done' });
  });

  it('a tag equal to the stored value writes nothing', async () => {
    const { ended, store } = await drive(
      withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
        await ctx.tag({ customer: 'c-9' });
        await ctx.step('work', async () => 1);
        return 'done';
      }),
      { customer: 'c-9' },
    );
    expect(ended.tags).toEqual({ customer: 'c-9' });
    expect(store.written).toEqual([]);
  });

  it('a run resumed after a wait never sets a key back to a value it passed (replay sends no tag)', async () => {
    // Inside a finished child context the body is skipped on replay: replaying the tag before it
    // would otherwise leave 'before' as the stage after the wait.
    const { ended, store } = await drive(
      withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
        await ctx.tag({ stage: 'before' });
        await ctx.runInChildContext('inner', async (child) => {
          await child.tag({ stage: 'inside' });
          return 1;
        });
        await ctx.wait('pause', { seconds: 30 });
        return 'done';
      }),
    );
    expect(ended.status).toBe('SUCCEEDED');
    expect(ended.invocations).toBeGreaterThan(1);
    expect(store.written.map((w) => w.tags.stage)).toEqual(['inside']);
    expect(ended.tags).toEqual({ stage: 'inside' });
  });

  it('a recorded run replays clean through its tags (`runner.replay` stores nothing, refuses nothing)', async () => {
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      await ctx.tag({ stage: 'one' });
      await ctx.step('one', async () => 1);
      return 'done';
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    await runner.run();
    const recorded = await runner.exportRun();
    const report = await new LocalDurableTestRunner({ handlerFunction: handler }).replay(recorded);
    expect(report).toMatchObject({ outcome: 'clean', reached: 'end' });
  });

  it('refuses bad tags naming the field, with a stable code, and more than 16 keys on the run', async () => {
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      const refused: Array<{ field: string; code: string }> = [];
      const attempts: unknown[] = [
        { '1st': 'x' },
        { 'a:b': 'x' },
        { ['k'.repeat(65)]: 'x' },
        { empty: '' },
        { long: 'v'.repeat(257) },
        { number: 7 },
        { line: 'a\nb' },
        'customer=c-1',
        Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])),
      ];
      for (const tags of attempts) {
        try {
          await ctx.tag(tags as Record<string, string>);
        } catch (error) {
          if (!(error instanceof InvalidArgumentError)) throw error;
          refused.push({ field: error.field, code: error.code });
        }
      }
      // 10 keys now and 6 more fit (16); a 17th key is refused by the backend, which knows the 16 stored.
      await ctx.tag(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`a${i}`, 'v'])));
      await ctx.step('between', async () => 1);
      await ctx.tag(Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`b${i}`, 'v'])));
      await ctx.tag({ a0: 'replaced' });
      try {
        await ctx.tag({ c0: 'v' });
      } catch (error) {
        if (!(error instanceof InvalidArgumentError)) throw error;
        refused.push({ field: error.field, code: error.code });
      }
      return refused;
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toEqual([
      { field: 'tags.1st', code: 'invalid_argument' },
      { field: 'tags.a:b', code: 'invalid_argument' },
      { field: `tags.${'k'.repeat(65)}`, code: 'invalid_argument' },
      { field: 'tags.empty', code: 'invalid_argument' },
      { field: 'tags.long', code: 'invalid_argument' },
      { field: 'tags.number', code: 'invalid_argument' },
      { field: 'tags.line', code: 'invalid_argument' },
      { field: 'tags', code: 'invalid_argument' },
      { field: 'tags', code: 'invalid_argument' },
      { field: 'tags', code: 'invalid_argument' },
    ]);
    expect(Object.keys(result.getTags())).toHaveLength(16);
    expect(result.getTags().a0).toBe('replaced');
  });
});
