import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidArgumentError } from '../../../packages/sdk/src/errors';
import { DEFAULT_RETRY_STRATEGY, type RetryStrategy, retryPresets } from '../../../packages/sdk/src/retry';

/** Delays in seconds for attempts 1..n, or 'stop' where the strategy gives up. */
function delays(strategy: RetryStrategy, attempts: number): (number | 'stop')[] {
  const out: (number | 'stop')[] = [];
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const decision = strategy(new TypeError('boom'), attempt);
    out.push(decision.shouldRetry ? (decision.delay?.seconds ?? Number.NaN) : 'stop');
  }
  return out;
}

/** Presets use Math.random; pinning it makes their jitter observable and exact. */
function pinRandom(value: number): void {
  vi.spyOn(Math, 'random').mockReturnValue(value);
}

const TOP = 0.9999999;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('retryPresets.default', () => {
  it('makes 6 attempts with bases 5, 10, 20, 40, 60 s (60 s cap)', () => {
    pinRandom(TOP);
    expect(delays(retryPresets.default, 7)).toEqual([5, 10, 20, 40, 60, 'stop', 'stop']);
  });

  it('uses FULL jitter', () => {
    pinRandom(0.5);
    expect(delays(retryPresets.default, 6)).toEqual([3, 5, 10, 20, 30, 'stop']);
    pinRandom(0);
    expect(delays(retryPresets.default, 6)).toEqual([1, 1, 1, 1, 1, 'stop']);
  });

  it('is the strategy used when nothing is configured', () => {
    expect(DEFAULT_RETRY_STRATEGY).toBe(retryPresets.default);
  });
});

describe('retryPresets.linear', () => {
  it('makes 6 attempts with delays 1, 2, 3, 4, 5 s and no jitter', () => {
    pinRandom(0);
    expect(delays(retryPresets.linear, 7)).toEqual([1, 2, 3, 4, 5, 'stop', 'stop']);
  });
});

describe('retryPresets.noRetry', () => {
  it('fails on the first error', () => {
    expect(retryPresets.noRetry(new Error('x'), 1)).toEqual({ shouldRetry: false });
  });
});

describe('retryPresets.transient', () => {
  it('makes 3 attempts from 5 s, ×2, with HALF jitter', () => {
    pinRandom(0);
    expect(delays(retryPresets.transient, 4)).toEqual([3, 5, 'stop', 'stop']);
    pinRandom(TOP);
    expect(delays(retryPresets.transient, 3)).toEqual([5, 10, 'stop']);
  });
});

describe('retryPresets.resourceAvailability', () => {
  it('makes 5 attempts from 5 s, ×2, with FULL jitter', () => {
    pinRandom(TOP);
    expect(delays(retryPresets.resourceAvailability, 6)).toEqual([5, 10, 20, 40, 'stop', 'stop']);
    pinRandom(0.5);
    expect(delays(retryPresets.resourceAvailability, 5)).toEqual([3, 5, 10, 20, 'stop']);
  });
});

describe('retryPresets.critical', () => {
  it('makes 10 attempts from 1 s, ×1.5, no jitter, rounded to whole seconds', () => {
    pinRandom(0);
    // 1, 1.5, 2.25, 3.375, 5.06, 7.59, 11.39, 17.09, 25.63 s
    expect(delays(retryPresets.critical, 11)).toEqual([1, 2, 2, 3, 5, 8, 11, 17, 26, 'stop', 'stop']);
  });
});

describe('retryPresets.fixed', () => {
  it('defaults to 5 attempts 5 s apart, no jitter', () => {
    pinRandom(0);
    expect(delays(retryPresets.fixed(), 6)).toEqual([5, 5, 5, 5, 'stop', 'stop']);
  });

  it('takes the interval as a Duration', () => {
    pinRandom(0);
    expect(delays(retryPresets.fixed({ minutes: 2 }), 5)).toEqual([120, 120, 120, 120, 'stop']);
  });

  it('rejects an interval below 1 s or above 24 h, naming it', () => {
    for (const interval of [{ seconds: 0 }, { hours: 25 }, { seconds: -5 }]) {
      let error: unknown;
      try {
        retryPresets.fixed(interval);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect((error as InvalidArgumentError).field).toMatch(/^interval/);
    }
  });
});

describe('retryPresets object', () => {
  it('is frozen, so no caller can swap the default for everyone', () => {
    expect(Object.isFrozen(retryPresets)).toBe(true);
  });
});
