import { LocalDurableTestRunner } from '@durable-lambda/local';
import { type DurableContext, getDurableEntry, InvalidArgumentError, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

/** Runs `call` inside a handler and returns what it threw. */
async function thrownBy(call: (ctx: DurableContext) => Promise<unknown>): Promise<InvalidArgumentError> {
  const handler = withDurableExecution(async (_e, ctx) => {
    try {
      await call(ctx);
    } catch (error) {
      return {
        name: (error as Error).name,
        code: (error as InvalidArgumentError).code,
        field: (error as InvalidArgumentError).field,
        message: (error as Error).message,
      };
    }
    return 'no error';
  });
  const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
  return result.getResult() as InvalidArgumentError;
}

const fn = async () => 1;

describe('bad input fails at the call with a clear message and code', () => {
  it.each([
    ['a negative duration', (c: DurableContext) => c.wait({ seconds: -1 }), 'duration.seconds'],
    ['a fractional duration', (c: DurableContext) => c.wait({ seconds: 1.5 }), 'duration.seconds'],
    ['a zero duration', (c: DurableContext) => c.wait({ seconds: 0 }), 'duration'],
    ['an unknown unit', (c: DurableContext) => c.wait({ weeks: 1 } as never), 'duration'],
    ['a wait over a year', (c: DurableContext) => c.wait({ days: 366 }), 'duration'],
    ['a number for a duration', (c: DurableContext) => c.wait(5 as never), 'duration'],
    ['an empty name', (c: DurableContext) => c.step('', fn), 'name'],
    ['a name that is not a string', (c: DurableContext) => c.step(42 as never, fn), 'name'],
    ['a name with control characters', (c: DurableContext) => c.step('a\nb', fn), 'name'],
    ['a name over 256 characters', (c: DurableContext) => c.step('n'.repeat(257), fn), 'name'],
    ['a missing step function', (c: DurableContext) => c.step('x', undefined as never), 'fn'],
    [
      'a retry with 0 attempts',
      (c: DurableContext) => c.step('x', fn, { retry: { maxAttempts: 0 } }),
      'config.retry.maxAttempts',
    ],
    [
      'a retry with 101 attempts',
      (c: DurableContext) => c.step('x', fn, { retry: { maxAttempts: 101 } }),
      'config.retry.maxAttempts',
    ],
    [
      'a multiplier over 10',
      (c: DurableContext) => c.step('x', fn, { retry: { multiplier: 11 } }),
      'config.retry.multiplier',
    ],
    [
      'a longest delay over 24 h',
      (c: DurableContext) => c.step('x', fn, { retry: { maxMs: 86_400_001 } }),
      'config.retry.maxMs',
    ],
    [
      'both retry and retryStrategy',
      (c: DurableContext) => c.step('x', fn, { retry: {}, retryStrategy: () => ({ shouldRetry: false }) }),
      'config.retry',
    ],
    ['a timeout over 24 h', (c: DurableContext) => c.step('x', fn, { timeout: { hours: 25 } }), 'config.timeout'],
    ['unknown semantics', (c: DurableContext) => c.step('x', fn, { semantics: 'ONCE' as never }), 'config.semantics'],
    ['an unknown step option', (c: DurableContext) => c.step('x', fn, { retries: 3 } as never), 'config.retries'],
    ['a serdes without functions', (c: DurableContext) => c.step('x', fn, { serdes: {} as never }), 'config.serdes'],
    ['a child context without a function', (c: DurableContext) => c.runInChildContext('x', 'nope' as never), 'fn'],
  ])('rejects %s', async (_label, call, field) => {
    const error = await thrownBy(call);
    expect(error).toMatchObject({ name: 'InvalidArgumentError', code: 'invalid_argument', field });
    expect(error.message.startsWith(`${field}: `)).toBe(true);
  });

  it('rejects a bad function-level config when the handler is wrapped, not at the first step', () => {
    expect(() => withDurableExecution(async () => 1, { retry: { maxAttempts: 0 } })).toThrow(
      /config\.retry\.maxAttempts/,
    );
    expect(() => withDurableExecution(async () => 1, { timeout: { days: 2 } })).toThrow(/config\.timeout/);
    expect(() => withDurableExecution(async () => 1, { inProcessWaitMs: -1 })).toThrow(/config\.inProcessWaitMs/);
    expect(() => withDurableExecution(async () => 1, { bogus: 1 } as never)).toThrow(/config\.bogus/);
    expect(() => withDurableExecution('no' as never)).toThrow(InvalidArgumentError);
  });

  it('does not consume an operation id for a rejected call, so replay stays aligned', async () => {
    const handler = withDurableExecution(async (_e, ctx) => {
      await ctx.wait({ seconds: 0 }).catch(() => undefined);
      await ctx.wait({ seconds: 1 });
      return ctx.step('after', fn);
    });
    const runner = new LocalDurableTestRunner({ handlerFunction: handler });
    const result = await runner.run();
    expect(result.getResult()).toBe(1);
    expect(runner.getOperation('after').getId()).toBe('2');
  });

  it('rejects a LocalDurableTestRunner given something that is not a handler', () => {
    // A plain function is taken as a handler wrapped by AWS's SDK (it runs on our engine unchanged).
    expect(() => new LocalDurableTestRunner({ handlerFunction: { not: 'a function' } as never })).toThrow(
      /withDurableExecution/,
    );
  });
});

describe('configuration from the environment', () => {
  it('reads the in-process wait threshold from DURABLE_IN_PROCESS_WAIT_MS when the code sets none', () => {
    const before = process.env.DURABLE_IN_PROCESS_WAIT_MS;
    try {
      process.env.DURABLE_IN_PROCESS_WAIT_MS = '1234';
      expect(getDurableEntry(withDurableExecution(async () => 1)).settings.inProcessWaitMs).toBe(1234);
      expect(
        getDurableEntry(withDurableExecution(async () => 1, { inProcessWaitMs: 7 })).settings.inProcessWaitMs,
      ).toBe(7);
      process.env.DURABLE_IN_PROCESS_WAIT_MS = 'soon';
      expect(() => withDurableExecution(async () => 1)).toThrow(/DURABLE_IN_PROCESS_WAIT_MS/);
    } finally {
      if (before === undefined) delete process.env.DURABLE_IN_PROCESS_WAIT_MS;
      else process.env.DURABLE_IN_PROCESS_WAIT_MS = before;
    }
  });
});
