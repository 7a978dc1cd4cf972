/**
 * Issue 23: a timed-out callback carries the error type AWS's service stores (conformance 4-3,
 * 4-4): `Callback.Timeout` for its overall timeout, `Callback.Heartbeat` for a missed heartbeat,
 * in the stored operation, in the CallbackTimedOut history event, and as the name of the
 * CallbackTimeoutError's cause the handler sees.
 */
import { LocalDurableTestRunner } from '@durable-lambda/local';
import { CallbackTimeoutError, type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

async function timedOut(config: { timeout?: { seconds: number }; heartbeatTimeout?: { seconds: number } }) {
  const handler = withDurableExecution(async (_event: unknown, ctx: DurableContext) => {
    const [promise] = await ctx.createCallback('approval', config);
    try {
      await promise;
      return 'not reached';
    } catch (error) {
      const cause = (error as Error).cause as Error | undefined;
      return {
        isTimeout: error instanceof CallbackTimeoutError,
        message: (error as Error).message,
        cause: cause?.name,
      };
    }
  });
  const runner = new LocalDurableTestRunner({ handlerFunction: handler });
  const result = await runner.run();
  const event = result.getHistoryEvents().find((e) => e.EventType === 'CallbackTimedOut');
  return {
    seen: result.getResult(),
    stored: runner.getOperation('approval').getCallbackDetails()?.error?.errorType,
    event: event?.CallbackTimedOutDetails?.Error?.Payload,
  };
}

describe('callback timeouts carry AWS service error types', () => {
  it('an overall timeout is Callback.Timeout', async () => {
    const out = await timedOut({ timeout: { seconds: 5 } });
    expect(out.seen).toEqual({ isTimeout: true, message: 'Callback timed out', cause: 'Callback.Timeout' });
    expect(out.stored).toBe('Callback.Timeout');
    expect(out.event).toMatchObject({ ErrorType: 'Callback.Timeout', ErrorMessage: 'Callback timed out' });
  });

  it('a missed heartbeat is Callback.Heartbeat', async () => {
    const out = await timedOut({ heartbeatTimeout: { seconds: 5 } });
    expect(out.seen).toEqual({
      isTimeout: true,
      message: 'Callback timed out on heartbeat',
      cause: 'Callback.Heartbeat',
    });
    expect(out.stored).toBe('Callback.Heartbeat');
    expect(out.event).toMatchObject({ ErrorType: 'Callback.Heartbeat' });
  });

  it('with both deadlines, the one that passed first names the error', async () => {
    const heartbeatFirst = await timedOut({ timeout: { seconds: 60 }, heartbeatTimeout: { seconds: 5 } });
    expect(heartbeatFirst.stored).toBe('Callback.Heartbeat');
    const timeoutFirst = await timedOut({ timeout: { seconds: 5 }, heartbeatTimeout: { seconds: 60 } });
    expect(timeoutFirst.stored).toBe('Callback.Timeout');
  });
});
