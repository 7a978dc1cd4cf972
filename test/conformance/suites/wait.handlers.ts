/** The wait suite's handlers, written with our SDK from each requirement's description. */
import { withDurableExecution } from '../harness/durable';
import type { HandlerEntry } from '../harness/requirement';

export const WAIT_HANDLERS: Record<string, HandlerEntry> = {
  '2-1': withDurableExecution(async (_e: unknown, ctx) => {
    await ctx.wait({ seconds: 2 });
    return 'waited';
  }),
  '2-2': withDurableExecution(async (_e: unknown, ctx) => {
    await ctx.wait('custom_wait_name', { seconds: 2 });
    return 'waited';
  }),
  '2-3': withDurableExecution(async (_e: unknown, ctx) => {
    await ctx.wait('wait-1', { seconds: 2 });
    await ctx.wait('wait-2', { seconds: 2 });
    return { completedWaits: 2 };
  }),
  '2-4': withDurableExecution(async (_e: unknown, ctx) => {
    await ctx.wait({ minutes: 1 });
    return 'a minute later';
  }),
  '2-5': withDurableExecution(async (_e: unknown, ctx) => {
    await ctx.wait({ hours: 1 });
    return 'an hour later';
  }),
};
