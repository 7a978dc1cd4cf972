import { LocalDurableTestRunner } from '@durable-lambda/local';
import { type InvokeError, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

describe('invoke', () => {
  it('starts a run of another durable function and returns its result, starting it only once', async () => {
    let childBodies = 0;
    const child = withDurableExecution(async (event: { n: number }, ctx) => {
      childBodies++;
      await ctx.wait({ minutes: 1 });
      return ctx.step('double', async () => event.n * 2);
    });
    const parent = withDurableExecution(async (event: { n: number }, ctx) => {
      const doubled = await ctx.invoke<{ n: number }, number>('call-child', 'doubler', { n: event.n });
      await ctx.wait({ seconds: 5 });
      return doubled + 1;
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: parent }).registerDurableFunction('doubler', child);
    const result = await runner.run({ payload: { n: 20 } });
    expect(result.getResult()).toBe(41);
    expect(childBodies).toBe(2); // the child's own two invocations (before and after its wait)
    const op = runner.getOperation('call-child').getOperationData();
    expect(op.Type).toBe('CHAINED_INVOKE');
    expect(op.ChainedInvokeDetails?.FunctionName).toBe('doubler');
    expect(result.getInvocationCount()).toBe(3);
  });

  it('throws InvokeError with the child run error when the child fails', async () => {
    const child = withDurableExecution(async () => {
      throw new RangeError('bad child');
    });
    const parent = withDurableExecution(async (_e, ctx) => {
      try {
        await ctx.invoke('child', {});
      } catch (error) {
        return {
          name: (error as Error).name,
          type: (error as InvokeError).errorType,
          message: (error as Error).message,
        };
      }
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: parent }).registerDurableFunction('child', child);
    expect((await runner.run()).getResult()).toEqual({ name: 'InvokeError', type: 'RangeError', message: 'bad child' });
  });

  it('fails at once with function_not_found for an unregistered function', async () => {
    const parent = withDurableExecution(async (_e, ctx) => {
      try {
        await ctx.invoke('missing-fn', { a: 1 });
      } catch (error) {
        return (error as InvokeError).code;
      }
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: parent }).run();
    expect(result.getResult()).toBe('function_not_found');
    expect(result.getInvocationCount()).toBe(1);
  });

  it('rejects a bad function id at the call', async () => {
    const parent = withDurableExecution(async (_e, ctx) =>
      ctx.invoke(42 as never).catch((e: { field: string }) => e.field),
    );
    expect((await new LocalDurableTestRunner({ handlerFunction: parent }).run()).getResult()).toBe('functionId');
  });
});
