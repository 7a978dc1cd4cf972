import { Engine, MemoryStore } from '@durable-lambda/engine';
import { LocalDurableTestRunner, VirtualClock, WaitingOperationStatus } from '@durable-lambda/local';
import {
  type CallbackExternalError,
  CallbackSubmitterError,
  CallbackTimeoutError,
  withDurableExecution,
} from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';
import { Harness } from '../../support/harness';

describe('createCallback', () => {
  it('suspends until the callback is completed from outside, then returns its payload', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      const [promise, callbackId] = await ctx.createCallback('approval', { timeout: { days: 3 } });
      await ctx.step('notify', async () => callbackId.length);
      const answer = await promise;
      return { answer };
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const running = runner.run();
    const approval = await runner.getOperation('approval').waitForData();
    expect(approval.getCallbackDetails()?.callbackId).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{32}$/);
    await approval.sendCallbackSuccess('{"approved":true}');
    const result = await running;
    expect(result.getResult()).toEqual({ answer: '{"approved":true}' });
    expect(approval.getCallbackDetails()?.result).toEqual({ approved: true });
    expect(result.getInvocationCount()).toBe(2);
  });

  it('times out with CallbackTimeoutError at its deadline on the virtual clock', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      const [promise] = await ctx.createCallback('slow', { timeout: { hours: 2 } });
      try {
        return await promise;
      } catch (error) {
        return {
          name: (error as Error).name,
          code: (error as CallbackTimeoutError).code,
          instance: error instanceof CallbackTimeoutError,
        };
      }
    });
    const start = Date.UTC(2031, 0, 1);
    const runner = new LocalDurableTestRunner({ handlerFunction: handler, startTime: start });
    const result = await runner.run();
    expect(result.getResult()).toEqual({ name: 'CallbackTimeoutError', code: 'callback_timeout', instance: true });
    expect(result.getInvocations().map((i) => i.startedAt.getTime() - start)).toEqual([0, 7_200_000]);
    expect(runner.getOperation('slow').getStatus()).toBe('TIMED_OUT');
  });

  it('surfaces an outside failure as CallbackExternalError with its message and code', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      const [promise] = await ctx.createCallback('pay');
      return promise.catch((e) => {
        const error = e as CallbackExternalError;
        return { name: error.name, message: error.message, code: error.code };
      });
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const running = runner.run();
    await (await runner.getOperation('pay').waitForData()).sendCallbackFailure({
      errorMessage: 'card declined',
      code: 'declined',
    });
    expect((await running).getResult()).toEqual({
      name: 'CallbackExternalError',
      message: 'card declined',
      code: 'declined',
    });
  });

  it('accepts a completion exactly once: a second one is a clear error, not a second resume', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      const [promise] = await ctx.createCallback('once');
      return promise;
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const running = runner.run();
    const op = await runner.getOperation('once').waitForData();
    await op.sendCallbackSuccess('"first"');
    await expect(op.sendCallbackSuccess('"second"')).rejects.toMatchObject({ code: 'callback_already_completed' });
    await expect(op.sendCallbackFailure({ errorMessage: 'late' })).rejects.toMatchObject({
      code: 'callback_already_completed',
    });
    const result = await running;
    expect(result.getResult()).toBe('"first"');
    expect(result.getInvocationCount()).toBe(2);
  });

  it('stays alive while heartbeats arrive within the heartbeat timeout, and times out when they stop', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      const [promise] = await ctx.createCallback('job', { heartbeatTimeout: { minutes: 10 } });
      return promise.catch((error) => `failed: ${(error as Error).name}`);
    });
    const h = new Harness(handler);
    await h.start();
    await h.invoke();
    const callbackId = (await h.op('1'))?.CallbackDetails?.CallbackId ?? '';
    for (let i = 0; i < 3; i++) {
      h.clock.advanceBy(9 * 60_000);
      await h.engine.sendCallbackHeartbeat(callbackId);
    }
    // 27 minutes in, alive thanks to the heartbeats; the early wake-up finds it still waiting.
    expect((await h.op('1'))?.Status).toBe('STARTED');
    h.clock.advanceBy(11 * 60_000);
    await h.invoke();
    expect((await h.run())?.result).toBe('"failed: CallbackTimeoutError"');
    await expect(h.engine.sendCallbackHeartbeat(callbackId)).rejects.toMatchObject({
      code: 'callback_already_completed',
    });
  });

  it('rejects unknown and malformed callback ids with their own codes', async () => {
    const clock = new VirtualClock();
    const engine = new Engine({ store: new MemoryStore(clock), clock, waker: { wakeAt: async () => {} } });
    await expect(engine.sendCallbackSuccess('nope', '1')).rejects.toMatchObject({ code: 'invalid_callback_id' });
    await expect(engine.sendCallbackSuccess(42 as never, '1')).rejects.toMatchObject({ code: 'invalid_callback_id' });
    const forged = `${Buffer.from('r123:1').toString('base64url')}.${'A'.repeat(32)}`;
    await expect(engine.sendCallbackSuccess(forged, '1')).rejects.toMatchObject({ code: 'callback_not_found' });
  });

  it('does not accept a guessed secret for a real callback', async () => {
    const handler = withDurableExecution(async (_e, ctx) => (await ctx.createCallback('x'))[0]);
    const h = new Harness(handler);
    await h.start();
    await h.invoke();
    const real = (await h.op('1'))?.CallbackDetails?.CallbackId ?? '';
    const guessed = `${real.split('.')[0]}.${'B'.repeat(32)}`;
    await expect(h.engine.sendCallbackSuccess(guessed, '1')).rejects.toMatchObject({ code: 'callback_not_found' });
  });

  it('catches a completion that lands while an invocation holds the run', async () => {
    let callbackId = '';
    let sent = false;
    const handler = withDurableExecution(async (_e, ctx) => {
      const [promise, id] = await ctx.createCallback('cb');
      callbackId = id;
      await ctx.step('slow', async () => {
        // The outside completion arrives mid-invocation; its own wake-up finds the run busy.
        if (!sent) {
          sent = true;
          await h.engine.sendCallbackSuccess(callbackId, 'done');
        }
        return 1;
      });
      return promise;
    });
    const h = new Harness(handler);
    await h.start();
    await h.invoke();
    const run = await h.run();
    expect(run?.eventSeq).toBeGreaterThan(run?.handledEventSeq ?? 0);
    expect(h.wakeUps.filter((w) => w.reason === 'event').length).toBeGreaterThanOrEqual(2);
    await h.invoke();
    expect((await h.run())?.result).toBe('"done"');
  });
});

