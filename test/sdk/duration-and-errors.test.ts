import { describe, expect, it } from 'vitest';
import { durationToMs, ONE_DAY_MS } from '../../packages/sdk/src/duration';
import {
  causeChain,
  findInChain,
  InvalidArgumentError,
  NonRetriableError,
  RetryAfterError,
} from '../../packages/sdk/src/errors';

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

describe('durationToMs', () => {
  it('sums every unit into ms', () => {
    expect(durationToMs({ days: 1, hours: 1, minutes: 1, seconds: 1 }, 'd')).toBe(90_061_000);
    expect(durationToMs({ seconds: 30 }, 'd')).toBe(30_000);
  });

  it('rejects a non-integer amount, naming the unit', () => {
    expect(invalid(() => durationToMs({ seconds: 1.5 }, 'timeout')).field).toBe('timeout.seconds');
  });

  it('rejects a negative amount, naming the unit', () => {
    expect(invalid(() => durationToMs({ minutes: -1 }, 'timeout')).field).toBe('timeout.minutes');
  });

  it('rejects a non-number amount', () => {
    expect(invalid(() => durationToMs({ seconds: '5' }, 'timeout')).field).toBe('timeout.seconds');
    expect(invalid(() => durationToMs({ seconds: Number.NaN }, 'timeout')).field).toBe('timeout.seconds');
  });

  it('rejects an unknown unit', () => {
    const error = invalid(() => durationToMs({ weeks: 1 }, 'timeout'));
    expect(error.field).toBe('timeout');
    expect(error.message).toContain('weeks');
  });

  it('rejects an empty Duration, and one whose units are all undefined', () => {
    expect(invalid(() => durationToMs({}, 'timeout')).field).toBe('timeout');
    expect(invalid(() => durationToMs({ seconds: undefined }, 'timeout')).field).toBe('timeout');
  });

  it('rejects a value that is not a Duration object', () => {
    for (const bad of [5, null, undefined, 'PT5S', [1]]) {
      expect(invalid(() => durationToMs(bad, 'timeout')).field).toBe('timeout');
    }
  });

  it('rejects zero unless allowZero is set', () => {
    expect(invalid(() => durationToMs({ seconds: 0 }, 'timeout')).field).toBe('timeout');
    expect(durationToMs({ seconds: 0 }, 'timeout', { allowZero: true })).toBe(0);
  });

  it('accepts exactly maxMs and rejects anything above', () => {
    expect(durationToMs({ days: 1 }, 'timeout', { maxMs: ONE_DAY_MS })).toBe(ONE_DAY_MS);
    expect(invalid(() => durationToMs({ days: 1, seconds: 1 }, 'timeout', { maxMs: ONE_DAY_MS })).field).toBe(
      'timeout',
    );
  });

  it('raises errors with code invalid_argument and the field in the message', () => {
    const error = invalid(() => durationToMs({}, 'step.timeout'));
    expect(error.code).toBe('invalid_argument');
    expect(error.message.startsWith('step.timeout: ')).toBe(true);
    expect(error.name).toBe('InvalidArgumentError');
  });
});

describe('RetryAfterError', () => {
  it('keeps a delay given in ms', () => {
    expect(new RetryAfterError('429', 1500).delayMs).toBe(1500);
  });

  it('converts a Duration delay to ms', () => {
    expect(new RetryAfterError('429', { minutes: 2, seconds: 3 }).delayMs).toBe(123_000);
  });

  it('accepts the bounds 0 and 24 h', () => {
    expect(new RetryAfterError('now', 0).delayMs).toBe(0);
    expect(new RetryAfterError('now', { seconds: 0 }).delayMs).toBe(0);
    expect(new RetryAfterError('later', ONE_DAY_MS).delayMs).toBe(ONE_DAY_MS);
    expect(new RetryAfterError('later', { hours: 24 }).delayMs).toBe(ONE_DAY_MS);
  });

  it.each([
    ['a negative ms delay', -1],
    ['a ms delay above 24 h', ONE_DAY_MS + 1],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a Duration above 24 h', { hours: 24, seconds: 1 }],
    ['a Duration with a negative amount', { seconds: -1 }],
    ['a Duration with an unknown unit', { weeks: 1 }],
  ])('rejects %s', (_label, delay) => {
    expect(invalid(() => new RetryAfterError('429', delay as number)).field).toMatch(/^delay/);
  });

  it('has a stable name and code and keeps its cause', () => {
    const cause = new Error('HTTP 429');
    const error = new RetryAfterError('slow down', 10, { cause });
    expect(error.name).toBe('RetryAfterError');
    expect(error.code).toBe('retry_after');
    expect(error.cause).toBe(cause);
  });
});

describe('NonRetriableError', () => {
  it('has code non_retriable and keeps its cause', () => {
    const cause = new Error('bad card');
    const error = new NonRetriableError('declined', { cause });
    expect(error.code).toBe('non_retriable');
    expect(error.name).toBe('NonRetriableError');
    expect(error.cause).toBe(cause);
  });
});

describe('findInChain and causeChain', () => {
  it('finds an error of the class directly or anywhere down the cause chain', () => {
    const inner = new NonRetriableError('no');
    expect(findInChain(inner, NonRetriableError)).toBe(inner);
    expect(findInChain(new Error('a', { cause: new Error('b', { cause: inner }) }), NonRetriableError)).toBe(inner);
  });

  it('returns undefined when the chain has no such error, or for non-errors', () => {
    expect(findInChain(new Error('a', { cause: new Error('b') }), NonRetriableError)).toBeUndefined();
    expect(findInChain('text', NonRetriableError)).toBeUndefined();
    expect(findInChain(undefined, NonRetriableError)).toBeUndefined();
  });

  it('stops on a cyclic cause chain', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as Error & { cause?: unknown }).cause = b;
    expect([...causeChain(a)]).toEqual([a, b]);
    expect(findInChain(a, NonRetriableError)).toBeUndefined();
  });
});
