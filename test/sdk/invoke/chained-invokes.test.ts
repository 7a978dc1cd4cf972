import { LocalDurableTestRunner } from '@durable-lambda/local';
import { type InvokeError, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { Harness } from '../../support/harness';

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
    const op = runner.getOperation('call-child').getOperationData()!;
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
    // AWS's shape: errorType is the class; the child's message (not its type) is kept.
    expect((await runner.run()).getResult()).toEqual({
      name: 'InvokeError',
      type: 'InvokeError',
      message: 'bad child',
    });
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
      ctx.invoke(42 as never).catch((e) => (e as { field: string }).field),
    );
    expect((await new LocalDurableTestRunner({ handlerFunction: parent }).run()).getResult()).toBe('functionId');
  });
});

describe('invoke through an invoker that cannot tell which functions exist (Lambda)', () => {
  it('fails the invoke with function_not_found when the invoker reports the function missing', async () => {
    const parent = withDurableExecution(async (_e, ctx) =>
      ctx.invoke('ghost', {}).catch((e) => {
        const error = e as InvokeError;
        return { name: error.name, code: error.code };
      }),
    );
    const invoker = {
      invoke: async () => {
        throw Object.assign(new Error('Function not found: ghost'), { code: 'function_not_found' });
      },
    };
    const h = new Harness(parent, {}, undefined, { invoker });
    await h.start();
    await h.runToEnd();
    const run = await h.run();
    expect(JSON.parse(run?.result ?? 'null')).toEqual({ name: 'InvokeError', code: 'function_not_found' });
    const child = await h.engine.getRun((await h.op('1'))?.ChainedInvokeDetails?.ChildRunId ?? '');
    expect(child?.status).toBe('FAILED');
  });

  it('invokes a child again at close when its first invoke failed, so the parent is never stranded', async () => {
    const calls: string[] = [];
    let failFirst = true;
    const invoker = {
      invoke: async (name: string) => {
        calls.push(name);
        if (failFirst) {
          failFirst = false;
          throw new Error('throttled');
        }
      },
    };
    const parent = withDurableExecution(async (_e, ctx) => ctx.invoke('child-fn', { a: 1 }));
    const h = new Harness(parent, {}, undefined, { invoker });
    await h.start();
    await h.invoke();
    expect(calls).toEqual(['child-fn', 'child-fn']);
    expect((await h.op('1'))?.Status).toBe('STARTED');
  });

  it('cancels the lease safety wake-up once an invocation closes cleanly', async () => {
    const h = new Harness(withDurableExecution(async (_e, ctx) => ctx.wait({ minutes: 1 })));
    await h.start();
    await h.invoke();
    const lease = h.wakeUps.find((w) => w.reason === 'lease');
    expect(lease).toBeDefined();
    expect(h.cancelled).toEqual([lease]);
  });
});
