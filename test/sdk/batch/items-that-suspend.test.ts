import { LocalDurableTestRunner } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { Harness } from '../../support/harness';

describe('map with items that suspend', () => {
  it('completes a map of 50 items, each waiting for its own callback, as the callbacks arrive in any order', async () => {
    const bodies = new Map<number, number>();
    const handler = withDurableExecution(async (_e, ctx) => {
      const batch = await ctx.map(
        'approve-all',
        Array.from({ length: 50 }, (_, i) => i),
        async (item, n) => {
          bodies.set(n, (bodies.get(n) ?? 0) + 1);
          const [promise] = await item.createCallback(`cb-${n}`);
          return `${n}:${await promise}`;
        },
      );
      return batch.getResults();
    });
    const h = new Harness(handler);
    await h.start();
    await h.invoke();
    const callbacks = (await h.operations()).filter((o) => o.Type === 'CALLBACK');
    expect(callbacks).toHaveLength(50);
    // Complete them in a scrambled order, a few at a time, with invocations in between.
    const order = callbacks.map((_, i) => (i * 37) % 50);
    let invocations = 1;
    for (let i = 0; i < order.length; i += 7) {
      for (const k of order.slice(i, i + 7)) {
        const op = callbacks.find((o) => o.Name === `cb-${k}`);
        await h.engine.sendCallbackSuccess(op?.CallbackDetails?.CallbackId ?? '', `ok${k}`);
      }
      await h.invoke();
      invocations++;
    }
    const run = await h.run();
    expect(run?.status).toBe('SUCCEEDED');
    expect(JSON.parse(run?.result ?? '[]')).toEqual(Array.from({ length: 50 }, (_, n) => `${n}:ok${n}`));
    expect(invocations).toBe(9);
    // Every item body re-ran only while its own callback was pending, never after it finished.
    for (const [n, count] of bodies) expect(count).toBeLessThanOrEqual(1 + Math.ceil((order.indexOf(n) + 1) / 7));
  });

  it('replays a parallel whose branches suspended at different points, each branch resuming where it stopped', async () => {
    const calls: string[] = [];
    const record = <T>(label: string, value: T): T => {
      calls.push(label);
      return value;
    };
    const handler = withDurableExecution(async (_e, ctx) => {
      const batch = await ctx.parallel<string | number>('branches', [
        { name: 'fast', func: async (c) => c.step('f', async () => record('f', 'fast')) },
        {
          name: 'slow',
          func: async (c) => {
            const a = await c.step('s1', async () => record('s1', 1));
            await c.wait({ hours: 1 });
            return c.step('s2', async () => record('s2', a + 1));
          },
        },
        {
          name: 'nested',
          func: async (c) =>
            c.runInChildContext('inner', async (inner) => {
              await inner.wait({ minutes: 10 });
              return inner.step('n', async () => record('n', 'nested'));
            }),
        },
      ]);
      return batch.getResults();
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run();
    expect(result.getResult()).toEqual(['fast', 2, 'nested']);
    expect(calls.sort()).toEqual(['f', 'n', 's1', 's2']);
    expect(result.getInvocationCount()).toBe(3);
    const inner = runner.getOperation('inner');
    expect(inner.getParentId()).toBe(runner.getOperation('nested').getId());
    expect(inner.getChildOperations()?.map((o) => o.getType())).toEqual(['WAIT', 'STEP']);
  });
});
