import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, NonRetriableError, RetryAfterError } from '../../../packages/sdk/src/errors';
import {
  createRetryStrategy,
  JitterStrategy,
  type ResolvedRetry,
  type RetryDecision,
  type RetrySettings,
  type RetryStrategy,
  resolveRetry,
} from '../../../packages/sdk/src/retry';
import { mulberry32 } from '../../support/seeded-random';

/** The InvalidArgumentError that `fn` throws. */
function invalid(fn: () => unknown): InvalidArgumentError {
  try {
    fn();
  } catch (error) {
    if (error instanceof InvalidArgumentError) return error;
    throw error;
  }
  throw new Error('expected an InvalidArgumentError, nothing was thrown');
}

/** Delay in ms per attempt 1..n, or 'stop'. */
function delaysMs(resolved: ResolvedRetry, attempts: number, error: unknown = new Error('boom')): (number | 'stop')[] {
  const out: (number | 'stop')[] = [];
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const verdict = resolved(error, attempt);
    out.push(verdict.retry ? verdict.delayMs : 'stop');
  }
  return out;
}

const half = () => 0.5;
const policy = (retry: unknown): RetrySettings => ({ retry: retry as RetrySettings['retry'] });
const always: RetryStrategy = () => ({ shouldRetry: true, delay: { seconds: 7 } });

describe('plain retry policy: defaults', () => {
  it('fields left out keep the default strategy values: 6 attempts, 5000 ms, ×2, 60000 ms cap', () => {
    const resolved = resolveRetry(policy({ jitter: 'NONE' }), undefined, 'config');
    expect(delaysMs(resolved, 7)).toEqual([5000, 10000, 20000, 40000, 60000, 'stop', 'stop']);
  });

  it('jitter defaults to FULL', () => {
    const resolved = resolveRetry(policy({ maxAttempts: 3 }), undefined, 'config', half);
    expect(delaysMs(resolved, 3)).toEqual([2500, 5000, 'stop']);
  });

  it('an empty policy behaves like the default strategy but in exact ms', () => {
    const resolved = resolveRetry(policy({}), undefined, 'config', half);
    expect(delaysMs(resolved, 6)).toEqual([2500, 5000, 10000, 20000, 30000, 'stop']);
  });
});

describe('plain retry policy: delays', () => {
  it('computes min(initialMs × multiplier^(attempt−1), maxMs) in ms, without rounding', () => {
    const resolved = resolveRetry(
      policy({ maxAttempts: 8, initialMs: 100, multiplier: 1.5, maxMs: 1000, jitter: 'NONE' }),
      undefined,
      'config',
    );
    expect(delaysMs(resolved, 8)).toEqual([100, 150, 225, 337.5, 506.25, 759.375, 1000, 'stop']);
  });

  it('has no 1 s floor: a zero initial delay retries at once', () => {
    const resolved = resolveRetry(policy({ initialMs: 0, maxAttempts: 3 }), undefined, 'config');
    expect(delaysMs(resolved, 3)).toEqual([0, 0, 'stop']);
    const small = resolveRetry(policy({ initialMs: 20, jitter: 'NONE', maxAttempts: 2 }), undefined, 'config');
    expect(delaysMs(small, 1)).toEqual([20]);
  });

  it('FULL jitter with a seeded random gives r × base exactly', () => {
    const resolved = resolveRetry(policy({ initialMs: 1000, maxAttempts: 5 }), undefined, 'c', mulberry32(42));
    const twin = mulberry32(42);
    const got = delaysMs(resolved, 4) as number[];
    expect(got).toEqual([1000, 2000, 4000, 8000].map((b) => twin() * b));
    expect(got[0]).toBeCloseTo(601.1037519, 5);
    got.forEach((ms, i) => {
      expect(ms).toBeGreaterThanOrEqual(0);
      expect(ms).toBeLessThanOrEqual(1000 * 2 ** i);
    });
  });

  it('HALF jitter with a seeded random gives base/2 + r × base/2 exactly', () => {
    const resolved = resolveRetry(policy({ initialMs: 1000, jitter: 'HALF' }), undefined, 'c', mulberry32(42));
    const twin = mulberry32(42);
    const got = delaysMs(resolved, 3) as number[];
    expect(got).toEqual([1000, 2000, 4000].map((b) => b / 2 + (twin() * b) / 2));
    expect(got[0]).toBeCloseTo(800.5518759, 5);
    got.forEach((ms, i) => {
      expect(ms).toBeGreaterThanOrEqual(500 * 2 ** i);
      expect(ms).toBeLessThanOrEqual(1000 * 2 ** i);
    });
  });

  it('stops once the attempt reaches maxAttempts', () => {
    expect(delaysMs(resolveRetry(policy({ maxAttempts: 1 }), undefined, 'c'), 2)).toEqual(['stop', 'stop']);
    const two = resolveRetry(policy({ maxAttempts: 2, jitter: 'NONE' }), undefined, 'c');
    expect(delaysMs(two, 3)).toEqual([5000, 'stop', 'stop']);
  });
});

