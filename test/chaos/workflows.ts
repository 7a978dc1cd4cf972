import {
  type DurableContext,
  type DurableLambdaHandler,
  NonRetriableError,
  type RetryPolicy,
  type StepContext,
  StepSemantics,
  withDurableExecution,
  withRetry,
} from '@durable-lambda/sdk';
import type { OutsideWorld } from './outside-world';

/** A reference workflow: its functions (the first is started), an input, and the result it must give. */
export interface ReferenceWorkflow {
  name: string;
  main: string;
  functions: Record<string, DurableLambdaHandler>;
  input: { id: number };
  expected: unknown;
}

/**
 * Enough attempts that injected deaths (each a lost attempt) never exhaust a step: the run's
 * outcome must not depend on the faults.
 */
const RETRY: RetryPolicy = { maxAttempts: 40, initialMs: 1_000, maxMs: 1_000, jitter: 'NONE' };
const AT_MOST_ONCE = { semantics: StepSemantics.AtMostOncePerRetry, retry: RETRY } as const;

/** A step body that records itself, fails its first `failures` executions, then returns `value`. */
function body<T>(world: OutsideWorld, step: string, value: () => T, failures = 0, atMostOnce = false) {
  return async (context: StepContext): Promise<T> => {
    const n = await world.step(step, context, { atMostOnce });
    if (n <= failures) throw new Error(`planned failure ${n} of ${step}`);
    return value();
  };
}

/** Steps with retries, at-most-once, a wait, both callback styles, an invoke, a child context. */
function orderWorkflow(world: OutsideWorld, id: number): ReferenceWorkflow {
  const order = withDurableExecution(async (event: { id: number }, ctx: DurableContext) => {
    const reserved = await ctx.step(
      'reserve',
      body(world, 'reserve', () => event.id * 10, 2),
      { retry: RETRY },
    );
    const charged = await ctx.step(
      'charge',
      body(world, 'charge', () => `ch-${event.id}`, 0, true),
      AT_MOST_ONCE,
    );
    await ctx.wait('cool-off', { seconds: 30 });
    const approval = await ctx.waitForCallback<string>(
      'approve',
      async (callbackId, step) => {
        await world.step('approve-submit', step);
        world.handOut(callbackId, `ok-${event.id}`);
      },
      { retryStrategy: () => ({ shouldRetry: true, delay: { seconds: 1 } }) },
    );
    const [shipped, shipId] = await ctx.createCallback<string>('shipped');
    await ctx.step(
      'notify-carrier',
      async (step) => {
        await world.step('notify-carrier', step);
        world.handOut(shipId, `trk-${event.id}`);
      },
      { retry: RETRY },
    );
    const tracking = await shipped;
    const bill = await ctx.invoke<{ n: number }, number>('bill', 'billing', { n: event.id });
    const summary = await ctx.runInChildContext('summarize', async (child) => {
      const a = await child.step(
        'sum-a',
        body(world, 'sum-a', () => event.id + 1),
        { retry: RETRY },
      );
      const b = await child.step(
        'sum-b',
        body(world, 'sum-b', () => event.id + 2, 1),
        { retry: RETRY },
      );
      return a + b;
    });
    return { reserved, charged, approval, tracking, bill, summary };
  });
  const billing = withDurableExecution(async (event: { n: number }, ctx: DurableContext) => {
    const x = await ctx.step(
      'compute',
      body(world, 'compute', () => event.n * 2),
      { retry: RETRY },
    );
    await ctx.wait({ seconds: 5 });
    const y = await ctx.step(
      'audit',
      body(world, 'audit', () => 7, 1),
      { retry: RETRY },
    );
    return x + y;
  });
  return {
    name: 'order',
    main: 'order',
    functions: { order, billing },
    input: { id },
    expected: {
      reserved: id * 10,
      charged: `ch-${id}`,
      approval: `ok-${id}`,
      tracking: `trk-${id}`,
      bill: id * 2 + 7,
      summary: 2 * id + 3,
    },
  };
}

