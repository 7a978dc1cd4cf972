/**
 * The durable functions the debugging browser test runs in the dev server: the examples'
 * checkout on its fakes (its first charge rate-limited for an hour, then its 30-minute
 * cancellation window), and small workflows that log, fail, race and fan out.
 */

import { type DurableLambdaHandler, NonRetriableError, withDurableExecution } from '@durable-lambda/sdk';
import { fakeCheckoutServices } from '../../examples/checkout/fakes';
import { samples as checkoutSamples, createCheckoutHandler } from '../../examples/checkout/handler';

const quiet = { logSink: () => {} };

/** The examples' checkout: the first charge answers 429 with `Retry-After: 3600`. */
export function checkout(): DurableLambdaHandler {
  const fakes = fakeCheckoutServices();
  fakes.payments.respondWith({ status: 429, retryAfter: '3600' });
  return createCheckoutHandler(fakes.services);
}

export { checkoutSamples };

/**
 * Logs from the context and from each attempt of a step that fails once, then waits 3 s
 * (suspended: a second invocation after an idle gap), then a step that throws for good.
 */
export const chatty: DurableLambdaHandler = withDurableExecution(
  async (event: { order?: string }, ctx) => {
    ctx.logger.info('checkout started', { order: event.order ?? 'none' });
    const charged = await ctx.step(
      'charge',
      async (step) => {
        step.logger.info(`charging the card, attempt ${step.attempt}`);
        if (step.attempt === 1) {
          step.logger.warn('the card was declined', { reason: 'insufficient_funds' });
          throw new Error('card declined (attempt 1)');
        }
        return { chargeId: 'ch_1' };
      },
      { retry: { maxAttempts: 2, initialMs: 0 } },
    );
    await ctx.wait('settle', { seconds: 3 });
    ctx.logger.info('charged, now shipping', charged);
    await ctx.step('ship', async (step) => {
      step.logger.error('the warehouse is on fire');
      throw new NonRetriableError('warehouse unreachable: ECONNREFUSED 10.0.0.7:443');
    });
    return 'unreachable';
  },
  { ...quiet, inProcessWaitMs: 0 },
);

/** Fans out over 100 invoices; three customers always fail (tolerated), the rest succeed. */
export const fanout: DurableLambdaHandler = withDurableExecution(async (_event: unknown, ctx) => {
  const customers = Array.from({ length: 100 }, (_, i) => `cus-${String(i + 1).padStart(3, '0')}`);
  const batch = await ctx.map(
    'send-invoices',
    customers,
    async (c, customer) =>
      c.step('invoice', async () => {
        if (['cus-013', 'cus-042', 'cus-077'].includes(customer)) throw new NonRetriableError(`${customer}: no card`);
        return { customer, invoice: `inv-${customer}` };
      }),
    { maxConcurrency: 10, completionConfig: { toleratedFailureCount: 5 } },
  );
  return { sent: batch.successCount, failed: batch.failureCount };
}, quiet);

/** A race: the first branch wins at once, the second's wait is left behind. */
export const racer: DurableLambdaHandler = withDurableExecution(async (_event: unknown, ctx) => {
  const batch = await ctx.parallel(
    'first-answer',
    [
      { name: 'cache', func: async (c) => c.step('read-cache', async () => 'hit') },
      {
        name: 'origin',
        func: async (c) => {
          await c.wait('slow-origin', { minutes: 26 });
          return c.step('read-origin', async () => 'fresh');
        },
      },
    ],
    { completionConfig: { minSuccessful: 1 } },
  );
  return batch.getResults();
}, quiet);

/** Waits two days, then finishes: only "wake now" lets a test see its end. */
export const patient: DurableLambdaHandler = withDurableExecution(async (_event: unknown, ctx) => {
  await ctx.step('prepare', async () => 'ready');
  await ctx.wait('two-days', { days: 2 });
  return ctx.step('finish', async () => 'done');
}, quiet);