describe('plain retry policy: ranges', () => {
  it.each([
    ['maxAttempts', 1],
    ['maxAttempts', 100],
    ['initialMs', 0],
    ['initialMs', 3_600_000],
    ['maxMs', 0],
    ['maxMs', 86_400_000],
    ['multiplier', 1],
    ['multiplier', 10],
    ['jitter', 'HALF'],
  ])('accepts %s = %j', (key, value) => {
    expect(() => resolveRetry(policy({ [key]: value }), undefined, 'config')).not.toThrow();
  });

  it.each([
    ['maxAttempts', 0],
    ['maxAttempts', 101],
    ['maxAttempts', 2.5],
    ['maxAttempts', '3'],
    ['initialMs', -1],
    ['initialMs', -0.001],
    ['initialMs', Number.POSITIVE_INFINITY],
    ['initialMs', Number.NaN],
    ['maxMs', -1],
    ['maxMs', 86_400_001],
    ['multiplier', 0.99],
    ['multiplier', 10.01],
    ['multiplier', Number.NaN],
    ['jitter', 'half'],
    ['jitter', 1],
  ])('rejects %s = %j naming the field', (key, value) => {
    const error = invalid(() => resolveRetry(policy({ [key]: value }), undefined, 'config'));
    expect(error.field).toBe(`config.retry.${key}`);
    expect(error.code).toBe('invalid_argument');
  });

  it('just inside the bounds still gives working delays', () => {
    const resolved = resolveRetry(
      policy({ maxAttempts: 100, initialMs: 0.5, maxMs: 86_400_000, multiplier: 10, jitter: 'NONE' }),
      undefined,
      'config',
    );
    expect(resolved(new Error('x'), 99)).toEqual({ retry: true, delayMs: 86_400_000 });
    expect(resolved(new Error('x'), 100)).toEqual({ retry: false });
    expect(resolved(new Error('x'), 2)).toEqual({ retry: true, delayMs: 5 });
  });

  it('rejects an unknown key', () => {
    expect(invalid(() => resolveRetry(policy({ maxAttempt: 3 }), undefined, 'config')).field).toBe(
      'config.retry.maxAttempt',
    );
  });

  it('rejects a policy that is not an object', () => {
    for (const bad of [3, null, [], 'fast']) {
      expect(invalid(() => resolveRetry(policy(bad), undefined, 'config')).field).toBe('config.retry');
    }
  });

  it('an empty field prefix gives bare field names like retry.maxAttempts', () => {
    expect(invalid(() => resolveRetry(policy({ maxAttempts: 0 }), undefined, '')).field).toBe('retry.maxAttempts');
  });

  it('validates the function-level policy too, saying so in the message', () => {
    const error = invalid(() => resolveRetry({ retry: { maxAttempts: 3 } }, policy({ multiplier: 20 }), 'config'));
    expect(error.field).toBe('config.retry.multiplier');
    expect(error.message).toContain('function-level');
  });
});

