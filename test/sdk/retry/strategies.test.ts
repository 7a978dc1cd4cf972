import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, NonRetriableError, RetryAfterError } from '../../../packages/sdk/src/errors';
import {
  createLinearRetryStrategy,
  createRetryStrategy,
  JitterStrategy,
  type RetryStrategy,
} from '../../../packages/sdk/src/retry';
import { applyJitter } from '../../../packages/sdk/src/retry/jitter';
import { mulberry32 } from '../../support/seeded-random';

/** The field of the InvalidArgumentError that `fn` throws. */
function invalidField(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof InvalidArgumentError) return error.field;
    throw error;
  }
  throw new Error('expected an InvalidArgumentError, nothing was thrown');
}

/** Delays in seconds for attempts 1..n, or 'stop' where the strategy gives up. */
function delays(strategy: RetryStrategy, attempts: number, error: Error = new Error('boom')): (number | 'stop')[] {
  const out: (number | 'stop')[] = [];
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const decision = strategy(error, attempt);
    out.push(decision.shouldRetry ? (decision.delay?.seconds ?? Number.NaN) : 'stop');
  }
  return out;
}

const half = () => 0.5;

describe('JitterStrategy and applyJitter', () => {
  it('exposes the compat string values FULL, HALF and NONE', () => {
    expect(JitterStrategy).toEqual({ FULL: 'FULL', HALF: 'HALF', NONE: 'NONE' });
  });

  it('FULL scales the delay by random, HALF maps random onto the upper half, NONE ignores random', () => {
    expect(applyJitter(1000, JitterStrategy.FULL, () => 0.25)).toBe(250);
    expect(applyJitter(1000, JitterStrategy.FULL, () => 0)).toBe(0);
    expect(applyJitter(1000, JitterStrategy.HALF, () => 0)).toBe(500);
    expect(applyJitter(1000, JitterStrategy.HALF, () => 0.5)).toBe(750);
    expect(applyJitter(1000, JitterStrategy.NONE, () => 0.25)).toBe(1000);
  });
});

describe('createRetryStrategy defaults', () => {
  it('makes 3 attempts: two retries, then stops', () => {
    expect(delays(createRetryStrategy({ jitter: JitterStrategy.NONE }), 4)).toEqual([5, 10, 'stop', 'stop']);
  });

  it('starts at 5 s and doubles, with FULL jitter by default', () => {
    // random 0.5 under FULL halves each base delay: 2.5 s rounds to 3 s, 10 s halves to 5 s.
    expect(delays(createRetryStrategy({ random: half }), 3)).toEqual([3, 5, 'stop']);
  });

  it('caps the delay at 5 minutes by default', () => {
    const strategy = createRetryStrategy({ maxAttempts: 9, jitter: JitterStrategy.NONE });
    expect(delays(strategy, 9)).toEqual([5, 10, 20, 40, 80, 160, 300, 300, 'stop']);
  });

  it('retries every kind of error when no filter is set', () => {
    const strategy = createRetryStrategy({ jitter: JitterStrategy.NONE });
    for (const error of [new Error('x'), new TypeError('y'), new RangeError('z')]) {
      expect(strategy(error, 1)).toEqual({ shouldRetry: true, delay: { seconds: 5 } });
    }
  });
});