/** map with maxConcurrency and completion configs, parallel with a wait and a child context. */
function batchWorkflow(world: OutsideWorld, id: number): ReferenceWorkflow {
  const batch = withDurableExecution(async (event: { id: number }, ctx: DurableContext) => {
    const squares = await ctx.map(
      'squares',
      [1, 2, 3, 4, 5],
      async (child, n) =>
        child.step(
          `sq-${n}`,
          body(world, `sq-${n}`, () => n * n, n % 3 === 0 ? 1 : 0),
          { retry: RETRY },
        ),
      { maxConcurrency: 2 },
    );
    const quick = await ctx.map(
      'quick',
      [1, 2, 3, 4, 5],
      async (child, n) =>
        child.step(
          `q-${n}`,
          body(world, `q-${n}`, () => n, n === 2 ? 2 : 0),
          { retry: RETRY },
        ),
      { maxConcurrency: 2, completionConfig: { minSuccessful: 3 } },
    );
    const tolerant = await ctx.map(
      'tolerant',
      [1, 2, 3],
      async (child, n) =>
        child.step(
          `t-${n}`,
          body(world, `t-${n}`, () => {
            if (n === 2) throw new NonRetriableError('item 2 always fails');
            return n;
          }),
          { retry: RETRY },
        ),
      { completionConfig: { toleratedFailureCount: 1 } },
    );
    const fan = await ctx.parallel(
      'fan',
      [
        async (c) =>
          c.step(
            'p1',
            body(world, 'p1', () => 'one'),
            { retry: RETRY },
          ),
        async (c) => {
          await c.wait('p2-wait', { seconds: 10 });
          return c.step(
            'p2',
            body(world, 'p2', () => 'two', 1),
            { retry: RETRY },
          );
        },
        async (c) =>
          c.runInChildContext('p3-ctx', async (cc) =>
            cc.step(
              'p3',
              body(world, 'p3', () => 'three'),
              { retry: RETRY },
            ),
          ),
      ],
      { maxConcurrency: 2 },
    );
    return {
      id: event.id,
      squares: squares.getResults(),
      quick: { enough: quick.successCount >= 3, reason: quick.completionReason },
      tolerant: { ok: tolerant.successCount, failed: tolerant.failureCount },
      fan: fan.getResults(),
    };
  });
  return {
    name: 'batch',
    main: 'batch',
    functions: { batch },
    input: { id },
    expected: {
      id,
      squares: [1, 4, 9, 16, 25],
      quick: { enough: true, reason: 'MIN_SUCCESSFUL_REACHED' },
      tolerant: { ok: 2, failed: 1 },
      fan: ['one', 'two', 'three'],
    },
  };
}

/** promise.all and promise.race, withRetry, waitForCondition. */
function combinatorWorkflow(world: OutsideWorld, id: number): ReferenceWorkflow {
  const combinators = withDurableExecution(async (event: { id: number }, ctx: DurableContext) => {
    const a = ctx.step(
      'all-a',
      body(world, 'all-a', () => 'a'),
      { retry: RETRY },
    );
    const b = ctx.step(
      'all-b',
      body(world, 'all-b', () => 'b', 1),
      { retry: RETRY },
    );
    const both = await ctx.promise.all('both', [a, b]);
    // Far longer than any run of lost attempts (15 minutes of lease each): the step must win.
    const slow = ctx.wait('race-slow', { days: 7 });
    const fast = ctx.step(
      'race-fast',
      body(world, 'race-fast', () => 'fast'),
      { retry: RETRY },
    );
    const winner = await ctx.promise.race('first', [slow, fast]);
    const retried = await withRetry(
      ctx,
      'with-retry',
      // Fails its first execution; the step itself never retries, so withRetry must.
      async (c) =>
        c.step(
          'wr-step',
          body(world, 'wr-step', () => `wr-${event.id}`, 1),
          { retry: { maxAttempts: 1 } },
        ),
      { retryStrategy: (_error, attempt) => ({ shouldRetry: attempt < 40, delay: { seconds: 2 } }) },
    );
    const polled = await ctx.waitForCondition<{ n: number }>('poll', async (state) => ({ n: state.n + 1 }), {
      initialState: { n: 0 },
      waitStrategy: (state) =>
        state.n >= 3 ? { shouldContinue: false } : { shouldContinue: true, delay: { seconds: 5 } },
    });
    return { both, winner, retried, polled };
  });
  return {
    name: 'combinators',
    main: 'combinators',
    functions: { combinators },
    input: { id },
    expected: { both: ['a', 'b'], winner: 'fast', retried: `wr-${id}`, polled: { n: 3 } },
  };
}

/** The reference workflows, one per seed in turn, each with fresh step bodies recording to `world`. */
export const WORKFLOWS = [orderWorkflow, batchWorkflow, combinatorWorkflow] as const;

/** The workflow a seed runs. */
export function workflowFor(seed: number, world: OutsideWorld): ReferenceWorkflow {
  const make = WORKFLOWS[seed % WORKFLOWS.length] as (typeof WORKFLOWS)[number];
  return make(world, seed);
}
