/**
 * `step(..., { compensate })` and `context.compensate()`: a saga's undo steps run in reverse
 * order, each a durable step with its own retries, once per run; the run fails with the
 * handler's error and says what was undone.
 */
import { LocalDurableTestRunner } from '@durable-lambda/local';
import { type DurableContext, InvokeError, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

const names = (result: { getOperations(): ReadonlyArray<{ getName(): string | undefined }> }) =>
  result.getOperations().map((op) => op.getName());

describe('sagas: compensations', () => {
  it('undoes the succeeded steps in reverse order, then fails the run with the original error saying what was undone', async () => {
    const undone: string[] = [];
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      await ctx.step('reserve', async () => 'res-1', {
        compensate: async (reservation) => void undone.push(`release ${reservation}`),
      });
      await ctx.step('charge', async () => ({ chargeId: 'ch-1' }), {
        compensate: async (charge) => void undone.push(`refund ${charge.chargeId}`),
      });
      await ctx.step(
        'ship',
        async (): Promise<string> => {
          throw new Error('no courier today');
        },
        { retry: { maxAttempts: 1 }, compensate: async () => void undone.push('unship') },
      );
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();

    expect(result.getStatus()).toBe('FAILED');
    expect(undone).toEqual(['refund ch-1', 'release res-1']);
    const error = result.getError();
    expect(error.errorType).toBe('StepError');
    expect(error.errorMessage).toBe('no courier today');
    expect(JSON.parse(error.errorData ?? 'null')).toEqual({ compensated: ['charge', 'reserve'], failed: [] });
    expect(names(result)).toEqual([
      'reserve',
      'charge',
      'ship',
      'saga plan',
      'compensate charge',
      'compensate reserve',
    ]);
  });

  it('leaves a failing run without compensations exactly as before: no extra operation, no ErrorData', async () => {
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      await ctx.step('plain', async () => 1);
      throw new Error('boom');
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getError().errorData).toBeUndefined();
    expect(names(result)).toEqual(['plain']);
  });

  it('runs compensations on demand with compensate(), each at most once even when called again or the run fails later', async () => {
    const undone: string[] = [];
    const reports: unknown[] = [];
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      await ctx.step('reserve', async () => 'r', { compensate: () => void undone.push('reserve') });
      await ctx.step('charge', async () => 'c', { compensate: () => void undone.push('charge') });
      reports.push(await ctx.compensate());
      reports.push(await ctx.compensate());
      await ctx.wait('cool-off', { seconds: 5 }); // a replay: the rounds above must not run again
      await ctx.step('notify', async () => 'n', { compensate: () => void undone.push('notify') });
      throw new Error('late failure');
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();

    expect(undone).toEqual(['charge', 'reserve', 'notify']);
    expect(reports.at(-1)).toEqual({ compensated: ['charge', 'reserve'], failed: [] });
    expect(JSON.parse(result.getError().errorData ?? 'null')).toEqual({
      compensated: ['charge', 'reserve', 'notify'],
      failed: [],
    });
    expect(names(result).filter((n) => n?.startsWith('compensate'))).toEqual([
      'compensate charge',
      'compensate reserve',
      'compensate notify',
    ]);
  });

  it('runs each compensation once when compensate() is called twice at the same time', async () => {
    const undone: string[] = [];
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      await ctx.step('reserve', async () => 'r', { compensate: () => void undone.push('reserve') });
      await ctx.step('charge', async () => 'c', { compensate: () => void undone.push('charge') });
      const [first, second] = await Promise.all([ctx.compensate(), ctx.compensate()]);
      return { first, second };
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(undone).toEqual(['charge', 'reserve']);
    const report = { compensated: ['charge', 'reserve'], failed: [] };
    expect(result.getResult()).toEqual({ first: report, second: report });
  });

  it('keeps the ErrorData of a durable error under errorData, with its type, message and code as recorded without compensations', async () => {
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      await ctx.step('reserve', async () => 'r', { compensate: () => undefined });
      throw new InvokeError('payments failed', undefined, '{"reason":"declined"}');
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    const error = result.getError();
    expect(error.errorType).toBe('InvokeError');
    expect(error.errorMessage).toBe('payments failed');
    expect((error as { code?: string }).code).toBe('invoke_failed');
    expect(JSON.parse(error.errorData ?? 'null')).toEqual({
      compensated: ['reserve'],
      failed: [],
      errorData: '{"reason":"declined"}',
    });
  });

  it('lets the handler succeed after compensating on demand', async () => {
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      await ctx.step('reserve', async () => 'r', { compensate: () => undefined });
      const report = await ctx.compensate();
      return { status: 'rejected', report };
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getStatus()).toBe('SUCCEEDED');
    expect(result.getResult()).toEqual({ status: 'rejected', report: { compensated: ['reserve'], failed: [] } });
  });

  it('retries a failing compensation with its own policy, still runs the others, and reports the one that failed', async () => {
    const attempts: Record<string, number> = {};
    const count = (name: string) => {
      attempts[name] = (attempts[name] ?? 0) + 1;
    };
    const handler = withDurableExecution(
      async (_e: unknown, ctx: DurableContext) => {
        await ctx.step('reserve', async () => 'r', { compensate: () => count('reserve') });
        await ctx.step('charge', async () => 'c', {
          compensate: {
            run: () => {
              count('charge');
              throw new Error('gateway down');
            },
            retry: { maxAttempts: 3, initialMs: 1000, jitter: 'NONE' },
          },
        });
        await ctx.step('notify', async () => 'n', { compensate: () => count('notify') });
        throw new Error('order rejected');
      },
      { retry: { maxAttempts: 1 } },
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();

    expect(attempts).toEqual({ notify: 1, charge: 3, reserve: 1 });
    const error = result.getError();
    expect(error.errorMessage).toBe('order rejected');
    expect(JSON.parse(error.errorData ?? 'null')).toEqual({
      compensated: ['notify', 'reserve'],
      failed: [{ step: 'charge', error: 'gateway down' }],
    });
    const undo = result.getOperations().find((op) => op.getName() === 'compensate charge');
    expect(undo?.getStatus()).toBe('FAILED');
    // The retries' backoff ended invocations: the rounds resumed by replay, nothing ran twice.
    expect(result.getInvocationCount()).toBeGreaterThan(1);
  });

  it('uses the function-level retry defaults for a compensation that sets none', async () => {
    let attempts = 0;
    const handler = withDurableExecution(
      async (_e: unknown, ctx: DurableContext) => {
        await ctx.step('charge', async () => 'c', {
          compensate: () => {
            attempts++;
            throw new Error('nope');
          },
        });
        throw new Error('fail');
      },
      { retry: { maxAttempts: 2, initialMs: 1000 } },
    );
    await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(attempts).toBe(2);
  });

  it('undoes steps registered in child contexts as the run’s own, by position in the run', async () => {
    const undone: string[] = [];
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      await ctx.step('first', async () => 1, { compensate: () => void undone.push('first') });
      await ctx.runInChildContext('booking', async (child) => {
        await child.step('flight', async () => 'f', { compensate: () => void undone.push('flight') });
        await child.step('hotel', async () => 'h', { compensate: () => void undone.push('hotel') });
      });
      throw new Error('car rental failed');
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(undone).toEqual(['hotel', 'flight', 'first']);
    expect(JSON.parse(result.getError().errorData ?? 'null').compensated).toEqual(['hotel', 'flight', 'first']);
  });

  it('keeps the undo of steps in a finished child context across replays (its body runs again over its records)', async () => {
    const undone: string[] = [];
    const bodies: number[] = [];
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      await ctx.runInChildContext('booking', async (child) => {
        bodies.push(1);
        await child.step('flight', async () => 'f', { compensate: () => void undone.push('flight') });
      });
      await ctx.wait('hold', { seconds: 30 }); // the next invocation replays the finished context
      throw new Error('payment expired');
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getInvocationCount()).toBe(2);
    expect(bodies.length).toBe(2);
    expect(undone).toEqual(['flight']);
    expect(JSON.parse(result.getError().errorData ?? 'null').compensated).toEqual(['flight']);
  });

  it('undoes the succeeded steps of a failing child context before it fails, resuming after a suspension', async () => {
    const undone: string[] = [];
    let flightAttempts = 0;
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      await ctx.step('first', async () => 1, { compensate: () => void undone.push('first') });
      await ctx.runInChildContext('booking', async (child) => {
        await child.step('flight', async () => 'f', {
          compensate: {
            run: () => {
              // Fails once: its retry ends the invocation, and the next one re-enters the context.
              if (++flightAttempts === 1) throw new Error('airline busy');
              undone.push('flight');
            },
            retry: { maxAttempts: 2, initialMs: 1000 },
          },
        });
        await child.step(
          'hotel',
          async (): Promise<string> => {
            throw new Error('no rooms');
          },
          { retry: { maxAttempts: 1 } },
        );
      });
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getInvocationCount()).toBeGreaterThan(1);
    expect(flightAttempts).toBe(2);
    expect(undone).toEqual(['flight', 'first']);
    expect(result.getError().errorType).toBe('ChildContextError');
    const booking = result.getOperations().find((op) => op.getName() === 'booking');
    expect(booking?.getStatus()).toBe('FAILED');
    expect(booking?.getChildOperations()?.map((op) => op.getName())).toEqual([
      'flight',
      'hotel',
      'saga plan',
      'compensate flight',
    ]);
  });

  it('orders concurrent steps by their position, not by which finished first, so replay agrees', async () => {
    const undone: string[] = [];
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      const first = ctx.runInChildContext('slow', async (c) => {
        await c.wait({ seconds: 5 }); // finishes last
        await c.step('a', async () => 'a', { compensate: () => void undone.push('a') });
      });
      const second = ctx.runInChildContext('fast', async (c) => {
        await c.step('b', async () => 'b', { compensate: () => void undone.push('b') });
      });
      await Promise.all([first, second]);
      throw new Error('after both');
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(undone).toEqual(['b', 'a']);
    expect(JSON.parse(result.getError().errorData ?? 'null').compensated).toEqual(['b', 'a']);
  });

  it('refuses a compensation in a map item, whose finished body does not run again on replay', async () => {
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      const batch = await ctx.map([1], async (item, n) =>
        item.step('x', async () => n, { compensate: () => undefined }),
      );
      return batch.getErrors().map((e) => e.message);
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toEqual([expect.stringMatching(/^config\.compensate: not available in a map item/)]);
  });

  it('refuses a compensate option that is neither a function nor { run }, naming the field', async () => {
    const handler = withDurableExecution(async (_e: unknown, ctx: DurableContext) =>
      ctx.step('x', async () => 1, { compensate: { retry: { maxAttempts: 2 } } as never }),
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getError().errorMessage).toMatch(/^config\.compensate: must be a function or \{ run/);
  });
});
