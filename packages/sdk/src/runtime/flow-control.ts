/**
 * Flow control as `withDurableExecution` declares it (`concurrency`, `throttle`, `rateLimit`,
 * `debounce`, `singleton`): the options checked once, at wrap time, and, for each run, the
 * admission request its backend decides on (`DurableInvocation.admit`), with the run's keys and
 * priority computed from its input.
 */
import type { AdmissionRequest } from '@durable-lambda/protocol';
import { parseConfigObject } from '../config';
import { durationToMs } from '../duration';
import { InvalidArgumentError } from '../errors/invalid-argument';
import type { DurableExecutionConfig, FlowKey } from '../types/config';

/** The longest key, in characters (the engine's bound too). */
const KEY_MAX = 256;
/** The key of a gate declared without `key`: one for the whole function. */
export const WHOLE_FUNCTION_KEY = '*';
/** The longest period or debounce timeout (the engine's bound too). */
const PERIOD_MAX_MS = 7 * 86_400_000;
const PRIORITY_MAX = 1_000_000;

/** A gate as parsed: its key function, and the rest of its request as the engine takes it. */
interface Gate<T> {
  field: string;
  key: FlowKey | undefined;
  request: T;
}

/** The flow control of a function, parsed; undefined when it declares none. */
export interface FlowControl {
  concurrency?: Gate<{ limit: number }> & { priority?: (event: unknown) => number };
  throttle?: Gate<{ limit: number; periodMs: number; burst?: number }>;
  rateLimit?: Gate<{ limit: number; periodMs: number }>;
  debounce?: Gate<{ periodMs: number; timeoutMs?: number }>;
  singleton?: Gate<{ mode: 'skip' | 'cancel' }>;
}

/** A function's flow-control limits, as a driver lists them (the engine's `FunctionLimits`). */
export interface DeclaredLimits {
  concurrency?: { limit: number };
  throttle?: { limit: number; periodMs: number; burst?: number };
  rateLimit?: { limit: number; periodMs: number };
  debounce?: { periodMs: number; timeoutMs?: number };
  singleton?: { mode: 'skip' | 'cancel' };
  priority?: boolean;
}

/** The limits `flow` declares, without its per-run keys. */
export function declaredLimits(flow: FlowControl): DeclaredLimits {
  return {
    ...(flow.concurrency ? { concurrency: { ...flow.concurrency.request } } : {}),
    ...(flow.concurrency?.priority ? { priority: true } : {}),
    ...(flow.throttle ? { throttle: { ...flow.throttle.request } } : {}),
    ...(flow.rateLimit ? { rateLimit: { ...flow.rateLimit.request } } : {}),
    ...(flow.debounce ? { debounce: { ...flow.debounce.request } } : {}),
    ...(flow.singleton ? { singleton: { ...flow.singleton.request } } : {}),
  };
}