describe('waitForCallback', () => {
  it('runs the submitter with the callback id and returns the completion', async () => {
    const submitted: string[] = [];
    const handler = withDurableExecution(async (_e, ctx) =>
      ctx.waitForCallback<string>(
        'approve',
        async (callbackId) => {
          submitted.push(callbackId);
        },
        { timeout: { days: 1 } },
      ),
    );
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const running = runner.run();
    const op = await runner.getOperation('approve').waitForData(WaitingOperationStatus.SUBMITTED);
    expect(submitted).toEqual([op.getCallbackDetails()?.callbackId]);
    await op.sendCallbackSuccess('yes');
    expect((await running).getResult()).toBe('yes');
    expect(submitted).toHaveLength(1);
  });

  it('fails with CallbackSubmitterError when the submitter uses up its retries, never leaving the run hanging', async () => {
    let attempts = 0;
    const handler = withDurableExecution(async (_e, ctx) => {
      try {
        await ctx.waitForCallback(
          'approve',
          async () => {
            attempts++;
            throw new Error('queue down');
          },
          { retryStrategy: (_err, attempt) => ({ shouldRetry: attempt < 3, delay: { seconds: 5 } }) },
        );
      } catch (error) {
        return {
          name: (error as Error).name,
          code: (error as CallbackSubmitterError).code,
          sub: error instanceof CallbackSubmitterError,
        };
      }
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toEqual({
      name: 'CallbackSubmitterError',
      code: 'callback_submitter_failed',
      sub: true,
    });
    expect(attempts).toBe(3);
  });

  it('deserializes the completion with a custom serdes, live and on replay', async () => {
    const seen: unknown[] = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      const value = await ctx.waitForCallback('data', async () => {}, {
        serdes: { deserialize: (s: string | undefined) => (s === undefined ? undefined : { parsed: JSON.parse(s) }) },
      });
      seen.push(value);
      await ctx.wait({ seconds: 1 });
      return value;
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const running = runner.run();
    await (await runner.getOperation('data').waitForData(WaitingOperationStatus.SUBMITTED)).sendCallbackSuccess(
      '[1,2]',
    );
    expect((await running).getResult()).toEqual({ parsed: [1, 2] });
    expect(seen).toEqual([{ parsed: [1, 2] }, { parsed: [1, 2] }]);
  });

  it('rejects bad configuration at the call', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      const errors: string[] = [];
      for (const call of [
        () => ctx.createCallback('a', { timeout: { seconds: -1 } }),
        () => ctx.createCallback('b', { heartbeatTimeout: { days: 400 } }),
        () => ctx.createCallback('c', { bogus: 1 } as never),
        () => ctx.waitForCallback('d', 'nope' as never),
        () => ctx.createCallback(7 as never),
      ]) {
        await call().catch((e) => errors.push((e as { field: string }).field));
      }
      return errors;
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toEqual([
      'config.timeout.seconds',
      'config.timeout'.replace('timeout', 'heartbeatTimeout'),
      'config.bogus',
      'submitter',
      'config',
    ]);
  });
});
