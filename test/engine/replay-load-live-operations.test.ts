/**
 * An invocation loads the run's live operations and one record per finished child context, not
 * the operations inside it (issue 14, "Replay that loads only what it needs"), on the test runner's
 * in-memory store, with both SDKs, and replay stays right: a finished context's stored result is
 * returned, a map whose summary left its results in the items' records (ReplayChildren) reads
 * them, AWS's large child context result (ReplayChildren) is rebuilt from its children, and an
 * abandoned parallel branch changes nothing.
 */
import { MemoryStore, type Store } from '@durable-lambda/engine';
import { LocalDurableTestRunner, TestDriver } from '@durable-lambda/local';
import type { Operation } from '@durable-lambda/protocol';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AwsDurableSdk, importAwsSdk } from '../support/aws-sdk';

/** The in-memory store, recording what each invocation loaded. */
class LoadRecordingStore extends MemoryStore {
  readonly replayLoads: Operation[][] = [];

  override async loadReplayOperations(runId: string): Promise<Operation[]> {
    const loaded = await super.loadReplayOperations(runId);
    this.replayLoads.push(loaded);
    return loaded;
  }
}

async function drive(handler: unknown, payload: unknown = {}) {
  let store: LoadRecordingStore | undefined;
  const driver = new TestDriver(
    { fn: handler as never },
    {
      store: (clock) => {
        store = new LoadRecordingStore(clock);
        return store as Store;
      },
      startTime: Date.UTC(2026, 0, 1),
    },
  );
  const run = await driver.start('fn', payload);
  const ended = await driver.runUntilDone(run.runId);
  if (!store) throw new Error('the driver built no store');
  return { ended, store, all: await store.loadOperations(run.runId) };
}

const names = (ops: readonly Operation[]) => ops.map((op) => op.Name ?? op.Type);
const N = Number(process.env.REPLAY_LOAD_OPS ?? 1_000);