describe('createRetryStrategy delays', () => {
  it('computes initialDelay × backoffRate^(attempt−1) exactly with NONE', () => {
    const strategy = createRetryStrategy({
      maxAttempts: 5,
      initialDelay: { seconds: 2 },
      backoffRate: 3,
      jitter: JitterStrategy.NONE,
    });
    expect(delays(strategy, 5)).toEqual([2, 6, 18, 54, 'stop']);
  });

  it('caps the base delay at maxDelay', () => {
    const strategy = createRetryStrategy({
      maxAttempts: 6,
      initialDelay: { seconds: 10 },
      maxDelay: { seconds: 30 },
      jitter: JitterStrategy.NONE,
    });
    expect(delays(strategy, 6)).toEqual([10, 20, 30, 30, 30, 'stop']);
  });

  it('rounds fractional delays to whole seconds', () => {
    const strategy = createRetryStrategy({
      maxAttempts: 5,
      initialDelay: { seconds: 1 },
      backoffRate: 1.5,
      jitter: JitterStrategy.NONE,
    });
    // 1, 1.5, 2.25, 3.375 s
    expect(delays(strategy, 4)).toEqual([1, 2, 2, 3]);
  });

  it('never returns less than 1 second, even when jitter or a zero initial delay gives 0', () => {
    expect(delays(createRetryStrategy({ maxAttempts: 4, random: () => 0 }), 3)).toEqual([1, 1, 1]);
    // 0.09 × 5 s = 0.45 s, which would round to 0.
    expect(createRetryStrategy({ random: () => 0.09 })(new Error('x'), 1).delay).toEqual({ seconds: 1 });
    const zeroStart = createRetryStrategy({ initialDelay: { seconds: 0 }, jitter: JitterStrategy.NONE });
    expect(delays(zeroStart, 2)).toEqual([1, 1]);
  });

  it('keeps the delay at maxDelay instead of overflowing for huge attempt numbers', () => {
    const strategy = createRetryStrategy({ maxAttempts: 5000, jitter: JitterStrategy.NONE });
    expect(strategy(new Error('x'), 4000).delay).toEqual({ seconds: 300 });
    const zeroStart = createRetryStrategy({ maxAttempts: 5000, initialDelay: { seconds: 0 }, jitter: 'NONE' });
    expect(zeroStart(new Error('x'), 4000).delay).toEqual({ seconds: 1 });
  });

  it('FULL jitter with a seeded random gives reproducible delays between 1 s and the base delay', () => {
    const config = { maxAttempts: 10, jitter: JitterStrategy.FULL } as const;
    const got = delays(createRetryStrategy({ ...config, random: mulberry32(42) }), 9) as number[];
    const twin = mulberry32(42);
    const bases = [5, 10, 20, 40, 80, 160, 300, 300, 300];
    expect(got).toEqual(bases.map((base) => Math.max(1, Math.round(twin() * base))));
    expect(got).toEqual([3, 4, 17, 27, 14, 84, 82, 187, 260]);
    got.forEach((seconds, i) => {
      expect(seconds).toBeGreaterThanOrEqual(1);
      expect(seconds).toBeLessThanOrEqual(bases[i] ?? 0);
    });
  });

  it('HALF jitter with a seeded random gives reproducible delays between half the base delay and the base delay', () => {
    const config = { maxAttempts: 10, jitter: JitterStrategy.HALF } as const;
    const got = delays(createRetryStrategy({ ...config, random: mulberry32(7) }), 9) as number[];
    const twin = mulberry32(7);
    const bases = [5, 10, 20, 40, 80, 160, 300, 300, 300];
    expect(got).toEqual(bases.map((base) => Math.max(1, Math.round(base / 2 + (twin() * base) / 2))));
    expect(got).toEqual([3, 5, 20, 34, 61, 112, 220, 186, 233]);
    got.forEach((seconds, i) => {
      const base = bases[i] ?? 0;
      expect(seconds).toBeGreaterThanOrEqual(Math.round(base / 2));
      expect(seconds).toBeLessThanOrEqual(base);
    });
  });

  it('FULL jitter spreads delays across the whole range; HALF keeps them in the upper half', () => {
    const random = mulberry32(2024);
    const full = createRetryStrategy({ maxAttempts: 2, initialDelay: { seconds: 100 }, random });
    const halfJitter = createRetryStrategy({ maxAttempts: 2, initialDelay: { seconds: 100 }, jitter: 'HALF', random });
    const fullDelays = Array.from({ length: 500 }, () => full(new Error('x'), 1).delay?.seconds ?? -1);
    const halfDelays = Array.from({ length: 500 }, () => halfJitter(new Error('x'), 1).delay?.seconds ?? -1);
    expect(Math.min(...fullDelays)).toBeLessThan(10);
    expect(Math.max(...fullDelays)).toBeGreaterThan(90);
    expect(Math.min(...halfDelays)).toBeGreaterThanOrEqual(50);
    expect(Math.min(...halfDelays)).toBeLessThan(55);
    expect(Math.max(...halfDelays)).toBeLessThanOrEqual(100);
  });
});

