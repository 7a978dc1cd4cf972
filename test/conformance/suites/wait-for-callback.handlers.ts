/**
 * The wait-for-callback suite's handlers, written with our SDK from each requirement's
 * description. Submitters do nothing durable: the validator finds the callback in the history.
 */
import type { DurableContext, WaitForCallbackConfig } from '@durable-lambda/sdk';
import { withDurableExecution } from '../harness/durable';
import type { HandlerEntry } from '../harness/requirement';

const submitNothing = async () => {};

/** One waitForCallback named by the run's input, its result returned. */
const named = (config?: WaitForCallbackConfig<string>) =>
  withDurableExecution(async (name: string, ctx) => ctx.waitForCallback<string>(name, submitNothing, config));

/** As {@link named}, the error caught and `fallback` returned instead. */
const recovering = (fallback: string, config?: WaitForCallbackConfig<string>) =>
  withDurableExecution(async (name: string, ctx) => {
    try {
      return await ctx.waitForCallback<string>(name, submitNothing, config);
    } catch {
      return fallback;
    }
  });

export const WAIT_FOR_CALLBACK_HANDLERS: Record<string, HandlerEntry> = {
  '7-1': named(),
  '7-2': withDurableExecution(async (_e: unknown, ctx) => ctx.waitForCallback<string>('approval', submitNothing)),
  '7-3': withDurableExecution(async (_e: unknown, ctx) => ctx.waitForCallback<string>(async () => {})),
  '7-4': named(),
  '7-5': named({ timeout: { seconds: 3 } }),
  '7-6': recovering('recovered'),
  '7-7': withDurableExecution(async (name: string, ctx) =>
    ctx.waitForCallback<string>(
      name,
      async () => {
        throw new Error('submitter cannot reach the approver');
      },
      { retryStrategy: (_error, attempt) => ({ shouldRetry: attempt < 2, delay: { seconds: 1 } }) },
    ),
  ),
  '7-8': withDurableExecution(async (name: string, ctx) =>
    ctx.runInChildContext('wrapper', async (child: DurableContext) =>
      child.waitForCallback<string>(name, submitNothing),
    ),
  ),
  '7-9': withDurableExecution(async (_e: unknown, ctx) => {
    await ctx.waitForCallback<string>('first', submitNothing);
    return ctx.waitForCallback<string>('second', submitNothing);
  }),
  '7-10': withDurableExecution(async (name: string, ctx) => {
    await ctx.wait({ seconds: 1 });
    await ctx.step('prepare', async () => ({ prepared: true }));
    return ctx.waitForCallback<string>(name, submitNothing);
  }),
  '7-11': withDurableExecution(async (name: string, ctx) => {
    const answer = await ctx.waitForCallback<{ status: string }>(name, submitNothing, {
      serdes: { deserialize: (text) => (text === undefined ? undefined : (JSON.parse(text) as { status: string })) },
    });
    return answer.status;
  }),
  '7-12': named({ heartbeatTimeout: { seconds: 5 } }),
  '7-13': named({ heartbeatTimeout: { seconds: 10 } }),
  '7-14': recovering('timed-out-handled', { timeout: { seconds: 3 } }),
  '7-15': named(),
};
