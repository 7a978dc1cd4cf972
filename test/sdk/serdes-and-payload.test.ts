import { LocalDurableTestRunner } from '@durable-lambda/local';
import { type Serdes, type StepError, withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

async function stepFailure(value: () => unknown, config: { maxPayloadBytes?: number } = {}) {
  let attempts = 0;
  const handler = withDurableExecution(async (_e, ctx) => {
    try {
      await ctx.step('produce', async () => {
        attempts++;
        return value();
      });
      return 'no error';
    } catch (error) {
      return { name: (error as Error).name, code: (error as StepError).code, message: (error as Error).message };
    }
  }, config);
  const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
  return { error: result.getResult() as { name: string; code: string; message: string }, attempts };
}

describe('serdes and payload limits', () => {
  it('fails a step whose result is a BigInt with serdes_failed, without retrying or crashing', async () => {
    const { error, attempts } = await stepFailure(() => ({ total: 10n }));
    expect(error).toMatchObject({ name: 'StepError', code: 'serdes_failed' });
    expect(attempts).toBe(1);
  });

  it('fails a step whose result has a cycle with serdes_failed', async () => {
    const { error } = await stepFailure(() => {
      const a: Record<string, unknown> = {};
      a.self = a;
      return a;
    });
    expect(error.code).toBe('serdes_failed');
  });

  it('fails a step whose result holds a function with serdes_failed instead of dropping it', async () => {
    const { error } = await stepFailure(() => ({ callback: () => 1 }));
    expect(error.code).toBe('serdes_failed');
    expect(error.message).toContain('"callback"');
  });

  it('fails a result over the configured size limit with payload_too_large', async () => {
    const { error, attempts } = await stepFailure(() => 'x'.repeat(2000), { maxPayloadBytes: 1000 });
    expect(error.code).toBe('payload_too_large');
    expect(error.message).toContain('2002 bytes');
    expect(attempts).toBe(1);
  });

  it('fails the run with payload_too_large when its own result is over the limit', async () => {
    const handler = withDurableExecution(async () => 'y'.repeat(500), { maxPayloadBytes: 100 });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getStatus()).toBe('FAILED');
    expect(result.getError()?.code).toBe('payload_too_large');
  });

  it('stores results through a custom serdes and returns its deserialized value live and on replay', async () => {
    const dateSerdes: Serdes<Date> = {
      serialize: async (d) => (d === undefined ? undefined : String(d.getTime())),
      deserialize: async (s) => (s === undefined ? undefined : new Date(Number(s))),
    };
    const seen: unknown[] = [];
    const handler = withDurableExecution(async (_e, ctx) => {
      const d = await ctx.step('when', async () => new Date(86_400_000), { serdes: dateSerdes });
      seen.push(d);
      await ctx.wait({ seconds: 1 });
      return (d as Date).toISOString();
    });
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toBe('1970-01-02T00:00:00.000Z');
    expect(seen.every((d) => d instanceof Date)).toBe(true);
    expect(seen).toHaveLength(2);
  });
});

describe('error types of our own failures', () => {
  it('names serdes and size failures with public types, not an internal class', async () => {
    const handler = withDurableExecution(
      async (_e, ctx) => {
        const types: string[] = [];
        for (const value of [10n, 'z'.repeat(300)]) {
          await ctx
            .step(async () => value, { retry: { maxAttempts: 1 } })
            // AWS's shape: a StepError whose cause carries the original error's type.
            .catch((e) => types.push(((e as StepError).cause as Error).name));
        }
        return types;
      },
      { maxPayloadBytes: 100 },
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler }).run();
    expect(result.getResult()).toEqual(['SerdesError', 'PayloadTooLargeError']);
  });
});
