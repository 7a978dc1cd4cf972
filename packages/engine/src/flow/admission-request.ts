/**
 * Checks an {@link AdmissionRequest} as the engine receives it (the SDK checks the user's options
 * first; this guards every other caller): each gate's key, whole numbers in range, a mode it knows.
 */
import type { AdmissionRequest } from '@durable-lambda/protocol';
import { EngineInputError } from '../errors';

/** The longest flow-control key, in characters. */
export const FLOW_KEY_MAX = 256;
/** The shortest period of `throttle`, `rateLimit` and `debounce`, ms. */
export const MIN_PERIOD_MS = 1_000;
/** The longest period (and debounce timeout), ms: 7 days. */
export const MAX_PERIOD_MS = 7 * 86_400_000;
/** The largest `rateLimit.limit` (its log of starts is kept whole). */
export const RATE_LIMIT_MAX = 1_000;
/** The largest priority magnitude. */
export const MAX_PRIORITY = 1_000_000;

/** Throws an {@link EngineInputError} naming the first field of `request` that is wrong. */
export function checkAdmission(request: AdmissionRequest): void {
  const { concurrency, throttle, rateLimit, debounce, singleton } = request;
  if (!concurrency && !throttle && !rateLimit && !debounce && !singleton) {
    throw new EngineInputError('admission', 'must name at least one gate');
  }
  if (concurrency && singleton) {
    throw new EngineInputError('singleton', 'cannot be combined with concurrency (a singleton is a concurrency of 1)');
  }
  if (concurrency) {
    checkKey(concurrency.key, 'concurrency.key');
    checkWhole(concurrency.limit, 'concurrency.limit', 1, Number.MAX_SAFE_INTEGER);
    if (concurrency.priority !== undefined) {
      checkWhole(concurrency.priority, 'concurrency.priority', -MAX_PRIORITY, MAX_PRIORITY);
    }
  }
  for (const [name, rate] of [
    ['throttle', throttle],
    ['rateLimit', rateLimit],
  ] as const) {
    if (!rate) continue;
    checkKey(rate.key, `${name}.key`);
    checkWhole(rate.limit, `${name}.limit`, 1, name === 'rateLimit' ? RATE_LIMIT_MAX : 1_000_000);
    checkWhole(rate.periodMs, `${name}.periodMs`, MIN_PERIOD_MS, MAX_PERIOD_MS);
  }
  if (throttle?.burst !== undefined) checkWhole(throttle.burst, 'throttle.burst', 1, throttle.limit);
  if (debounce) {
    checkKey(debounce.key, 'debounce.key');
    checkWhole(debounce.periodMs, 'debounce.periodMs', MIN_PERIOD_MS, MAX_PERIOD_MS);
    if (debounce.timeoutMs !== undefined) {
      checkWhole(debounce.timeoutMs, 'debounce.timeoutMs', debounce.periodMs, MAX_PERIOD_MS);
    }
  }
  if (singleton) {
    checkKey(singleton.key, 'singleton.key');
    if (singleton.mode !== 'skip' && singleton.mode !== 'cancel') {
      throw new EngineInputError('singleton.mode', "must be 'skip' or 'cancel'");
    }
  }
}

function checkKey(key: unknown, field: string): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > FLOW_KEY_MAX) {
    throw new EngineInputError(field, `must give a string of 1 to ${FLOW_KEY_MAX} characters`);
  }
}

function checkWhole(value: unknown, field: string, min: number, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new EngineInputError(field, `must be a whole number from ${min} to ${max}, got ${String(value)}`);
  }
}
