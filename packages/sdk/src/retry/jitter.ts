/**
 * How a computed retry delay is randomized (compat with AWS's SDK). Randomizing spreads the
 * retries of many runs that failed together, so they do not all hit a recovering service at once.
 */
export const JitterStrategy = {
  /** Uniform between 0 and the computed delay. */
  FULL: 'FULL',
  /** Uniform between half the computed delay and the computed delay. */
  HALF: 'HALF',
  /** Exactly the computed delay. */
  NONE: 'NONE',
} as const;
/** One of {@link JitterStrategy}'s values. */
export type JitterStrategy = (typeof JitterStrategy)[keyof typeof JitterStrategy];

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
