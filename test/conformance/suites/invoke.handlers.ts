/**
 * The invoke suite's handlers, written with our SDK from each requirement's description. The
 * targets are durable functions of their own, registered next to the handler.
 */
import type { DurableLambdaHandler, Serdes } from '@durable-lambda/sdk';
import { withDurableExecution } from '../harness/durable';
import type { HandlerEntry } from '../harness/requirement';

/** Returns what it is given. */
const echo = withDurableExecution(async (event: unknown) => event ?? null);
/** Always fails. */
const failing = withDurableExecution(async (): Promise<never> => {
  throw new Error('the target failed');
});
/** Reports the size of what it is given. */
const measure = withDurableExecution(async (event: { blob: string }) => ({ received: event.blob.length }));

const targets = { echo, failing, measure };

// `invoke(functionId, input)` with a string input reads as `invoke(name, functionId)`: such calls
// name the operation (the requirements do not check an unasked-for Name).

/** A handler invoking the targets above. */
const calling = (handler: DurableLambdaHandler<unknown>): HandlerEntry => ({ handler, functions: targets });

/** Sends the payload's JSON upper-cased. */
const upperPayload: Serdes<unknown> = {
  serialize: (value) => (value === undefined ? undefined : JSON.stringify(value).toUpperCase()),
  deserialize: (text) => (text === undefined ? undefined : JSON.parse(text)),
};

/** Reads the result's text upper-cased, as it is (not parsed). */
const upperResult: Serdes<string> = {
  serialize: (value) => (value === undefined ? undefined : JSON.stringify(value)),
  deserialize: (text) => text?.toUpperCase(),
};

export const INVOKE_HANDLERS: Record<string, HandlerEntry> = {
  '5-1': calling(withDurableExecution(async (input: string, ctx) => ctx.invoke('call-echo', 'echo', input))),
  '5-2': calling(
    withDurableExecution(async (input: { name: string; payload: string }, ctx) =>
      ctx.invoke(input.name, 'echo', input.payload),
    ),
  ),
  '5-3': calling(withDurableExecution(async (input: unknown, ctx) => ctx.invoke('echo', input))),
  '5-4': calling(withDurableExecution(async (_e: unknown, ctx) => ctx.invoke('echo', null))),
  '5-5': calling(withDurableExecution(async (_e: unknown, ctx) => ctx.invoke('failing', {}))),
  '5-6': calling(
    withDurableExecution(async (_e: unknown, ctx) => {
      try {
        return await ctx.invoke('failing', {});
      } catch {
        return 'fallback';
      }
    }),
  ),
  '5-7': calling(
    withDurableExecution(async (_e: unknown, ctx) => ctx.invoke('measure', { blob: 'x'.repeat(200_000) })),
  ),
  '5-8': calling(
    withDurableExecution(async (input: { tenantId: string; payload: string }, ctx) =>
      ctx.invoke('call-echo', 'echo', input.payload, { tenantId: input.tenantId }),
    ),
  ),
  '5-9': calling(
    withDurableExecution(async (_e: unknown, ctx) => {
      const answer = await ctx.invoke('call-echo', 'echo', 'cached');
      await ctx.wait({ seconds: 1 });
      return answer;
    }),
  ),
  '5-10': calling(
    withDurableExecution(async (_e: unknown, ctx) => {
      let outcome = 'no error';
      try {
        await ctx.invoke('failing', {});
      } catch {
        outcome = 'caught';
      }
      await ctx.wait({ seconds: 1 });
      return outcome;
    }),
  ),
  '5-11': calling(
    withDurableExecution(async (_e: unknown, ctx) => {
      const prepared = await ctx.step('prepare', async () => ({ order: 7 }));
      return ctx.invoke('echo', prepared);
    }),
  ),
  '5-12': calling(
    withDurableExecution(async (_e: unknown, ctx) => {
      const answer = await ctx.invoke<string, string>('call-echo', 'echo', 'from the target');
      return ctx.step('use', async () => `used: ${answer}`);
    }),
  ),
  '5-13': calling(
    withDurableExecution(async (_e: unknown, ctx) =>
      ctx.runInChildContext('child', async (child) => child.invoke('call-echo', 'echo', 'inside a child')),
    ),
  ),
  '5-14': calling(
    withDurableExecution(async (_e: unknown, ctx) => {
      const first = await ctx.invoke('first', 'echo', 'first');
      const second = await ctx.invoke('second', 'echo', 'second');
      return [first, second];
    }),
  ),
  '5-15': calling(
    withDurableExecution(async (input: unknown, ctx) => ctx.invoke('echo', input, { payloadSerdes: upperPayload })),
  ),
  '5-16': calling(
    withDurableExecution(async (input: string, ctx) =>
      ctx.invoke<string, string>('call-echo', 'echo', input, { resultSerdes: upperResult }),
    ),
  ),
};
