import { LocalDurableTestRunner } from '@durable-lambda/local';
import {
  type DurableContext,
  InvalidArgumentError,
  PromiseCombinatorError,
  retryPresets,
  type Serdes,
  StepError,
  withDurableExecution,
} from '@durable-lambda/sdk';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { Harness, sleep } from '../support/harness';

class PaymentDeclined extends Error {
  code = 'card_declined';
  constructor(message = 'card declined') {
    super(message);
    this.name = 'PaymentDeclined';
  }
}

/** A step that fails at once with PaymentDeclined. */
const declined = (ctx: DurableContext, name: string, message?: string) =>
  ctx.step<string>(
    name,
    async () => {
      throw new PaymentDeclined(message);
    },
    { retryStrategy: retryPresets.noRetry },
  );

/** Runs `fn` and returns what it threw. */
async function thrown(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('context.promise.race', () => {
  it('returns the recorded winner on replay, even when the operations settle in another order', async () => {
    let invocation = 0;
    const winners: string[] = [];
    // On replay the step's stored value comes back late, so a plain race would pick the wait.
    const lateOnReplay: Serdes<string> = {
      serialize: (value) => JSON.stringify(value),
      deserialize: async (data) => {
        if (invocation > 1) await sleep(20);
        return data === undefined ? undefined : JSON.parse(data);
      },
    };
    const handler = withDurableExecution(async (_e, ctx) => {
      invocation++;
      const wait = ctx.wait('timer', { seconds: 10 }).then(() => 'wait');
      const step = ctx.step('fetch', async () => 'step', { serdes: lateOnReplay });
      const winner = await ctx.promise.race('first', [wait, step]);
      winners.push(winner);
      await ctx.wait('later', { seconds: 30 });
      return winner;
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run();
    expect(result.getResult()).toBe('step');
    // Woken by the timer at 10 s, then by `later` at 30 s: the race replays twice.
    expect(result.getInvocationCount()).toBe(3);
    expect(winners).toEqual(['step', 'step', 'step']);
    const op = runner.getOperation('first');
    expect(op.getType()).toBe('CONTEXT');
    expect(op.getOperationData()?.SubType).toBe('RunInChildContext');
    expect(op.getContextDetails()?.result).toBe('step');
  });

  it('rejects with the first rejection as a PromiseCombinatorError (AWS’s), the same live and on replay', async () => {
    const caught: unknown[] = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      const wait = ctx.wait('timer', { seconds: 10 });
      const failing = declined(ctx, 'pay');
      caught.push(await thrown(() => ctx.promise.race([wait, failing])));
      await ctx.wait({ seconds: 30 });
      return 'done';
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run();
    expect(result.getResult()).toBe('done');
    expect(caught).toHaveLength(3);
    for (const error of caught) {
      expect(error).toBeInstanceOf(PromiseCombinatorError);
      expect(error).toMatchObject({
        message: 'card declined',
        code: 'card_declined',
        errorType: 'PromiseCombinatorError',
      });
      // The rejection (the step's StepError) is the cause, rebuilt from storage.
      expect((error as Error).cause).toBeInstanceOf(StepError);
    }
    expect(caught[2]).toEqual(caught[0]);
    const race = runner.getOperationById('3');
    expect(race.getStatus()).toBe('FAILED');
    expect(race.getContextDetails()?.error).toMatchObject({ errorType: 'StepError', code: 'card_declined' });
  });
});

describe('context.promise.all', () => {
  it('suspends in the middle, finishes on the next invocation, then replays the recorded values', async () => {
    const runs = { a: 0, b: 0 };
    const seen: unknown[] = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      const a = ctx.step('a', async () => ++runs.a);
      const wait = ctx.wait('w', { seconds: 30 });
      const b = ctx.step('b', async () => ({ n: ++runs.b + 1 }));
      // Mixed types are inferred position by position, as with Promise.all.
      const values = await ctx.promise.all('all', [a, wait, b]);
      expectTypeOf(values).toEqualTypeOf<[number, Awaited<typeof wait>, { n: number }]>();
      seen.push(values);
      await ctx.wait('after', { seconds: 5 });
      return values;
    });
    const h = new Harness(handler);
    await h.start();
    const first = await h.invoke();
    expect(first).toMatchObject({ type: 'completed', output: { Status: 'PENDING' } });
    // The combinator started (ids: a 1, w 2, b 3, all 4) and waits for the wait.
    expect(await h.op('4')).toMatchObject({
      Type: 'CONTEXT',
      SubType: 'RunInChildContext',
      Status: 'STARTED',
      Name: 'all',
    });
    expect(seen).toEqual([]);
    expect(await h.runToEnd()).toBe(2);
    expect((await h.op('4'))?.Status).toBe('SUCCEEDED');
    // A wait's value comes back from the combinator's stored JSON as null, live and on replay (AWS's).
    expect(seen).toEqual([
      [1, null, { n: 2 }],
      [1, null, { n: 2 }],
    ]);
    expect(runs).toEqual({ a: 1, b: 1 });
    expect((await h.run())?.status).toBe('SUCCEEDED');
  });

  it('rejects with the failed step’s message and code as a PromiseCombinatorError, the same live and on replay', async () => {
    const caught: unknown[] = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      const ok = ctx.step('ok', async () => 1);
      const failing = declined(ctx, 'pay', 'card declined: insufficient funds');
      // AWS's signature, with one explicit output type, still applies.
      caught.push(await thrown(() => ctx.promise.all<number | string>('both', [ok, failing])));
      await ctx.wait({ seconds: 1 });
      return 'done';
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    expect((await runner.run()).getResult()).toBe('done');
    expect(caught).toHaveLength(2);
    for (const error of caught) {
      expect(error).toBeInstanceOf(PromiseCombinatorError);
      expect(error).toMatchObject({
        name: 'PromiseCombinatorError',
        message: 'card declined: insufficient funds',
        code: 'card_declined',
        errorType: 'PromiseCombinatorError',
      });
    }
    expect(runner.getOperation('both').getStatus()).toBe('FAILED');
  });

  it('wraps rejections that are not durable errors as AWS does: the message, the type as the cause’s cause', async () => {
    class HttpError extends Error {
      status = 503;
      constructor() {
        super('service unavailable');
        this.name = 'HttpError';
      }
    }
    const caught: unknown[][] = [[], [], []];
    const handler = withDurableExecution(async (_e, ctx) => {
      caught[0]?.push(await thrown(() => ctx.promise.all([Promise.reject(new TypeError('not a number'))])));
      caught[1]?.push(await thrown(() => ctx.promise.all([Promise.reject(new HttpError())])));
      caught[2]?.push(await thrown(() => ctx.promise.race([Promise.reject('plain reason')])));
      await ctx.wait({ seconds: 1 });
      return 'done';
    });
    expect((await new LocalDurableTestRunner({ handlerFunction: handler }).run()).getResult()).toBe('done');
    const typeOf = (error: unknown) => (((error as Error).cause as Error).cause as Error).name;
    for (const error of caught[0] ?? []) {
      expect(error).toBeInstanceOf(PromiseCombinatorError);
      expect((error as Error).message).toBe('not a number');
      expect(typeOf(error)).toBe('TypeError');
    }
    for (const error of caught[1] ?? []) {
      expect(error).toMatchObject({ name: 'PromiseCombinatorError', message: 'service unavailable' });
      expect(typeOf(error)).toBe('HttpError');
    }
    // A rejection that is not an Error is stored as AWS stores it: "Unknown error".
    for (const error of caught[2] ?? []) {
      expect(error).toMatchObject({ name: 'PromiseCombinatorError', message: 'Unknown error' });
    }
    expect(caught.every((list) => list.length === 2)).toBe(true);
  });
});

describe('context.promise.allSettled', () => {
  it("records every outcome; a reason is stored with AWS's keys only and comes back as an Error with its name and message, live and on replay", async () => {
    const seen: PromiseSettledResult<unknown>[][] = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      const results = await ctx.promise.allSettled('settled', [
        ctx.step('ok', async () => 'fine'),
        declined(ctx, 'pay'),
        ctx.wait('w', { seconds: 2 }),
      ]);
      seen.push(results);
      await ctx.wait({ seconds: 5 });
      return results.map((r) => r.status);
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run();
    expect(result.getResult()).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    // Suspended on the wait inside the combinator, then on the last wait.
    expect(result.getInvocationCount()).toBe(3);
    expect(seen).toHaveLength(2);
    for (const results of seen) {
      expect(results[0]).toEqual({ status: 'fulfilled', value: 'fine' });
      expect(results[2]).toEqual({ status: 'fulfilled', value: undefined });
      const rejected = results[1] as PromiseRejectedResult;
      expect(rejected.status).toBe('rejected');
      // AWS's error-aware serdes: a plain Error with the reason's name and message.
      expect(rejected.reason).toBeInstanceOf(Error);
      expect(rejected.reason).toMatchObject({ name: 'StepError', message: 'card declined' });
    }
    const settled = runner.getOperation('settled').getOperationData();
    expect(settled?.SubType).toBe('RunInChildContext');
    // Stored exactly as AWS stores it: no code of ours beside the name, message and stack.
    const stored = JSON.parse(settled?.ContextDetails?.Result ?? 'null') as Array<{ reason?: object }>;
    expect(Object.keys(stored[1]?.reason ?? {}).sort()).toEqual(['message', 'name', 'stack']);
  });
});

describe('context.promise.any', () => {
  it('returns the first success, ignoring failures', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      const value = await ctx.promise.any([declined(ctx, 'primary'), ctx.step('secondary', async () => 'backup')]);
      await ctx.wait({ seconds: 1 });
      return value;
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    // The replay re-runs the failing step's promise, which rejects with nobody awaiting it.
    expect((await runner.run()).getResult()).toBe('backup');
    expect(runner.getOperationById('3').getOperationData()).toMatchObject({
      SubType: 'RunInChildContext',
      Status: 'SUCCEEDED',
    });
  });

  it('rejects like AWS’s: a PromiseCombinatorError caused by the AggregateError, the same live and on replay', async () => {
    const caught: unknown[] = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      caught.push(
        await thrown(() => ctx.promise.any('any', [declined(ctx, 'a', 'first'), declined(ctx, 'b', 'second')])),
      );
      await ctx.wait({ seconds: 1 });
      return 'done';
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    expect((await runner.run()).getResult()).toBe('done');
    expect(caught).toHaveLength(2);
    for (const error of caught) {
      expect(error).not.toBeInstanceOf(AggregateError);
      expect(error).toBeInstanceOf(PromiseCombinatorError);
      expect(error).toMatchObject({ message: 'All promises were rejected', code: 'promise_combinator_failed' });
      expect((((error as Error).cause as Error).cause as Error).name).toBe('AggregateError');
    }
    expect(runner.getOperation('any').getContextDetails()?.error).toMatchObject({
      errorType: 'AggregateError',
      code: 'promise_combinator_failed',
    });
  });
});

