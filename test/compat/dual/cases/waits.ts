/** Waits and waitForCondition. */
import { type DualCase, describeError, runHandler } from '../harness/case';

export const waitCases: DualCase[] = [
  {
    name: 'wait: named and unnamed waits are skipped and end their invocations',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        await ctx.wait('named', { hours: 2, minutes: 30 });
        await ctx.wait({ seconds: 45 });
        return 'woke';
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'wait: two waits awaited together with promise.all',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        await ctx.promise.all('both', [ctx.wait('short', { seconds: 5 }), ctx.wait('long', { days: 1 })]);
        return 'both done';
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'wait: an unawaited long wait is left STARTED when the handler returns',
    leavesOperationsRunning: true,
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        void ctx.wait('forgotten', { days: 3 });
        return await ctx.step('quick', async () => 'done');
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'waitForCondition: createWaitStrategy polls until the state is ready',
    async run(m) {
      const seen: Array<[number, number]> = [];
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) =>
        ctx.waitForCondition(
          'poll',
          async (state: { count: number }, checkCtx) => {
            seen.push([state.count, checkCtx.attempt]);
            return { count: state.count + 1 };
          },
          {
            initialState: { count: 0 },
            waitStrategy: m.sdk.createWaitStrategy({
              shouldContinuePolling: (state: { count: number }) => state.count < 3,
              initialDelay: { seconds: 5 },
              jitter: m.sdk.JitterStrategy.NONE,
            }),
          },
        ),
      );
      const result = await runHandler(m, handler, { payload: {} });
      return { result, observed: { seen } };
    },
  },
  {
    name: 'waitForCondition: a custom wait strategy sees the state and the attempt',
    async run(m) {
      const decisions: Array<[string, number]> = [];
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) =>
        ctx.waitForCondition(async (state: string) => `${state}x`, {
          initialState: '',
          waitStrategy: (state, attempt) => {
            decisions.push([state, attempt]);
            return state.length < 2 ? { shouldContinue: true, delay: { minutes: 1 } } : { shouldContinue: false };
          },
        }),
      );
      const result = await runHandler(m, handler, { payload: {} });
      return { result, observed: { decisions } };
    },
  },
  {
    name: 'waitForCondition: running out of attempts fails the wait with a StepError',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        try {
          await ctx.waitForCondition('never-ready', async (state: number) => state + 1, {
            initialState: 0,
            waitStrategy: m.sdk.createWaitStrategy({
              shouldContinuePolling: () => true,
              maxAttempts: 2,
              initialDelay: { seconds: 1 },
              jitter: m.sdk.JitterStrategy.NONE,
            }),
          });
          return 'not reached';
        } catch (error) {
          return { described: describeError(error), isIt: error instanceof m.sdk.WaitForConditionError };
        }
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'waitForCondition: a check that throws fails the run',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) =>
        ctx.waitForCondition(
          'broken-check',
          async () => {
            throw new Error('check exploded');
          },
          { initialState: 0, waitStrategy: () => ({ shouldContinue: false }) },
        ),
      );
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
];
