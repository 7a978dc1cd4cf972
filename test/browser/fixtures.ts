/**
 * The durable functions the browser test runs in the dev server.
 */
import { type DurableLambdaHandler, JitterStrategy, withDurableExecution } from '@durable-lambda/sdk';

const quiet = { logSink: () => {} };

/** Prepares an order, then waits (inside a child context) for someone to approve it. */
export const approval: DurableLambdaHandler = withDurableExecution(async (event: { order?: string }, ctx) => {
  const prepared = await ctx.step('prepare', async () => ({ order: event.order ?? 'none', total: 42 }));
  const decision = await ctx.runInChildContext('review', async (review) => {
    const note = await review.step('notify', async () => `please approve ${prepared.order}`);
    const [promise] = await review.createCallback<string>('approval', { timeout: { minutes: 10 } });
    const answer = JSON.parse(await promise) as { approved?: boolean; by?: string };
    return { note, ...answer };
  });
  return { order: prepared.order, approved: decision.approved === true, by: decision.by };
}, quiet);

/** A step that fails twice before it succeeds, then a short durable wait. */
export const flaky: DurableLambdaHandler = withDurableExecution(async (_event: unknown, ctx) => {
  const charged = await ctx.step(
    'charge',
    async (step) => {
      if (step.attempt < 3) throw new Error(`card declined (attempt ${step.attempt})`);
      return { charged: true, attempt: step.attempt };
    },
    { retry: { maxAttempts: 3, initialMs: 100, maxMs: 100, jitter: JitterStrategy.NONE } },
  );
  await ctx.wait('settle', { seconds: 1 });
  return charged;
}, quiet);

/** A step that always fails: after its two attempts the run fails. */
export const doomed: DurableLambdaHandler = withDurableExecution(async (_event: unknown, ctx) => {
  await ctx.step(
    'explode',
    async () => {
      throw new Error('boom: the warehouse is on fire');
    },
    { retry: { maxAttempts: 2, initialMs: 0, jitter: JitterStrategy.NONE } },
  );
  return 'unreachable';
}, quiet);