describe('resolveRetry: levels', () => {
  it('rejects retryStrategy and retry together at the step level', () => {
    const error = invalid(() => resolveRetry({ retryStrategy: always, retry: {} }, undefined, 'config'));
    expect(error.field).toBe('config.retry');
  });

  it('rejects retryStrategy and retry together at the function level', () => {
    const error = invalid(() => resolveRetry(undefined, { retryStrategy: always, retry: {} }, 'config'));
    expect(error.field).toBe('config.retry');
  });

  it('rejects a retryStrategy that is not a function', () => {
    const error = invalid(() => resolveRetry({ retryStrategy: { maxAttempts: 3 } as never }, undefined, 'config'));
    expect(error.field).toBe('config.retryStrategy');
  });

  it('the step level wins over the function level', () => {
    const stepWins = resolveRetry(policy({ maxAttempts: 2 }), policy({ maxAttempts: 5 }), 'config');
    expect(stepWins(new Error('x'), 2)).toEqual({ retry: false });
    const strategyWins = resolveRetry({ retryStrategy: always }, policy({ maxAttempts: 1 }), 'config');
    expect(strategyWins(new Error('x'), 1)).toEqual({ retry: true, delayMs: 7000 });
  });

  it('the function level applies when the step configures no retries', () => {
    const noStep = resolveRetry(undefined, policy({ maxAttempts: 1 }), 'config');
    expect(noStep(new Error('x'), 1)).toEqual({ retry: false });
    const stepWithOtherSettings = resolveRetry({}, { retryStrategy: always }, 'config');
    expect(stepWithOtherSettings(new Error('x'), 1)).toEqual({ retry: true, delayMs: 7000 });
  });

  it("a step policy's left-out fields come from the default strategy, not from the function level", () => {
    const resolved = resolveRetry(policy({ maxAttempts: 3 }), policy({ initialMs: 100, jitter: 'NONE' }), 'c', half);
    expect(resolved(new Error('x'), 1)).toEqual({ retry: true, delayMs: 2500 });
  });

  it('with neither level configured, the default strategy applies: 6 attempts, 5 s ×2 up to 60 s, FULL jitter', () => {
    const resolved = resolveRetry(undefined, undefined, 'config', half);
    expect(delaysMs(resolved, 7)).toEqual([3000, 5000, 10000, 20000, 30000, 'stop', 'stop']);
  });

  it('rejects a random that is not a function', () => {
    expect(invalid(() => resolveRetry(undefined, undefined, 'c', 0.5 as never)).field).toBe('random');
  });

  it('rejects an attempt that is not a whole number >= 1', () => {
    expect(invalid(() => resolveRetry(undefined, undefined, 'c')(new Error('x'), 0)).field).toBe('attempt');
  });
});

describe('resolveRetry: custom strategies', () => {
  it('passes the error and the 1-based attempt through and converts the delay to ms', () => {
    const seen: [Error, number][] = [];
    const strategy: RetryStrategy = (error, attempt) => {
      seen.push([error, attempt]);
      return { shouldRetry: true, delay: { minutes: 1, seconds: 5 } };
    };
    const error = new Error('x');
    expect(resolveRetry({ retryStrategy: strategy }, undefined, 'c')(error, 3)).toEqual({
      retry: true,
      delayMs: 65_000,
    });
    expect(seen).toEqual([[error, 3]]);
  });

  it('wraps a thrown non-Error in an Error, keeping the message and the original as cause', () => {
    let received: Error | undefined;
    const strategy: RetryStrategy = (error) => {
      received = error;
      return { shouldRetry: false };
    };
    const resolved = resolveRetry({ retryStrategy: strategy }, undefined, 'c');
    resolved('rate limited', 1);
    expect(received).toBeInstanceOf(Error);
    expect(received?.message).toBe('rate limited');
    expect(received?.cause).toBe('rate limited');
    const thrownObject = { message: 'object thrown', status: 503 };
    resolved(thrownObject, 1);
    expect(received?.message).toBe('object thrown');
    expect(received?.cause).toBe(thrownObject);
  });

  it('lets message filters of createRetryStrategy work on thrown strings', () => {
    const resolved = resolveRetry(
      { retryStrategy: createRetryStrategy({ retryableErrors: ['busy'] }) },
      undefined,
      'c',
    );
    expect(resolved('server busy', 1).retry).toBe(true);
    expect(resolved('broken', 1).retry).toBe(false);
  });

  it('a retry without a delay waits 1 s; a zero delay is allowed', () => {
    expect(resolveRetry({ retryStrategy: () => ({ shouldRetry: true }) }, undefined, 'c')(new Error('x'), 1)).toEqual({
      retry: true,
      delayMs: 1000,
    });
    const zero: RetryStrategy = () => ({ shouldRetry: true, delay: { seconds: 0 } });
    expect(resolveRetry({ retryStrategy: zero }, undefined, 'c')(new Error('x'), 1)).toEqual({
      retry: true,
      delayMs: 0,
    });
  });

  it('a strategy that throws is reported as a misconfiguration naming retryStrategy', () => {
    const resolved = resolveRetry(
      {
        retryStrategy: () => {
          throw new Error('oops');
        },
      },
      undefined,
      'config',
    );
    const error = invalid(() => resolved(new Error('x'), 1));
    expect(error.field).toBe('config.retryStrategy');
    expect(error.message).toContain('oops');
  });

  it.each([
    ['undefined', undefined],
    ['a boolean', true],
    ['a non-boolean shouldRetry', { shouldRetry: 'yes' }],
  ])('a strategy returning %s is reported naming retryStrategy', (_label, decision) => {
    const resolved = resolveRetry({ retryStrategy: () => decision as unknown as RetryDecision }, undefined, 'config');
    expect(invalid(() => resolved(new Error('x'), 1)).field).toBe('config.retryStrategy');
  });

  it('a strategy returning an invalid delay is reported naming retryStrategy', () => {
    for (const delay of [{ seconds: -1 }, { seconds: 1.5 }, { weeks: 1 }, {}, { days: 366 }]) {
      const resolved = resolveRetry(
        { retryStrategy: () => ({ shouldRetry: true, delay }) as RetryDecision },
        undefined,
        'c',
      );
      expect(invalid(() => resolved(new Error('x'), 1)).field).toMatch(/^c\.retryStrategy/);
    }
  });
});

