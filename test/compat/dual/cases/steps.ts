/** Steps: results, retries with strategies and presets, failures after retries, semantics. */
import { type DualCase, describeError, runHandler } from '../harness/case';

class NotFound extends Error {
  constructor(message = 'not found') {
    super(message);
    this.name = 'NotFound';
  }
}

export const stepCases: DualCase[] = [
  {
    name: 'step: a named step returns its value and the run its result',
    countInvocations: true,
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (event: { n: number }, ctx) => {
        const doubled = await ctx.step('double', async () => ({ value: event.n * 2, list: [1, 'two', null] }));
        return { doubled };
      });
      return { result: await runHandler(m, handler, { payload: { n: 21 } }) };
    },
  },
  {
    name: 'step: unnamed steps, and a step returning undefined',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const a = await ctx.step(async () => 'a');
        const nothing = await ctx.step('nothing', async () => undefined);
        return { a, nothing: nothing === undefined };
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'step: a custom retryStrategy retries until the body succeeds, attempt numbers seen',
    async run(m) {
      const attempts: number[] = [];
      const decisions: Array<[string, number]> = [];
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) =>
        ctx.step(
          'flaky',
          async (stepCtx) => {
            attempts.push(stepCtx.attempt);
            if (attempts.length < 3) throw new Error(`attempt ${attempts.length} failed`);
            return 'ok';
          },
          {
            retryStrategy: (error, count) => {
              decisions.push([error.message, count]);
              return { shouldRetry: true, delay: { seconds: 10 } };
            },
          },
        ),
      );
      const result = await runHandler(m, handler, { payload: {} });
      return { result, observed: { attempts, decisions } };
    },
  },
  {
    name: 'step: createRetryStrategy gives up after maxAttempts and the run fails',
    async run(m) {
      let calls = 0;
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) =>
        ctx.step(
          'always-fails',
          async () => {
            calls += 1;
            throw new Error('boom');
          },
          { retryStrategy: m.sdk.createRetryStrategy({ maxAttempts: 3, initialDelay: { seconds: 1 } }) },
        ),
      );
      const result = await runHandler(m, handler, { payload: {} });
      return { result, observed: { calls } };
    },
  },
  {
    name: 'step: a failed step is caught as a StepError with its cause',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        try {
          await ctx.step(
            'fails',
            async () => {
              throw new TypeError('bad input');
            },
            { retryStrategy: m.sdk.retryPresets.noRetry },
          );
          return 'not reached';
        } catch (error) {
          return {
            described: describeError(error),
            isStepError: error instanceof m.sdk.StepError,
            isDurableOperationError: error instanceof m.sdk.DurableOperationError,
          };
        }
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'step: retryPresets.default retries a failing body and it then succeeds',
    async run(m) {
      let calls = 0;
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) =>
        ctx.step(
          'preset',
          async () => {
            calls += 1;
            if (calls < 3) throw new Error('transient');
            return calls;
          },
          { retryStrategy: m.sdk.retryPresets.default },
        ),
      );
      const result = await runHandler(m, handler, { payload: {} });
      return { result, observed: { calls } };
    },
  },
  {
    name: 'step: the default retry strategy (no config) retries a failing body',
    async run(m) {
      let calls = 0;
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) =>
        ctx.step('defaulted', async () => {
          calls += 1;
          if (calls < 2) throw new Error('once');
          return 'second time';
        }),
      );
      const result = await runHandler(m, handler, { payload: {} });
      return { result, observed: { calls } };
    },
  },
  {
    name: 'step: retryPresets.linear and createLinearRetryStrategy retry only matching errors',
    async run(m) {
      const calls = { matching: 0, other: 0 };
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const strategy = m.sdk.createLinearRetryStrategy({
          maxAttempts: 3,
          initialDelay: { seconds: 2 },
          increment: { seconds: 2 },
          retryableErrors: [/timeout/],
        });
        const matching = await ctx
          .step(
            'matching',
            async () => {
              calls.matching += 1;
              throw new Error('timeout talking to the bank');
            },
            { retryStrategy: strategy },
          )
          .catch((error: unknown) => describeError(error));
        const other = await ctx
          .step(
            'other',
            async () => {
              calls.other += 1;
              throw new Error('card declined');
            },
            { retryStrategy: strategy },
          )
          .catch((error: unknown) => describeError(error));
        const linear = await ctx.step('linear', async () => 'fine', { retryStrategy: m.sdk.retryPresets.linear });
        return { matching, other, linear };
      });
      const result = await runHandler(m, handler, { payload: {} });
      return { result, observed: calls };
    },
  },
  {
    name: 'step: retryableErrorTypes retries a custom error class and not another',
    async run(m) {
      const calls = { notFound: 0, range: 0 };
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const strategy = m.sdk.createRetryStrategy({
          maxAttempts: 2,
          initialDelay: { seconds: 1 },
          retryableErrorTypes: [NotFound],
        });
        const notFound = await ctx
          .step(
            'not-found',
            async () => {
              calls.notFound += 1;
              throw new NotFound();
            },
            { retryStrategy: strategy },
          )
          .catch((error: unknown) => describeError(error));
        const range = await ctx
          .step(
            'range',
            async () => {
              calls.range += 1;
              throw new RangeError('out of range');
            },
            { retryStrategy: strategy },
          )
          .catch((error: unknown) => describeError(error));
        return { notFound, range };
      });
      const result = await runHandler(m, handler, { payload: {} });
      return { result, observed: calls };
    },
  },
  {
    name: 'step: a custom error thrown by a step fails the run uncaught',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        await ctx.step(
          'lookup',
          async () => {
            throw new NotFound('order 7 not found');
          },
          { retryStrategy: () => ({ shouldRetry: false }) },
        );
        return 'not reached';
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'step: AtMostOncePerRetry and AtLeastOncePerRetry semantics both complete',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const once = await ctx.step('at-most-once', async () => 'once', {
          semantics: m.sdk.StepSemantics.AtMostOncePerRetry,
        });
        const least = await ctx.step('at-least-once', async () => 'least', {
          semantics: m.sdk.StepSemantics.AtLeastOncePerRetry,
        });
        return [once, least];
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'step: a completed step is not run again when a later wait replays the handler',
    needsReplay: true,
    async run(m) {
      let bodyRuns = 0;
      let handlerRuns = 0;
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        handlerRuns += 1;
        const value = await ctx.step('once', async () => {
          bodyRuns += 1;
          return 'kept';
        });
        await ctx.wait('pause', { hours: 1 });
        return value;
      });
      const result = await runHandler(m, handler, { payload: {} });
      return { result, observed: { bodyRuns }, replayed: handlerRuns > 1 };
    },
  },
  {
    name: 'step: a result goes through JSON (dates become strings, undefined fields drop)',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const value = await ctx.step('shapes', async () => ({
          at: new Date('2031-05-06T07:08:09.000Z'),
          gone: undefined,
          nested: { list: [1, undefined, 3] },
        }));
        return { value, atType: typeof value.at, hasGone: 'gone' in value };
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
];