describe('replay loads only what it needs (test runner, in-memory store)', () => {
  let aws: AwsDurableSdk;
  beforeAll(async () => {
    aws = await importAwsSdk();
  });

  it(`a resume after a wait following ${N} steps in a completed child context loads 3 operations`, async () => {
    const handler = withDurableExecution(async (_event, ctx: DurableContext) => {
      const sum = await ctx.runInChildContext('work', async (child) => {
        let total = 0;
        for (let i = 0; i < N; i++) total += await child.step(`s${i}`, async () => i);
        return total;
      });
      await ctx.wait('pause', { hours: 1 });
      return ctx.step('last', async () => sum + 1);
    });
    const { ended, store, all } = await drive(handler);
    expect(ended.status).toBe('SUCCEEDED');
    expect(JSON.parse(ended.result ?? 'null')).toBe((N * (N - 1)) / 2 + 1);
    // The wake-up: the execution, the child context's own record, the wait; not its N steps.
    expect(store.replayLoads).toHaveLength(2);
    expect(names(store.replayLoads[1] ?? [])).toEqual(['EXECUTION', 'work', 'pause']);
    // History keeps everything.
    expect(all).toHaveLength(N + 4);
  });

  it("a map whose summary is too large keeps its results in the items' records, loads them, and replays right", async () => {
    const handler = withDurableExecution(
      async (_event, ctx: DurableContext) => {
        const mapped = await ctx.map('work', [...Array(40).keys()], async (child, i) => {
          const a = await child.step('a', async () => `${i}:${'x'.repeat(100)}`);
          return child.step('b', async () => `${a}!`);
        });
        await ctx.wait('pause', { hours: 1 });
        // Checked inside the handler: the results themselves are larger than the payload limit.
        const expected = [...Array(40).keys()].map((i) => `${i}:${'x'.repeat(100)}!`);
        return ctx.step('last', async () => mapped.getResults().filter((r, i) => r === expected[i]).length);
      },
      // 40 results of ~110 bytes do not fit a 2,000-byte summary: statuses only, ReplayChildren.
      { maxPayloadBytes: 2_000 },
    );
    const { ended, store, all } = await drive(handler);
    expect(ended.status).toBe('SUCCEEDED');
    expect(JSON.parse(ended.result ?? 'null')).toBe(40);
    const map = all.find((op) => op.Name === 'work');
    expect(map?.ContextDetails?.ReplayChildren).toBe(true);
    // The wake-up loads the map and its 40 items (their results), not the items' 80 steps.
    const wake = store.replayLoads.at(-1) ?? [];
    expect(wake.filter((op) => op.ParentId === map?.Id)).toHaveLength(40);
    expect(wake.filter((op) => op.Type === 'STEP')).toHaveLength(0);
    expect(all.filter((op) => op.Type === 'STEP')).toHaveLength(81);
  });

  it('a map whose summary fits stores no ReplayChildren, and its wake-up loads the map alone', async () => {
    const handler = withDurableExecution(async (_event, ctx: DurableContext) => {
      const mapped = await ctx.map('work', [1, 2, 3], async (child, i) => child.step('double', async () => i * 2));
      await ctx.wait('pause', { hours: 1 });
      return mapped.getResults();
    });
    const { ended, store, all } = await drive(handler);
    expect(JSON.parse(ended.result ?? 'null')).toEqual([2, 4, 6]);
    expect(all.find((op) => op.Name === 'work')?.ContextDetails?.ReplayChildren).toBeUndefined();
    expect(names(store.replayLoads.at(-1) ?? [])).toEqual(['EXECUTION', 'work', 'pause']);
  });

  it('an abandoned parallel branch (still waiting when the parallel completed) is not loaded and changes nothing', async () => {
    let slowBodies = 0;
    const handler = withDurableExecution(async (_event, ctx: DurableContext) => {
      const raced = await ctx.parallel(
        'race',
        [
          { name: 'fast', func: async (c) => c.step('quick', async () => 'fast') },
          {
            name: 'slow',
            func: async (c) => {
              slowBodies++;
              await c.wait('long', { hours: 5 });
              return c.step('late', async () => 'slow');
            },
          },
        ],
        { completionConfig: { minSuccessful: 1 } },
      );
      await ctx.wait('pause', { hours: 1 });
      return ctx.step('last', async () => raced.getResults());
    });
    const { ended, store, all } = await drive(handler);
    expect(ended.status).toBe('SUCCEEDED');
    expect(JSON.parse(ended.result ?? 'null')).toEqual(['fast']);
    expect(slowBodies).toBe(1);
    const long = all.find((op) => op.Name === 'long');
    expect(long?.Status).toBe('STARTED');
    const wake = store.replayLoads.at(-1) ?? [];
    expect(names(wake)).toEqual(['EXECUTION', 'race', 'pause']);
    // The run ended at the 1 h wait: the abandoned 5 h wait did not hold it.
    expect((ended.endedAt ?? 0) - ended.createdAt).toBeLessThan(2 * 3_600_000);
  });

  it("AWS's SDK: a child context whose result is too large (ReplayChildren) is rebuilt from its children after a wait", async () => {
    let bodies = 0;
    const handler = aws.withDurableExecution(async (_event: unknown, ctx) => {
      const big = await ctx.runInChildContext('big', async (child) => {
        bodies++;
        const parts: string[] = [];
        for (let i = 0; i < 3; i++) parts.push(await child.step(`part${i}`, async () => `${i}`.repeat(100_000)));
        return parts;
      });
      const small = await ctx.runInChildContext('small', async (child) => child.step('one', async () => 1));
      await ctx.wait('pause', { hours: 1 });
      return ctx.step('last', async () => ({ length: big.join('').length, small }));
    });
    const { ended, store, all } = await drive(handler);
    expect(ended.status).toBe('SUCCEEDED');
    expect(JSON.parse(ended.result ?? 'null')).toEqual({ length: 300_000, small: 1 });
    const big = all.find((op) => op.Name === 'big');
    expect(big?.ContextDetails?.ReplayChildren).toBe(true);
    // Its body ran again on replay (AWS's ReplayChildren), its steps replayed, not re-executed.
    expect(bodies).toBe(2);
    const wake = store.replayLoads.at(-1) ?? [];
    expect(wake.filter((op) => op.ParentId === big?.Id).map((op) => op.Name)).toEqual(['part0', 'part1', 'part2']);
    // The small context's step stays unloaded.
    expect(wake.some((op) => op.Name === 'one')).toBe(false);
    expect(wake.some((op) => op.Name === 'small')).toBe(true);
  });

  it('the test runner (default in-memory store) replays a completed child context from its stored result', async () => {
    let inner = 0;
    const handler = withDurableExecution(async (_event, ctx: DurableContext) => {
      const value = await ctx.runInChildContext('work', async (child) => {
        inner++;
        return child.step('compute', async () => 41);
      });
      await ctx.wait('pause', { hours: 1 });
      return ctx.step('last', async () => value + 1);
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run({ payload: {} });
    expect(result.getStatus()).toBe('SUCCEEDED');
    expect(result.getResult()).toBe(42);
    expect(inner).toBe(1);
    expect(result.getOperations().map((op) => op.getName())).toContain('compute');
  });
});