describe('resolveRetry: NonRetriableError', () => {
  const shapes: [string, () => unknown][] = [
    ['directly', () => new NonRetriableError('no')],
    ['as a cause', () => new Error('wrapped', { cause: new NonRetriableError('no') })],
    ['as a cause of a cause', () => new Error('a', { cause: new Error('b', { cause: new NonRetriableError('no') }) })],
  ];

  it.each(shapes)('stops a plain policy when thrown %s', (_label, make) => {
    expect(resolveRetry(policy({}), undefined, 'c')(make(), 1)).toEqual({ retry: false });
  });

  it.each(shapes)('stops even a strategy that always retries when thrown %s', (_label, make) => {
    expect(resolveRetry({ retryStrategy: always }, undefined, 'c')(make(), 1)).toEqual({ retry: false });
  });

  it('stops the default strategy and wins over a RetryAfterError in the same chain', () => {
    expect(resolveRetry(undefined, undefined, 'c')(new NonRetriableError('no'), 1)).toEqual({ retry: false });
    const both = new NonRetriableError('no', { cause: new RetryAfterError('later', 1000) });
    expect(resolveRetry(policy({}), undefined, 'c')(both, 1)).toEqual({ retry: false });
  });
});

describe('resolveRetry: RetryAfterError', () => {
  const shapes: [string, (ms: number) => unknown][] = [
    ['directly', (ms) => new RetryAfterError('429', ms)],
    ['as a cause', (ms) => new Error('call failed', { cause: new RetryAfterError('429', ms) })],
  ];

  it.each(shapes)('sets exactly the delay of a plain policy when thrown %s', (_label, make) => {
    const resolved = resolveRetry(policy({ initialMs: 10 }), undefined, 'c', half);
    expect(resolved(make(1234), 1)).toEqual({ retry: true, delayMs: 1234 });
    expect(resolved(make(0), 2)).toEqual({ retry: true, delayMs: 0 });
  });

  it.each(shapes)('sets exactly the delay of a strategy when thrown %s', (_label, make) => {
    expect(resolveRetry({ retryStrategy: always }, undefined, 'c')(make(2500), 1)).toEqual({
      retry: true,
      delayMs: 2500,
    });
    expect(resolveRetry(undefined, undefined, 'c', half)(make(750), 1)).toEqual({ retry: true, delayMs: 750 });
  });

  it('accepts a Duration delay', () => {
    const error = new RetryAfterError('429', { minutes: 2 });
    expect(resolveRetry(policy({}), undefined, 'c')(error, 1)).toEqual({ retry: true, delayMs: 120_000 });
  });

  it('still respects the attempt budget of a policy and of a strategy', () => {
    const error = new RetryAfterError('429', 1000);
    expect(resolveRetry(policy({ maxAttempts: 2 }), undefined, 'c')(error, 2)).toEqual({ retry: false });
    const strategy = createRetryStrategy({ maxAttempts: 2 });
    expect(resolveRetry({ retryStrategy: strategy }, undefined, 'c')(error, 2)).toEqual({ retry: false });
    expect(resolveRetry(undefined, undefined, 'c')(error, 6)).toEqual({ retry: false });
  });

  it('does not override a strategy that decides to stop', () => {
    const never: RetryStrategy = () => ({ shouldRetry: false });
    expect(resolveRetry({ retryStrategy: never }, undefined, 'c')(new RetryAfterError('429', 10), 1)).toEqual({
      retry: false,
    });
  });

  it('is retried by a filtered createRetryStrategy even when its filters do not match', () => {
    class Other extends Error {}
    const strategy = createRetryStrategy({ retryableErrorTypes: [Other], jitter: JitterStrategy.NONE });
    const resolved = resolveRetry({ retryStrategy: strategy }, undefined, 'c');
    expect(resolved(new Error('x', { cause: new RetryAfterError('429', 321) }), 1)).toEqual({
      retry: true,
      delayMs: 321,
    });
    expect(resolved(new Error('x'), 1)).toEqual({ retry: false });
  });
});
