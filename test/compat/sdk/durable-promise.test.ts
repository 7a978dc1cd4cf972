import { LocalDurableTestRunner } from '@durable-lambda/local';
import { DurablePromise, retryPresets, withDurableExecution } from '@durable-lambda/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

describe('DurablePromise (AWS’s class)', () => {
  it('runs its executor only when first awaited or chained, and only once', async () => {
    let runs = 0;
    const promise = new DurablePromise(async () => {
      runs++;
      return 'value';
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(runs).toBe(0);
    expect(promise.isExecuted).toBe(false);
    expect(Object.prototype.toString.call(promise)).toBe('[object DurablePromise]');
    await expect(promise).resolves.toBe('value');
    expect(await promise.then((v) => `${v}!`)).toBe('value!');
    expect(promise.isExecuted).toBe(true);
    expect(runs).toBe(1);
  });

  it('starts on catch and finally too, and hands rejections to them', async () => {
    const failing = new DurablePromise<string>(async () => {
      throw new Error('nope');
    });
    expect(await failing.catch((e) => (e as Error).message)).toBe('nope');
    let settled = false;
    const ok = new DurablePromise(async () => 1);
    await ok.finally(() => {
      settled = true;
    });
    expect(settled).toBe(true);
    expect(ok.isExecuted).toBe(true);
  });
});

describe('durable operations return DurablePromises already under way', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(() => {
    process.off('unhandledRejection', onUnhandled);
  });

  it('returns a DurablePromise from every operation, started at the call (ids follow the calls, not the awaits)', async () => {
    const order: string[] = [];
    const kinds: boolean[] = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      const first = ctx.step('first', async () => {
        order.push('first');
        return 1;
      });
      const second = ctx.step('second', async () => {
        order.push('second');
        return 2;
      });
      const wait = ctx.wait('pause', { seconds: 1 });
      const child = ctx.runInChildContext('child', async (c) => c.step('inner', async () => 3));
      const callback = ctx.createCallback('cb');
      kinds.push(
        ...[first, second, wait, child, callback, ctx.promise.all([first])].map((p) => p instanceof DurablePromise),
      );
      // Awaited in the opposite order: the operations ran (and took their ids) when called.
      const values = [await child, await second, await first];
      await wait;
      return values;
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run();
    expect(result.getResult()).toEqual([3, 2, 1]);
    expect(kinds.slice(0, 6)).toEqual([true, true, true, true, true, true]);
    expect(order.slice(0, 2)).toEqual(['first', 'second']);
    expect(runner.getOperation('first').getId()).toBe('1');
    expect(runner.getOperation('second').getId()).toBe('2');
    expect(runner.getOperation('child').getId()).toBe('4');
  });

  it('runs an operation nobody awaits, and a failure nobody awaits is not an unhandled rejection', async () => {
    let ran = false;
    const handler = withDurableExecution(async (_e, ctx) => {
      void ctx.step(
        'fire-and-forget',
        async () => {
          ran = true;
          throw new Error('ignored');
        },
        { retryStrategy: retryPresets.noRetry },
      );
      return ctx.step('last', async () => 'done');
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run();
    expect(result.getResult()).toBe('done');
    expect(ran).toBe(true);
    expect(runner.getOperation('fire-and-forget').getStatus()).toBe('FAILED');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(unhandled).toEqual([]);
  });

  it('waits for a callback only once its promise is awaited (AWS’s lazy callback promise)', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      const [promise, callbackId] = await ctx.createCallback('never-awaited');
      // The callback stays open; the run finishes without waiting for it.
      return { isDurablePromise: promise instanceof DurablePromise, executed: promise.isExecuted, callbackId };
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run();
    expect(result.getStatus()).toBe('SUCCEEDED');
    expect(result.getResult()).toMatchObject({ isDurablePromise: true, executed: false });
    expect(result.getInvocationCount()).toBe(1);
  });
});