/** Checks the flow-control options of `config`, naming the field of the first that is wrong. */
export function parseFlowControl(config: DurableExecutionConfig): FlowControl | undefined {
  const flow: FlowControl = {};
  if (config.concurrency !== undefined) {
    const f = 'config.concurrency';
    parseConfigObject(config.concurrency, f, ['key', 'limit', 'priority']);
    const { key, limit, priority } = config.concurrency;
    if (typeof key !== 'function') throw new InvalidArgumentError(`${f}.key`, 'must be a function of the input');
    if (priority !== undefined && typeof priority !== 'function') {
      throw new InvalidArgumentError(`${f}.priority`, 'must be a function of the input');
    }
    flow.concurrency = {
      field: f,
      key,
      request: { limit: whole(limit, `${f}.limit`, 1) },
      ...(priority ? { priority } : {}),
    };
  }
  if (config.throttle !== undefined) {
    const f = 'config.throttle';
    parseConfigObject(config.throttle, f, ['key', 'limit', 'period', 'burst']);
    const limit = whole(config.throttle.limit, `${f}.limit`, 1, 1_000_000);
    const burst =
      config.throttle.burst === undefined ? undefined : whole(config.throttle.burst, `${f}.burst`, 1, limit);
    flow.throttle = {
      field: f,
      key: keyFunction(config.throttle.key, `${f}.key`),
      request: { limit, periodMs: period(config.throttle.period, `${f}.period`), ...(burst ? { burst } : {}) },
    };
  }
  if (config.rateLimit !== undefined) {
    const f = 'config.rateLimit';
    parseConfigObject(config.rateLimit, f, ['key', 'limit', 'period']);
    flow.rateLimit = {
      field: f,
      key: keyFunction(config.rateLimit.key, `${f}.key`),
      request: {
        limit: whole(config.rateLimit.limit, `${f}.limit`, 1, 1_000),
        periodMs: period(config.rateLimit.period, `${f}.period`),
      },
    };
  }
  if (config.debounce !== undefined) {
    const f = 'config.debounce';
    parseConfigObject(config.debounce, f, ['key', 'period', 'timeout']);
    const periodMs = period(config.debounce.period, `${f}.period`);
    const timeoutMs =
      config.debounce.timeout === undefined ? undefined : period(config.debounce.timeout, `${f}.timeout`);
    if (timeoutMs !== undefined && timeoutMs < periodMs) {
      throw new InvalidArgumentError(`${f}.timeout`, 'must be at least the period');
    }
    flow.debounce = {
      field: f,
      key: keyFunction(config.debounce.key, `${f}.key`),
      request: { periodMs, ...(timeoutMs === undefined ? {} : { timeoutMs }) },
    };
  }
  if (config.singleton !== undefined) {
    const f = 'config.singleton';
    parseConfigObject(config.singleton, f, ['key', 'mode']);
    const { mode } = config.singleton;
    if (mode !== 'skip' && mode !== 'cancel') throw new InvalidArgumentError(`${f}.mode`, "must be 'skip' or 'cancel'");
    if (flow.concurrency) {
      throw new InvalidArgumentError(
        f,
        'cannot be combined with config.concurrency (a singleton is a concurrency of 1)',
      );
    }
    flow.singleton = { field: f, key: keyFunction(config.singleton.key, `${f}.key`), request: { mode } };
  }
  return Object.keys(flow).length === 0 ? undefined : flow;
}

/** The admission request of a run whose input is `event`; a key or priority function that fails fails the run. */
export function admissionOf(flow: FlowControl, event: unknown): AdmissionRequest {
  const request: {
    -readonly [K in keyof AdmissionRequest]: AdmissionRequest[K];
  } = {};
  if (flow.concurrency) {
    const { priority } = flow.concurrency;
    // Given whenever the function declares one (0 too), so its limits say it queues by priority.
    request.concurrency = {
      key: keyOf(flow.concurrency, event),
      ...flow.concurrency.request,
      ...(priority ? { priority: priorityOf(priority, event, `${flow.concurrency.field}.priority`) } : {}),
    };
  }
  if (flow.throttle) request.throttle = { key: keyOf(flow.throttle, event), ...flow.throttle.request };
  if (flow.rateLimit) request.rateLimit = { key: keyOf(flow.rateLimit, event), ...flow.rateLimit.request };
  if (flow.debounce) request.debounce = { key: keyOf(flow.debounce, event), ...flow.debounce.request };
  if (flow.singleton) request.singleton = { key: keyOf(flow.singleton, event), ...flow.singleton.request };
  return request;
}

function keyFunction(key: unknown, field: string): FlowKey | undefined {
  if (key === undefined) return undefined;
  if (typeof key !== 'function') throw new InvalidArgumentError(field, 'must be a function of the input');
  return key as FlowKey;
}

function whole(value: unknown, field: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
    throw new InvalidArgumentError(field, `must be a whole number ${range}, got ${String(value)}`);
  }
  return value;
}

function period(value: unknown, field: string): number {
  return durationToMs(value, field, { maxMs: PERIOD_MAX_MS });
}

/** The run's key under `gate`: a string of 1-256 characters, else the run fails. */
function keyOf(gate: Gate<unknown>, event: unknown): string {
  if (!gate.key) return WHOLE_FUNCTION_KEY;
  const field = `${gate.field}.key`;
  let key: unknown;
  try {
    key = gate.key(event);
  } catch (error) {
    throw new InvalidArgumentError(field, `threw: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof key !== 'string' || key.length === 0 || key.length > KEY_MAX) {
    throw new InvalidArgumentError(
      field,
      `must return a string of 1 to ${KEY_MAX} characters, got ${typeof key === 'string' ? `${key.length} characters` : typeof key}`,
    );
  }
  return key;
}

function priorityOf(priority: (event: unknown) => number, event: unknown, field: string): number {
  let value: unknown;
  try {
    value = priority(event);
  } catch (error) {
    throw new InvalidArgumentError(field, `threw: ${error instanceof Error ? error.message : String(error)}`);
  }
  return whole(value, field, -PRIORITY_MAX, PRIORITY_MAX);
}
