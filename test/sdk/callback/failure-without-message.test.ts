/**
 * Issue 23 (AWS's create-callback example, its edge case): a callback failed with nothing
 * (`sendCallbackFailure(undefined)`) is stored as AWS stores it, with no message and no type,
 * and the handler sees AWS's `CallbackExternalError` ('Callback failed').
 */
import { LocalDurableTestRunner, WaitingOperationStatus } from '@durable-lambda/local';
import { CallbackExternalError, type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

describe('a callback failed without a message', () => {
  it('stores no message and no type, and fails the callback', async () => {
    const runner = new LocalDurableTestRunner({
      handlerFunction: withDurableExecution(async (_event: unknown, ctx: DurableContext) => {
        const [promise] = await ctx.createCallback('answer');
        try {
          return await promise;
        } catch (error) {
          return { external: error instanceof CallbackExternalError, message: (error as Error).message };
        }
      }),
    });
    const running = runner.run();
    const callback = await runner.getOperationByIndex(0).waitForData(WaitingOperationStatus.STARTED);
    await callback.sendCallbackFailure(undefined);
    const result = await running;
    expect(callback.getCallbackDetails()?.error).toStrictEqual({
      errorData: undefined,
      errorMessage: undefined,
      errorType: undefined,
      stackTrace: undefined,
    });
    expect(result.getResult()).toEqual({ external: true, message: 'Callback failed' });
  });

  it('keeps a message and type given in AWS form', async () => {
    const runner = new LocalDurableTestRunner({
      handlerFunction: withDurableExecution(async (_event: unknown, ctx: DurableContext) => {
        const [promise] = await ctx.createCallback('answer');
        return promise;
      }),
    });
    const running = runner.run();
    const callback = await runner.getOperation('answer').waitForData();
    await callback.sendCallbackFailure({ ErrorMessage: 'no', ErrorType: 'Refused' });
    await running;
    expect(callback.getCallbackDetails()?.error).toMatchObject({ errorMessage: 'no', errorType: 'Refused' });
  });
});
