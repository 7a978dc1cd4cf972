import type { ErrorObject } from '@durable-lambda/protocol';
import { codeOf, ErrorCode, withCode } from './codes';
import { ChildContextError, DurableOperationError, StepError } from './durable-errors';

/** Walks an error and its `cause` chain (bounded, cycle-safe). */
export function* causeChain(error: unknown): Generator<unknown> {
  const seen = new Set<unknown>();
  let current: unknown = error;
  for (let depth = 0; depth < 16 && current !== undefined && current !== null && !seen.has(current); depth++) {
    seen.add(current);
    yield current;
    current = (current as { cause?: unknown }).cause;
  }
}

/** The first error of the given class in the chain, if any. */
export function findInChain<T>(error: unknown, ctor: abstract new (...args: never[]) => T): T | undefined {
  for (const e of causeChain(error)) if (e instanceof ctor) return e;
  return undefined;
}

function isErrorLike(value: unknown): value is { name: unknown; message: unknown } {
  return (
    value instanceof Error || (value !== null && typeof value === 'object' && 'message' in value && 'name' in value)
  );
}

/**
 * Turns anything thrown into a storable {@link ErrorObject}, by AWS's rules: a durable error
 * stores its class, message and data; another error its name and message; anything else
 * `Unknown error`. No stack trace is stored (AWS stores none). `ErrorCode` is ours: the error's
 * own `code`, else `fallbackCode`.
 */
export function toErrorObject(error: unknown, fallbackCode: string = ErrorCode.STEP_FAILED): ErrorObject {
  const code = codeOf(error) ?? fallbackCode;
  if (error instanceof DurableOperationError) {
    const { ErrorType, ErrorMessage, ErrorData } = error.toErrorObject();
    return {
      ...(ErrorType === undefined ? {} : { ErrorType }),
      ...(ErrorMessage === undefined ? {} : { ErrorMessage }),
      ErrorCode: code,
      ...(ErrorData === undefined ? {} : { ErrorData }),
    };
  }
  if (isErrorLike(error)) {
    return { ErrorType: String(error.name), ErrorMessage: String(error.message), ErrorCode: code };
  }
  return { ErrorMessage: 'Unknown error', ErrorCode: code };
}

/**
 * The error a handler sees for a stored failure (a step's, a waitForCondition's), the same live
 * and on replay: AWS's reconstruction by `ErrorType`, carrying the stored code.
 */
export function storedFailure(
  stored: ErrorObject | undefined,
  missing: () => DurableOperationError = () => new StepError('Unknown error'),
): DurableOperationError {
  return stored ? withCode(DurableOperationError.fromErrorObject(stored), stored.ErrorCode) : missing();
}

/** Maps the rebuilt failure of a CONTEXT operation to what its caller sees (AWS's `errorMapper`). */
export type ContextErrorMapper = (original: DurableOperationError) => DurableOperationError;

/**
 * The error a handler sees for a failed CONTEXT operation (a child context, a map item), by
 * AWS's rules: the stored error rebuilt, wrapped in a `ChildContextError` (or mapped), with the
 * stored code on both.
 */
export function contextFailure(stored: ErrorObject | undefined, mapper?: ContextErrorMapper): DurableOperationError {
  if (!stored) return withCode(new ChildContextError('Child context failed'), ErrorCode.CHILD_CONTEXT_FAILED);
  const original = storedFailure(stored);
  const mapped = mapper ? mapper(original) : new ChildContextError(original.message, original);
  return withCode(mapped, stored.ErrorCode ?? codeOf(mapped));
}

/**
 * Ours: an attempt's failure stored with the stack of the error user code threw (first 50
 * lines), for the dashboard, CLI and API. Only on the failed operation's own record, never on the
 * run's error, which keeps AWS's fields; AWS's SDK reads it back as the cause's stack, as ours does.
 */
export function withStackTrace(stored: ErrorObject, error: unknown): ErrorObject {
  const stack = (error as { stack?: unknown } | null)?.stack;
  if (typeof stack !== 'string' || stack.length === 0 || error instanceof DurableOperationError) return stored;
  return { ...stored, StackTrace: stack.split('\n').slice(0, 50) };
}

/** The `ErrorType`s AWS rebuilds as their durable error class when reading a batch's errors back. */
const DURABLE_ERROR_TYPES: ReadonlySet<string> = new Set([
  'StepError',
  'CallbackError',
  'CallbackExternalError',
  'CallbackTimeoutError',
  'SignalTimeoutError',
  'CallbackSubmitterError',
  'InvokeError',
  'ChildContextError',
  'PromiseCombinatorError',
  'WaitForConditionError',
]);

/**
 * A failed batch item's error as AWS's handler sees it: AWS stores the batch result with each
 * error's whole cause chain and reads it back level by level (a durable error rebuilt from its
 * stored fields, the next level as its cause), live and on replay. The rebuilt chain is one
 * level deeper than the error it came from (the last level's rebuild brings its own synthesized
 * cause); doing the same round trip in memory gives the same chain while the stored summary
 * stays ours. Each level keeps our code.
 */
export function asAwsBatchItemError<E extends Error>(error: E): E {
  return roundTrip(error, 0) as E;
}

function roundTrip(error: Error, depth: number): Error {
  const stored =
    error instanceof DurableOperationError
      ? error.toErrorObject()
      : { ErrorType: String(error.name), ErrorMessage: String(error.message) };
  let rebuilt: Error;
  if (stored.ErrorType !== undefined && DURABLE_ERROR_TYPES.has(stored.ErrorType)) {
    rebuilt = DurableOperationError.fromErrorObject(stored);
  } else {
    rebuilt = new Error(stored.ErrorMessage);
    rebuilt.name = stored.ErrorType || 'Error';
    rebuilt.stack = undefined;
  }
  if (error.cause instanceof Error && depth < 16) rebuilt.cause = roundTrip(error.cause, depth + 1);
  return withCode(rebuilt, codeOf(error));
}
