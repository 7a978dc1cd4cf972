import { JitterStrategy } from '../types/retry';

export { JitterStrategy } from '../types/retry';

const JITTER_VALUES: readonly string[] = Object.values(JitterStrategy);

/** Whether `value` is one of {@link JitterStrategy}'s values. */
export function isJitterStrategy(value: unknown): value is JitterStrategy {
  return typeof value === 'string' && JITTER_VALUES.includes(value);
}

/**
 * Applies `jitter` to a base delay (any unit; the result is in the same unit).
 * `random` returns a number in [0, 1), like `Math.random`; tests pass a seeded one.
 */
export function applyJitter(delay: number, jitter: JitterStrategy, random: () => number = Math.random): number {
  switch (jitter) {
    case JitterStrategy.FULL:
      return random() * delay;
    case JitterStrategy.HALF:
      return delay / 2 + (random() * delay) / 2;
    case JitterStrategy.NONE:
      return delay;
  }
}
