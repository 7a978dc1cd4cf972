import { parseConfigObject, parseTimeout } from '../config';
import { describe } from '../duration';
import { InvalidArgumentError } from '../errors/invalid-argument';
import { type RetrySettings, resolveRetry } from '../retry';
import type { CompensateFunction, CompensationConfig, StepConfig } from '../types/step';

const COMPENSATION_KEYS = ['run', 'retryStrategy', 'retry', 'timeout'] as const;

/** A step's compensation, validated at the step's call. */
export interface PlannedCompensation {
  run: CompensateFunction<unknown>;
  /** The compensation step's own retry and timeout settings (the function's defaults fill the rest). */
  config: StepConfig<unknown>;
}

/** Validates `config.compensate`: a function, or `{ run, retryStrategy?, retry?, timeout? }`. */
export function parseCompensation(
  value: unknown,
  compensable: boolean,
  defaultRetry: RetrySettings | undefined,
): PlannedCompensation | undefined {
  if (value === undefined) return undefined;
  if (!compensable) {
    throw new InvalidArgumentError(
      'config.compensate',
      'not available in a map item, a parallel branch, waitForCallback or a child context with storeLargeResult: a finished one replays from its stored result without running its steps again, so their undo could not be registered again; run the step in the handler or in runInChildContext',
    );
  }
  if (typeof value === 'function') return { run: value as CompensateFunction<unknown>, config: {} };
  if (value === null || typeof value !== 'object' || typeof (value as { run?: unknown }).run !== 'function') {
    throw new InvalidArgumentError(
      'config.compensate',
      `must be a function or { run, retryStrategy?, retry?, timeout? }, got ${describe(value)}`,
    );
  }
  parseConfigObject(value, 'config.compensate', COMPENSATION_KEYS);
  const { run, retryStrategy, retry, timeout } = value as CompensationConfig<unknown>;
  // Validated now, at the step, not when the compensation first runs (maybe days later).
  resolveRetry({ retryStrategy, retry }, defaultRetry, 'config.compensate');
  parseTimeout(timeout, 'config.compensate.timeout');
  const config: StepConfig<unknown> = {};
  if (retryStrategy !== undefined) config.retryStrategy = retryStrategy;
  if (retry !== undefined) config.retry = retry;
  if (timeout !== undefined) config.timeout = timeout;
  return { run, config };
}
