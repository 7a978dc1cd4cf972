import { type Duration, describe, durationToMs, ONE_DAY_MS } from './duration';
import { InvalidArgumentError } from './errors/invalid-argument';
import type { Serdes } from './types/serdes';
import { StepSemantics } from './types/step';

export type { DurableExecutionConfig } from './types/config';
export type { ChildConfig, ChildContextConfig, StepConfig, StepDefaults } from './types/step';
export { StepSemantics } from './types/step';

/** Defaults of the runtime knobs. */
export const RUNTIME_DEFAULTS = {
  inProcessWaitMs: 5_000,
  maxPayloadBytes: 6 * 1024 * 1024,
} as const;

const NAME_MAX = 256;
// Control characters would corrupt logs and schedule names.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/** Validates an operation name (optional): a string of 1–256 characters without control characters. */
export function parseName(value: unknown, field = 'name'): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new InvalidArgumentError(field, `must be a string, got ${describe(value)}`);
  if (value.length === 0) throw new InvalidArgumentError(field, 'must not be empty');
  if (value.length > NAME_MAX) throw new InvalidArgumentError(field, `must be at most ${NAME_MAX} characters`);
  if (CONTROL_CHARS.test(value)) throw new InvalidArgumentError(field, 'must not contain control characters');
  return value;
}

/** Validates a step timeout (1 s to 24 h) and returns it in ms. */
export function parseTimeout(value: Duration | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  return durationToMs(value, field, { maxMs: ONE_DAY_MS });
}

/** Validates step semantics. */
export function parseSemantics(value: unknown, field: string): StepSemantics | undefined {
  if (value === undefined) return undefined;
  if (value !== StepSemantics.AtLeastOncePerRetry && value !== StepSemantics.AtMostOncePerRetry) {
    throw new InvalidArgumentError(
      field,
      `must be StepSemantics.AtLeastOncePerRetry or AtMostOncePerRetry, got ${describe(value)}`,
    );
  }
  return value;
}

/** Validates that a config argument is a plain object (or absent). */
export function parseConfigObject(value: unknown, field: string, allowed: readonly string[]): void {
  if (value === undefined) return;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidArgumentError(field, `must be an object, got ${describe(value)}`);
  }
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key))
      throw new InvalidArgumentError(`${field}.${key}`, `unknown option (allowed: ${allowed.join(', ')})`);
  }
}

/** Validates a non-negative number knob. */
export function parseNonNegative(value: unknown, field: string, fallback: number): number;
export function parseNonNegative(value: unknown, field: string, fallback?: number): number | undefined;
export function parseNonNegative(value: unknown, field: string, fallback?: number): number | undefined {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new InvalidArgumentError(field, `must be a number >= 0, got ${describe(value)}`);
  }
  return value;
}

/** Validates a serdes option. */
export function parseSerdes<T>(value: unknown, field: string): Serdes<T> | undefined {
  if (value === undefined) return undefined;
  const s = value as Partial<Serdes<T>>;
  if (typeof s !== 'object' || s === null || typeof s.serialize !== 'function' || typeof s.deserialize !== 'function') {
    throw new InvalidArgumentError(field, 'must have serialize and deserialize functions');
  }
  return value as Serdes<T>;
}