describe('combinator arguments', () => {
  it('refuses bad arguments with InvalidArgumentError naming the field, without taking an id', async () => {
    const fields: string[] = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      const attempts: Array<() => Promise<unknown>> = [
        () => ctx.promise.all('x', 'not an array' as never),
        () => ctx.promise.all([ctx.step('s', async () => 1), 42 as never]),
        () => ctx.promise.race([]),
        () => ctx.promise.any(42 as never, []),
        () => ctx.promise.allSettled('', []),
        () => (ctx.promise.all as (...args: unknown[]) => Promise<unknown>)('x', [], {}),
      ];
      for (const attempt of attempts) {
        const error = await thrown(attempt);
        expect(error).toBeInstanceOf(InvalidArgumentError);
        fields.push((error as InvalidArgumentError).field);
      }
      // The step above took id 1; the refused calls took none.
      return ctx.step('next', async () => 'ok');
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    expect((await runner.run()).getResult()).toBe('ok');
    expect(fields).toEqual(['promises', 'promises[1]', 'promises', 'promises', 'name', 'promise.all']);
    expect(runner.getOperation('next').getId()).toBe('2');
  });

  it('gives an empty all and allSettled their native outcomes; an empty any rejects as AWS’s does', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      const all = await ctx.promise.all([]);
      const settled = await ctx.promise.allSettled([]);
      const any = await thrown(() => ctx.promise.any([]));
      return [all, settled, any instanceof PromiseCombinatorError];
    });
    expect((await new LocalDurableTestRunner({ handlerFunction: handler }).run()).getResult()).toEqual([[], [], true]);
  });
});