describe('createRetryStrategy attempt budget', () => {
  it('stops once attemptCount reaches maxAttempts', () => {
    const strategy = createRetryStrategy({ maxAttempts: 4, jitter: JitterStrategy.NONE });
    expect(delays(strategy, 6)).toEqual([5, 10, 20, 'stop', 'stop', 'stop']);
  });

  it('maxAttempts 1 never retries', () => {
    expect(createRetryStrategy({ maxAttempts: 1 })(new Error('x'), 1)).toEqual({ shouldRetry: false });
  });

  it('rejects an attemptCount that is not a whole number >= 1', () => {
    const strategy = createRetryStrategy();
    expect(invalidField(() => strategy(new Error('x'), 0))).toBe('attemptCount');
    expect(invalidField(() => strategy(new Error('x'), 1.5))).toBe('attemptCount');
  });

  it('does not retry a NonRetriableError, directly or as a cause', () => {
    const strategy = createRetryStrategy();
    expect(strategy(new NonRetriableError('no'), 1).shouldRetry).toBe(false);
    expect(strategy(new Error('wrapped', { cause: new NonRetriableError('no') }), 1).shouldRetry).toBe(false);
  });
});

describe('createRetryStrategy error filters', () => {
  class TimeoutError extends Error {}
  class SlowTimeoutError extends TimeoutError {}
  class QuotaError extends Error {
    constructor(
      message: string,
      readonly quota: number,
    ) {
      super(message);
    }
  }
  const retries = (strategy: RetryStrategy, error: Error) => strategy(error, 1).shouldRetry;

  it('retryableErrors strings match as substrings of the message', () => {
    const strategy = createRetryStrategy({ retryableErrors: ['timeout', 'ECONNRESET'] });
    expect(retries(strategy, new Error('request timeout after 3s'))).toBe(true);
    expect(retries(strategy, new Error('read ECONNRESET'))).toBe(true);
    expect(retries(strategy, new Error('bad input'))).toBe(false);
    expect(retries(strategy, new Error('Timeout'))).toBe(false);
  });

  it('retryableErrors RegExp patterns are tested against the message', () => {
    const strategy = createRetryStrategy({ retryableErrors: [/^5\d\d /, /throttl/i] });
    expect(retries(strategy, new Error('503 unavailable'))).toBe(true);
    expect(retries(strategy, new Error('Request THROTTLED'))).toBe(true);
    expect(retries(strategy, new Error('HTTP 503 unavailable'))).toBe(false);
  });

  it('a global RegExp gives the same answer on every call', () => {
    const strategy = createRetryStrategy({ retryableErrors: [/busy/g] });
    expect([1, 2, 3].map(() => retries(strategy, new Error('server busy')))).toEqual([true, true, true]);
  });

  it('retryableErrorTypes match with instanceof, subclasses included', () => {
    const strategy = createRetryStrategy({ retryableErrorTypes: [TimeoutError, QuotaError] });
    expect(retries(strategy, new TimeoutError('t'))).toBe(true);
    expect(retries(strategy, new SlowTimeoutError('t'))).toBe(true);
    expect(retries(strategy, new QuotaError('q', 5))).toBe(true);
    expect(retries(strategy, new Error('timeout'))).toBe(false);
  });

  it('with both filters an error is retried when it matches either', () => {
    const strategy = createRetryStrategy({ retryableErrors: ['throttled'], retryableErrorTypes: [TimeoutError] });
    expect(retries(strategy, new Error('throttled'))).toBe(true);
    expect(retries(strategy, new TimeoutError('anything'))).toBe(true);
    expect(retries(strategy, new Error('anything'))).toBe(false);
  });

  it('an explicitly empty filter list retries nothing', () => {
    expect(retries(createRetryStrategy({ retryableErrors: [] }), new Error('x'))).toBe(false);
    expect(retries(createRetryStrategy({ retryableErrorTypes: [] }), new Error('x'))).toBe(false);
  });

  it('a RetryAfterError passes the filters, directly or as a cause', () => {
    const strategy = createRetryStrategy({ retryableErrorTypes: [TimeoutError] });
    expect(retries(strategy, new RetryAfterError('429', 1000))).toBe(true);
    expect(retries(strategy, new Error('429', { cause: new RetryAfterError('slow down', 1000) }))).toBe(true);
  });

  it('filters are copied at creation, so mutating the arrays later changes nothing', () => {
    const patterns: (string | RegExp)[] = ['timeout'];
    const strategy = createRetryStrategy({ retryableErrors: patterns });
    patterns.push('bad input');
    expect(retries(strategy, new Error('bad input'))).toBe(false);
  });
});

