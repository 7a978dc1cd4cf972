import type { DurablePromise } from './durable-promise';
import type { Duration } from './duration';
import type { RetryStrategy } from './retry';
import type { Serdes } from './serdes';
import type { StepContext } from './step';

/** Configuration of `createCallback` (compat). */
export interface CreateCallbackConfig<T = string> {
  /** The longest the callback may wait for its completion (up to a year). */
  timeout?: Duration;
  /** The callback times out unless a heartbeat arrives at least this often. */
  heartbeatTimeout?: Duration;
  /** Reads the completion's payload; by default the payload string is returned as is. */
  serdes?: Pick<Serdes<T>, 'deserialize'>;
}

/**
 * `[promise, callbackId]`: the promise settles when the callback is completed from outside. It
 * is a {@link DurablePromise} (AWS's): nothing waits for the callback until it is awaited.
 */
export type CreateCallbackResult<T = string> = [DurablePromise<T>, string];

/** Hands a callback id to an outside system; runs as a step with retries. */
export type WaitForCallbackSubmitter = (callbackId: string, context: StepContext) => Promise<void> | void;
/** AWS's name for {@link WaitForCallbackSubmitter}. */
export type WaitForCallbackSubmitterFunc<_Logger = unknown> = WaitForCallbackSubmitter;

/** Configuration of `waitForCallback` (compat). */
export interface WaitForCallbackConfig<T = string> extends CreateCallbackConfig<T> {
  /** Retries of the submitter step. */
  retryStrategy?: RetryStrategy;
}
