import { toAwsOperation } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import { type TestError, toTestError, withHidden } from './test-errors';

/** A failed attempt of a step, oldest first (ours: AWS keeps no such history). */
export interface FailedAttempt {
  attempt: number;
  timestamp: Date;
  error: TestError | undefined;
}

/**
 * Details of a step: exactly AWS's four fields; `failedAttempts` is ours, non-enumerable (so
 * `toEqual` against AWS's shape passes).
 */
export interface StepDetails<T = unknown> {
  /** Attempts finished so far, as AWS counts them (undefined before the first one ends). */
  readonly attempt: number | undefined;
  readonly nextAttemptTimestamp: Date | undefined;
  /** The result, parsed as JSON when it is JSON (else the raw string), as AWS does. */
  readonly result: T | undefined;
  readonly error: TestError | undefined;
  /** Ours (non-enumerable): the attempts that failed before, oldest first. */
  readonly failedAttempts: readonly FailedAttempt[];
}

/** Details of a wait (AWS's `WaitResultDetails`). */
export interface WaitResultDetails {
  readonly waitSeconds?: number;
  readonly scheduledEndTimestamp?: Date;
}

/** Our earlier name of {@link WaitResultDetails}, with both fields always set. */
export interface WaitDetails extends WaitResultDetails {
  readonly waitSeconds: number;
  readonly scheduledEndTimestamp: Date;
}

/**
 * Details of a callback: AWS's `callbackId`, `result`, `error`; the deadlines are ours,
 * non-enumerable.
 */
export interface CallbackDetails<T = unknown> {
  readonly callbackId: string;
  /** The completion's payload, parsed as JSON when it is JSON (else the raw string), as AWS does. */
  readonly result?: T | undefined;
  readonly error?: TestError | undefined;
  /** Ours (non-enumerable). */
  readonly timeoutTimestamp?: Date | undefined;
  /** Ours (non-enumerable). */
  readonly heartbeatDeadline?: Date | undefined;
}

/** Details of a child context. */
export interface ContextDetails<T = unknown> {
  readonly result: T | undefined;
  readonly error: TestError | undefined;
}

/** Details of a chained invoke (`context.invoke`). */
export interface ChainedInvokeDetails<T = unknown> {
  readonly result?: T | undefined;
  readonly error?: TestError | undefined;
}

/** JSON when it parses, else the raw string: AWS's `tryJsonParse`. */
export function parseLoose<T>(data: string | undefined): T | undefined {
  if (data === undefined) return undefined;
  try {
    return JSON.parse(data) as T;
  } catch {
    return data as T;
  }
}

const date = (t: number | undefined) => (t === undefined ? undefined : new Date(t));

/** A step's details as AWS shows them (attempts counted as AWS counts them), our history hidden. */
export function stepDetailsOf<T>(op: Operation): StepDetails<T> {
  const d = op.StepDetails;
  const aws = toAwsOperation(op).StepDetails;
  return withHidden(
    {
      attempt: aws?.Attempt,
      nextAttemptTimestamp: date(d?.NextAttemptTimestamp),
      result: parseLoose<T>(d?.Result),
      error: toTestError(d?.Error),
    },
    {
      failedAttempts: (d?.FailedAttempts ?? []).map((f) => ({
        attempt: f.Attempt,
        timestamp: new Date(f.Timestamp),
        error: toTestError(f.Error),
      })),
    },
  );
}

/** A wait's length (seconds) and scheduled end. */
export function waitDetailsOf(op: Operation): WaitDetails {
  const end = op.WaitDetails?.ScheduledEndTimestamp ?? op.StartTimestamp;
  return { waitSeconds: (end - op.StartTimestamp) / 1000, scheduledEndTimestamp: new Date(end) };
}

/** A child context's result (JSON-parsed when it is JSON) or error. */
export function contextDetailsOf<T>(op: Operation): ContextDetails<T> {
  return { result: parseLoose<T>(op.ContextDetails?.Result), error: toTestError(op.ContextDetails?.Error) };
}

/** A callback's id and outcome as AWS shows them, our deadlines hidden. */
export function callbackDetailsOf<T>(op: Operation): CallbackDetails<T> {
  const d = op.CallbackDetails;
  if (d?.CallbackId === undefined) throw new Error('Could not find callback ID in callback details');
  return withHidden(
    { callbackId: d.CallbackId, error: toTestError(d.Error), result: parseLoose<T>(d.Result) },
    { timeoutTimestamp: date(d.TimeoutTimestamp), heartbeatDeadline: date(d.HeartbeatDeadline) },
  );
}

/** A chained invoke's result (strictly JSON-parsed, as AWS) or error. */
export function chainedInvokeDetailsOf<T>(op: Operation): ChainedInvokeDetails<T> {
  const d = op.ChainedInvokeDetails;
  let result: T | undefined;
  try {
    // AWS parses strictly here (unlike its other details) and says so when it cannot.
    result = d?.Result ? (JSON.parse(d.Result) as T) : undefined;
  } catch (cause) {
    throw new Error('Could not parse result for invoke details', { cause });
  }
  // An invoked function's failure reaches AWS's service with the stack Lambda reported for it.
  return { error: toTestError(d?.Error, { keepStack: true }), result };
}
