import { withDurableExecution } from '@durable-lambda/sdk';
import { describe, expect, it } from 'vitest';

const ok = async () => 'ok';
const wrap = (options: Record<string, unknown>) => (): unknown => withDurableExecution(ok, options);

describe('the flow-control options are checked at wrap time, naming the field', () => {
  it.each([
    [{ throttle: { limit: 0, period: { seconds: 1 } } }, 'config.throttle.limit'],
    [{ throttle: { limit: 2, period: { seconds: 0 } } }, 'config.throttle.period'],
    [{ throttle: { limit: 2, period: { days: 8 } } }, 'config.throttle.period'],
    [{ throttle: { limit: 2, period: { seconds: 1 }, burst: 3 } }, 'config.throttle.burst'],
    [{ throttle: { limit: 2, period: { seconds: 1 }, key: 'tenant' } }, 'config.throttle.key'],
    [{ throttle: { limit: 2, period: { seconds: 1 }, every: 1 } }, 'config.throttle.every'],
    [{ rateLimit: { limit: 1_001, period: { minutes: 1 } } }, 'config.rateLimit.limit'],
    [{ rateLimit: { limit: 5 } }, 'config.rateLimit.period'],
    [{ debounce: { period: { seconds: 10 }, timeout: { seconds: 5 } } }, 'config.debounce.timeout'],
    [{ debounce: {} }, 'config.debounce.period'],
    [{ singleton: { mode: 'queue' } }, 'config.singleton.mode'],
    [{ singleton: { mode: 'skip' }, concurrency: { key: (): string => 'k', limit: 1 } }, 'config.singleton'],
    [{ concurrency: { key: (): string => 'k', limit: 1, priority: 3 } }, 'config.concurrency.priority'],
  ])('%j is refused naming %s', (options, field) => {
    expect(wrap(options)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(wrap(options)).toThrow(field);
  });

  it('accepts each gate alone and the gates together (but singleton with concurrency)', () => {
    const period = { seconds: 30 };
    expect(wrap({ throttle: { limit: 10, period, burst: 5, key: () => 'k' } })).not.toThrow();
    expect(wrap({ rateLimit: { limit: 1_000, period } })).not.toThrow();
    expect(wrap({ debounce: { period, timeout: { minutes: 5 } } })).not.toThrow();
    expect(wrap({ singleton: { mode: 'cancel' } })).not.toThrow();
    expect(
      wrap({
        debounce: { period },
        rateLimit: { limit: 5, period },
        throttle: { limit: 5, period },
        concurrency: { key: () => 'k', limit: 2, priority: () => 1 },
      }),
    ).not.toThrow();
  });
});
