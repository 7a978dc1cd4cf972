import type { DurableBackend } from '@durable-lambda/protocol';
import { type Duration, describe, durationToMs, ONE_DAY_MS } from './duration';
import { InvalidArgumentError } from './errors';
import type { LogSink } from './logger';
import type { RetryPolicy, RetryStrategy } from './retry';
import type { Serdes } from './serdes';

/** How often a step's code may run per attempt (compat with AWS's SDK). */
export const StepSemantics = {
  /** The default: the code may run again if the invocation dies before its result is stored. */
  AtLeastOncePerRetry: 'AT_LEAST_ONCE_PER_RETRY',
  /** The attempt's start is stored first; a lost attempt is never re-run, it fails. */
  AtMostOncePerRetry: 'AT_MOST_ONCE_PER_RETRY',
} as const;
/** One of {@link StepSemantics}. */
export type StepSemantics = (typeof StepSemantics)[keyof typeof StepSemantics];

/** Retry, timeout and semantics settings shared by a step and a function's defaults. */
export interface StepDefaults {
  /** A compat retry strategy (`createRetryStrategy`, a preset, or your own function). */
  retryStrategy?: RetryStrategy;
  /** Ours: a plain retry policy; fields left out keep the default strategy's values. */
  retry?: RetryPolicy;
  /** Ours: the longest one attempt may run (at most 24 h); then it fails with `step_timeout`. */
  timeout?: Duration;
  /** Defaults to `AtLeastOncePerRetry`. */
  semantics?: StepSemantics;
}

/** Configuration of one step. */
export interface StepConfig<T> extends StepDefaults {
  /** How the result is stored; JSON by default. */
  serdes?: Serdes<T>;
}

/** Configuration of a child context. */
export interface ChildContextConfig<T> {
  /** How the result is stored; JSON by default. */
  serdes?: Serdes<T>;
  /** A label kept with the operation (compat). */
  subType?: string;
}

/** Configuration of `withDurableExecution`. */
export interface DurableExecutionConfig extends StepDefaults {
  /**
   * Where runs live. Left out, the production backend (DynamoDB, EventBridge Scheduler, Lambda)
   * is loaded from `@durable-lambda/aws` and configured from the environment.
   */
  backend?: DurableBackend;
  /** Waits and backoffs due within this many ms sleep in-process instead of suspending. Default 5000. */
  inProcessWaitMs?: number;
  /**
   * Opt-in, trading a guarantee for a write: an at-least-once step's START is written only once
   * the attempt has run this long (ms). Left out (the default), every attempt's START is durable
   * before its code runs, so an invocation lost inside any step is a failed attempt of that step
   * (`invocation_lost`) and the next attempt gets a new number and idempotency key. With
   * `lazyStartMs`, a crash inside a step shorter than it re-runs the same attempt with the same
   * key and spends no retry budget (once per run: after a lost invocation, starts are eager).
   * The default costs no extra write request per step on DynamoDB (a step's outcome rides with
   * the next step's START), only the START's item in that transaction.
   */
  lazyStartMs?: number;
  /** Largest serialized result of a step, context or run, in bytes. Default 6 MiB. */
  maxPayloadBytes?: number;
  /** Where log entries go; one JSON line per entry on stdout by default. */
  logSink?: LogSink;
}

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
