/**
 * Durable functions for the browser tests of the dashboard's operator panel, runs list, raw
 * history, functions page and run tree (test/browser/dashboard-*.test.ts).
 */
import { type DurableLambdaHandler, withDurableExecution } from '@durable-lambda/sdk';

const quiet = { logSink: () => {} };

/** Waits on an approval callback (an hour) while a one-minute reminder wait runs beside it. */
export const approvalWithReminder: DurableLambdaHandler = withDurableExecution(async (_event: unknown, ctx) => {
  const batch = await ctx.parallel<string>('approve-or-remind', [
    {
      name: 'approval',
      func: async (c) => {
        const [promise] = await c.createCallback<string>('manager-approval', { timeout: { hours: 1 } });
        return await promise;
      },
    },
    {
      name: 'reminder',
      func: async (c) => {
        await c.wait('reminder', { minutes: 1 });
        return 'reminded';
      },
    },
  ]);
  return batch.getResults();
}, quiet);

/** Ships an order: its result names the order and a long tracking note. */
export const ship: DurableLambdaHandler = withDurableExecution(async (event: { order?: string }, ctx) => {
  const label = await ctx.step('label', async () => `label-${event.order ?? 'none'}`);
  return { order: event.order ?? 'none', label, note: 'x'.repeat(200) };
}, quiet);

/** Fails for good at its one step, with a long message. */
export const refuse: DurableLambdaHandler = withDurableExecution(async (event: { why?: string }, ctx) => {
  await ctx.step(
    'check-stock',
    async () => {
      throw new Error(`out of stock: ${event.why ?? 'unknown'}; ${'the warehouse has none left. '.repeat(6)}`);
    },
    { retry: { maxAttempts: 1 } },
  );
  return 'unreachable';
}, quiet);

/** Starts a `ship` child run and waits for it (a CHAINED_INVOKE). */
export const parentOrder: DurableLambdaHandler = withDurableExecution(async (event: { order?: string }, ctx) => {
  const shipped = await ctx.invoke('ship-it', 'ship', { order: event.order ?? 'P-1' });
  return { shipped };
}, quiet);

/** Sample inputs the functions page and the start form offer. */
export const samples = {
  ship: [
    { name: 'small order', input: { order: 'S-1' } },
    { name: 'rush order', input: { order: 'R-9', rush: true } },
  ],
};