describe('createRetryStrategy validation', () => {
  it.each([
    ['maxAttempts', { maxAttempts: 0 }],
    ['maxAttempts', { maxAttempts: 2.5 }],
    ['maxAttempts', { maxAttempts: Number.NaN }],
    ['maxAttempts', { maxAttempts: '3' }],
    ['backoffRate', { backoffRate: 0.99 }],
    ['backoffRate', { backoffRate: Number.POSITIVE_INFINITY }],
    ['backoffRate', { backoffRate: Number.NaN }],
    ['initialDelay.seconds', { initialDelay: { seconds: -1 } }],
    ['initialDelay', { initialDelay: { weeks: 1 } }],
    ['initialDelay', { initialDelay: { days: 2 } }],
    ['maxDelay', { maxDelay: { seconds: 0 } }],
    ['maxDelay', { maxDelay: { hours: 25 } }],
    ['jitter', { jitter: 'full' }],
    ['retryableErrors', { retryableErrors: 'timeout' }],
    ['retryableErrors', { retryableErrors: [42] }],
    ['retryableErrorTypes', { retryableErrorTypes: Error }],
    ['retryableErrorTypes', { retryableErrorTypes: [{}] }],
    ['random', { random: 0.5 }],
    ['config', null],
  ])('rejects a bad %s at creation: %j', (field, config) => {
    expect(invalidField(() => createRetryStrategy(config as never))).toBe(field);
  });

  it('accepts the bounds: 1 attempt, backoffRate 1, zero initial delay, 24 h max delay', () => {
    const strategy = createRetryStrategy({
      maxAttempts: 2,
      backoffRate: 1,
      initialDelay: { seconds: 0 },
      maxDelay: { hours: 24 },
    });
    expect(strategy(new Error('x'), 1).shouldRetry).toBe(true);
    expect(createRetryStrategy({ maxAttempts: 1 })(new Error('x'), 1).shouldRetry).toBe(false);
  });
});

describe('createLinearRetryStrategy', () => {
  it('defaults to 6 attempts, 1 s plus 1 s per retry', () => {
    const strategy = createLinearRetryStrategy({ jitter: JitterStrategy.NONE });
    expect(delays(strategy, 7)).toEqual([1, 2, 3, 4, 5, 'stop', 'stop']);
  });

  it('uses FULL jitter by default', () => {
    // Bases 1..5 s halved by random 0.5: 0.5→1 (floor), 1, 1.5→2, 2, 2.5→3.
    expect(delays(createLinearRetryStrategy({ random: half }), 6)).toEqual([1, 1, 2, 2, 3, 'stop']);
  });

  it('caps at 5 minutes by default', () => {
    const strategy = createLinearRetryStrategy({ maxAttempts: 8, increment: { minutes: 1 }, jitter: 'NONE' });
    expect(delays(strategy, 7)).toEqual([1, 61, 121, 181, 241, 300, 300]);
  });

  it('computes initialDelay + increment × (attempt−1) exactly, capped at maxDelay', () => {
    const strategy = createLinearRetryStrategy({
      maxAttempts: 6,
      initialDelay: { seconds: 2 },
      increment: { seconds: 3 },
      maxDelay: { seconds: 10 },
      jitter: JitterStrategy.NONE,
    });
    expect(delays(strategy, 6)).toEqual([2, 5, 8, 10, 10, 'stop']);
  });

  it('a zero increment gives a constant delay', () => {
    const strategy = createLinearRetryStrategy({
      initialDelay: { seconds: 7 },
      increment: { seconds: 0 },
      jitter: 'NONE',
    });
    expect(delays(strategy, 3)).toEqual([7, 7, 7]);
  });

  it('HALF jitter with a seeded random gives exact, in-range delays', () => {
    const got = delays(
      createLinearRetryStrategy({ jitter: 'HALF', increment: { seconds: 10 }, random: mulberry32(3) }),
      5,
    );
    const twin = mulberry32(3);
    expect(got).toEqual([1, 11, 21, 31, 41].map((b) => Math.max(1, Math.round(b / 2 + (twin() * b) / 2))));
  });

  it('applies the same error filters', () => {
    const strategy = createLinearRetryStrategy({ retryableErrors: ['busy'] });
    expect(strategy(new Error('busy'), 1).shouldRetry).toBe(true);
    expect(strategy(new Error('broken'), 1).shouldRetry).toBe(false);
  });

  it.each([
    ['increment.seconds', { increment: { seconds: 1.5 } }],
    ['increment', { increment: {} }],
    ['maxAttempts', { maxAttempts: 0 }],
    ['maxDelay', { maxDelay: { seconds: 0 } }],
    ['jitter', { jitter: 'SOME' }],
  ])('rejects a bad %s at creation: %j', (field, config) => {
    expect(invalidField(() => createLinearRetryStrategy(config as never))).toBe(field);
  });
});
