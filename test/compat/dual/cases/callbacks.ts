/** Callbacks: createCallback and waitForCallback, completed through the runner's operation handles. */
import { type DualCase, describeError, runHandler } from '../harness/case';

export const callbackCases: DualCase[] = [
  {
    name: 'callback: createCallback completed by sendCallbackSuccess',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const [promise, callbackId] = await ctx.createCallback<{ approved: boolean }>('approval');
        await ctx.step('notify', async () => typeof callbackId);
        const answer = await promise;
        return { answer };
      });
      const result = await runHandler(m, handler, {
        payload: {},
        during: async (runner) => {
          const callback = runner.getOperation('approval');
          await callback.waitForData(m.testing.WaitingOperationStatus.STARTED);
          await callback.sendCallbackSuccess(JSON.stringify({ approved: true }));
        },
      });
      return { result };
    },
  },
  {
    name: 'callback: createCallback failed by sendCallbackFailure with an ErrorObject, caught',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const [promise] = await ctx.createCallback('approval');
        try {
          await promise;
          return 'not reached';
        } catch (error) {
          return {
            described: describeError(error),
            isCallbackError: error instanceof m.sdk.CallbackError,
          };
        }
      });
      const result = await runHandler(m, handler, {
        payload: {},
        during: async (runner) => {
          const callback = runner.getOperation('approval');
          await callback.waitForData();
          await callback.sendCallbackFailure({
            ErrorType: 'Rejected',
            ErrorMessage: 'the manager said no',
            ErrorData: JSON.stringify({ by: 'manager' }),
          });
        },
      });
      return { result };
    },
  },
  {
    name: 'callback: an uncaught callback failure fails the run',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const [promise] = await ctx.createCallback('payment');
        return await promise;
      });
      const result = await runHandler(m, handler, {
        payload: {},
        during: async (runner) => {
          const callback = runner.getOperation('payment');
          await callback.waitForData();
          await callback.sendCallbackFailure({ ErrorMessage: 'card declined' });
        },
      });
      return { result };
    },
  },
  {
    name: 'callback: waitForCallback runs its submitter and resumes with the result',
    async run(m) {
      const submitted: string[] = [];
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const answer = await ctx.waitForCallback<{ ok: number }>('external', async (callbackId) => {
          submitted.push(typeof callbackId);
        });
        return answer;
      });
      const result = await runHandler(m, handler, {
        payload: {},
        during: async (runner) => {
          const callback = runner.getOperation('external');
          await callback.waitForData(m.testing.WaitingOperationStatus.SUBMITTED);
          await callback.sendCallbackSuccess(JSON.stringify({ ok: 1 }));
        },
      });
      return { result, observed: { submitted } };
    },
  },
  {
    name: 'callback: a waitForCallback submitter that throws is a CallbackSubmitterError',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        try {
          await ctx.waitForCallback(
            'submit-fails',
            async () => {
              throw new Error('queue unavailable');
            },
            { retryStrategy: m.sdk.retryPresets.noRetry },
          );
          return 'not reached';
        } catch (error) {
          return { described: describeError(error), isIt: error instanceof m.sdk.CallbackSubmitterError };
        }
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'callback: a callback not completed in its timeout is a CallbackTimeoutError',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const [promise] = await ctx.createCallback('slow', { timeout: { seconds: 1 } });
        try {
          await promise;
          return 'not reached';
        } catch (error) {
          return { described: describeError(error), isIt: error instanceof m.sdk.CallbackTimeoutError };
        }
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'callback: a heartbeat keeps a callback alive until it succeeds',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) =>
        ctx.waitForCallback<string>('long-job', async () => {}, { heartbeatTimeout: { seconds: 30 } }),
      );
      const result = await runHandler(m, handler, {
        payload: {},
        during: async (runner) => {
          const callback = runner.getOperation('long-job');
          await callback.waitForData(m.testing.WaitingOperationStatus.SUBMITTED);
          await callback.sendCallbackHeartbeat();
          await callback.sendCallbackHeartbeat();
          await callback.sendCallbackSuccess(JSON.stringify('finished'));
        },
      });
      return { result };
    },
  },
  {
    name: 'callback: no heartbeat within heartbeatTimeout times the callback out',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const [promise] = await ctx.createCallback('silent', { heartbeatTimeout: { seconds: 1 } });
        return await promise.catch((error: unknown) => describeError(error));
      });
      return { result: await runHandler(m, handler, { payload: {} }) };
    },
  },
  {
    name: 'callback: a custom deserializer reads the completion payload',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        const [promise] = await ctx.createCallback<{ upper: string }>('shout', {
          serdes: { deserialize: async (data) => ({ upper: (data ?? '').toUpperCase() }) },
        });
        return await promise;
      });
      const result = await runHandler(m, handler, {
        payload: {},
        during: async (runner) => {
          const callback = runner.getOperation('shout');
          await callback.waitForData();
          await callback.sendCallbackSuccess('quiet words');
        },
      });
      return { result };
    },
  },
  {
    name: 'callback: waitForCallback failed by sendCallbackFailure, caught',
    async run(m) {
      const handler = m.sdk.withDurableExecution(async (_event: unknown, ctx) => {
        try {
          await ctx.waitForCallback('review', async () => {});
          return 'not reached';
        } catch (error) {
          return { described: describeError(error), isCallbackError: error instanceof m.sdk.CallbackError };
        }
      });
      const result = await runHandler(m, handler, {
        payload: {},
        during: async (runner) => {
          const callback = runner.getOperation('review');
          await callback.waitForData(m.testing.WaitingOperationStatus.SUBMITTED);
          await callback.sendCallbackFailure({ ErrorType: 'ReviewRejected', ErrorMessage: 'not good enough' });
        },
      });
      return { result };
    },
  },
];
