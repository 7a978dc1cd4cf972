import { InvalidArgumentError } from './errors/invalid-argument';

export type { Duration } from './types/duration';

const UNIT_MS = { days: 86_400_000, hours: 3_600_000, minutes: 60_000, seconds: 1_000 } as const;
type Unit = keyof typeof UNIT_MS;
const UNITS = Object.keys(UNIT_MS) as Unit[];

/** Bounds for {@link durationToMs}. */
export interface DurationBounds {
  /** Accept a zero duration (default false: at least 1 s). */
  allowZero?: boolean;
  /** Largest accepted value in ms. */
  maxMs?: number;
}

/**
 * Validates a Duration and returns it in ms. `field` names the argument in the error, which is
 * an {@link InvalidArgumentError} with code `invalid_argument`.
 */
export function durationToMs(value: unknown, field: string, bounds: DurationBounds = {}): number {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidArgumentError(field, `expected a Duration like { seconds: 30 }, got ${describe(value)}`);
  }
  let total = 0;
  let any = false;
  for (const [key, amount] of Object.entries(value)) {
    if (!(UNITS as string[]).includes(key)) {
      throw new InvalidArgumentError(field, `unknown Duration unit "${key}" (use days, hours, minutes, seconds)`);
    }
    if (amount === undefined) continue;
    if (typeof amount !== 'number' || !Number.isInteger(amount) || amount < 0) {
      throw new InvalidArgumentError(`${field}.${key}`, `must be a whole number >= 0, got ${describe(amount)}`);
    }
    any = true;
    total += amount * UNIT_MS[key as Unit];
  }
  if (!any) throw new InvalidArgumentError(field, 'a Duration needs at least one of days, hours, minutes, seconds');
  if (total === 0 && !bounds.allowZero) throw new InvalidArgumentError(field, 'must be at least 1 second');
  if (bounds.maxMs !== undefined && total > bounds.maxMs) {
    throw new InvalidArgumentError(field, `must be at most ${formatMs(bounds.maxMs)}, got ${formatMs(total)}`);
  }
  return total;
}

/** Renders ms as a short human string (`90s`, `2h`, `1d 3h`). */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join(' ');
}

/** Describes a bad value for an error message without dumping it whole. */
export function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'bigint') return `${value}n`;
  try {
    const s = JSON.stringify(value);
    return s === undefined ? String(value) : s.length > 60 ? `${s.slice(0, 57)}...` : s;
  } catch {
    return String(value);
  }
}

/** One day, the longest delay or step timeout we accept. */
export const ONE_DAY_MS = UNIT_MS.days;
/** One year (365 days), the longest durable wait. */
export const ONE_YEAR_MS = 365 * UNIT_MS.days;
