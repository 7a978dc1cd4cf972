import type { ErrorObject } from '@durable-lambda/protocol';
import { parseName } from '../config';
import type { Scope } from '../context/scope';
import { describe } from '../duration';
import {
  AttemptFailure,
  BatchCompletionError,
  CallbackError,
  CallbackExternalError,
  CallbackSubmitterError,
  CallbackTimeoutError,
  ChildContextError,
  DurableOperationError,
  DurableRuntimeFault,
  InvalidArgumentError,
  InvokeError,
  NonRetriableError,
  operationError,
  RetryAfterError,
  StepError,
  StepInterruptedError,
  toErrorObject,
  WaitForConditionError,
} from '../errors';
import { defaultSerdes, type Serdes } from '../serdes';
import { runContextOperation } from './child-context';

/**
 * `context.promise`: durable combinators over operations already started (compat with AWS's
 * SDK). Each is one CONTEXT operation that records the outcome the first time, so a replay
 * returns the same values, the same race winner and the same error, whatever order the
 * underlying operations settle in on replay.
 *
 * Values are stored as JSON (a Date comes back as a string, live too); a rejection comes back
 * as the same class with the same message, code, cause and stack, live and on replay (see
 * {@link recordRejection}).
 */
export interface DurablePromiseCombinators {
  /** Like `Promise.all`: every value in order, or the first rejection. */
  all<P extends readonly PromiseLike<unknown>[] | []>(name: string | undefined, promises: P): Promise<AllValues<P>>;
  all<P extends readonly PromiseLike<unknown>[] | []>(promises: P): Promise<AllValues<P>>;
  all<TOutput>(name: string | undefined, promises: readonly PromiseLike<TOutput>[]): Promise<TOutput[]>;
  all<TOutput>(promises: readonly PromiseLike<TOutput>[]): Promise<TOutput[]>;
  /** Like `Promise.allSettled`: every outcome in order; reasons are stored and revived as errors. */
  allSettled<P extends readonly PromiseLike<unknown>[] | []>(
    name: string | undefined,
    promises: P,
  ): Promise<SettledResults<P>>;
  allSettled<P extends readonly PromiseLike<unknown>[] | []>(promises: P): Promise<SettledResults<P>>;
  allSettled<TOutput>(
    name: string | undefined,
    promises: readonly PromiseLike<TOutput>[],
  ): Promise<PromiseSettledResult<TOutput>[]>;
  allSettled<TOutput>(promises: readonly PromiseLike<TOutput>[]): Promise<PromiseSettledResult<TOutput>[]>;
  /** Like `Promise.any`: the first value, or an `AggregateError` of every rejection. */
  any<P extends readonly PromiseLike<unknown>[] | []>(
    name: string | undefined,
    promises: P,
  ): Promise<Awaited<P[number]>>;
  any<P extends readonly PromiseLike<unknown>[] | []>(promises: P): Promise<Awaited<P[number]>>;
  any<TOutput>(name: string | undefined, promises: readonly PromiseLike<TOutput>[]): Promise<TOutput>;
  any<TOutput>(promises: readonly PromiseLike<TOutput>[]): Promise<TOutput>;
  /** Like `Promise.race`: the first outcome, value or rejection. Needs at least one promise. */
  race<P extends readonly PromiseLike<unknown>[] | []>(
    name: string | undefined,
    promises: P,
  ): Promise<Awaited<P[number]>>;
  race<P extends readonly PromiseLike<unknown>[] | []>(promises: P): Promise<Awaited<P[number]>>;
  race<TOutput>(name: string | undefined, promises: readonly PromiseLike<TOutput>[]): Promise<TOutput>;
  race<TOutput>(promises: readonly PromiseLike<TOutput>[]): Promise<TOutput>;
}

/**
 * The values of `all` over a tuple or array of promises, position by position. (The overloads
 * with one `TOutput` are AWS's; these infer mixed types, as `Promise.all` does.)
 */
export type AllValues<P extends readonly unknown[]> = { -readonly [K in keyof P]: Awaited<P[K]> };
/** The outcomes of `allSettled`, position by position. */
export type SettledResults<P extends readonly unknown[]> = {
  -readonly [K in keyof P]: PromiseSettledResult<Awaited<P[K]>>;
};

type Kind = keyof DurablePromiseCombinators;

/** The SubType each combinator's CONTEXT operation is stored with. */
export const PROMISE_COMBINATOR_SUBTYPES: Readonly<Record<Kind, string>> = Object.freeze({
  all: 'PromiseAll',
  allSettled: 'PromiseAllSettled',
  any: 'PromiseAny',
  race: 'PromiseRace',
});

/** The code stored for a rejection that carries no code of its own (e.g. `any`'s AggregateError). */
export const PROMISE_COMBINATOR_FAILED = 'promise_combinator_failed';

/** Builds `context.promise` for the operations of `scope`. */
export function createPromiseCombinators(scope: Scope): DurablePromiseCombinators {
  return {
    all: (...args: unknown[]) => combine(scope, 'all', args),
    allSettled: (...args: unknown[]) => combine(scope, 'allSettled', args),
    any: (...args: unknown[]) => combine(scope, 'any', args),
    race: (...args: unknown[]) => combine(scope, 'race', args),
  } as DurablePromiseCombinators;
}

function combine(scope: Scope, kind: Kind, args: readonly unknown[]): Promise<never> {
  let name: string | undefined;
  let promises: readonly PromiseLike<unknown>[];
  try {
    ({ name, promises } = parseCombinatorArgs(kind, args));
  } catch (error) {
    return Promise.reject(error);
  }
  // The id is taken now, at the call, like every operation's.
  return runContextOperation<unknown>(scope, {
    name,
    subType: PROMISE_COMBINATOR_SUBTYPES[kind],
    serdes: kind === 'allSettled' ? settledSerdes : kind === 'all' ? allSerdes : defaultSerdes,
    body: async () => {
      try {
        return await settle(kind, promises);
      } catch (reason) {
        throw recordRejection(reason, PROMISE_COMBINATOR_FAILED);
      }
    },
    failure: reviveFailure,
    failureCode: PROMISE_COMBINATOR_FAILED,
  }) as Promise<never>;
}

function settle(kind: Kind, promises: readonly PromiseLike<unknown>[]): Promise<unknown> {
  switch (kind) {
    case 'all':
      return Promise.all(promises);
    case 'allSettled':
      return Promise.allSettled(promises);
    case 'any':
      return Promise.any(promises);
    case 'race':
      return Promise.race(promises);
  }
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === 'object' || typeof value === 'function') &&
  value !== null &&
  typeof (value as { then?: unknown }).then === 'function';

const noop = () => {};

function parseCombinatorArgs(
  kind: Kind,
  args: readonly unknown[],
): { name: string | undefined; promises: readonly PromiseLike<unknown>[] } {
  const named = !Array.isArray(args[0]);
  if (named && args[0] !== undefined && typeof args[0] !== 'string') {
    throw new InvalidArgumentError('promises', `must be an array of promises, got ${describe(args[0])}`);
  }
  const name = named ? parseName(args[0]) : undefined;
  const promises = named ? args[1] : args[0];
  if (args.length > (named ? 2 : 1)) {
    throw new InvalidArgumentError(`promise.${kind}`, 'takes (name?, promises) only');
  }
  if (!Array.isArray(promises)) {
    throw new InvalidArgumentError('promises', `must be an array of promises, got ${describe(promises)}`);
  }
  for (const p of promises) {
    // A finished combinator is not awaited on replay, nor are its promises: without a handler,
    // one that rejects again on replay would be an unhandled rejection.
    if (isThenable(p)) Promise.resolve(p).catch(noop);
  }
  const bad = promises.findIndex((p) => !isThenable(p));
  if (bad !== -1) {
    throw new InvalidArgumentError(
      `promises[${bad}]`,
      `must be a promise (e.g. of context.step), got ${describe(promises[bad])}`,
    );
  }
  if (kind === 'race' && promises.length === 0) {
    throw new InvalidArgumentError('promises', 'race needs at least one promise (an empty race never settles)');
  }
  return { name, promises };
}

// ----------------------------------------------------------------------------------------------
// Values

/** `all`'s values as a JSON array; holes left by `undefined` (e.g. a wait's) are kept apart. */
const allSerdes: Serdes<unknown[]> = {
  serialize(values, context) {
    if (values === undefined) return undefined;
    const undefinedAt = values.flatMap((v, i) => (v === undefined ? [i] : []));
    return defaultSerdes.serialize(undefinedAt.length === 0 ? values : { values, undefinedAt }, context) as
      | string
      | undefined;
  },
  deserialize(data, context) {
    const stored = defaultSerdes.deserialize(data, context) as unknown[] | { values: unknown[]; undefinedAt: number[] };
    if (stored === undefined || Array.isArray(stored)) return stored;
    const values = [...stored.values];
    for (const i of stored.undefinedAt) values[i] = undefined;
    return values;
  },
};

type StoredSettled = { status: 'fulfilled'; value?: unknown } | { status: 'rejected'; reason: EncodedError };

/** `allSettled`'s outcomes, with each reason encoded so it revives as the same error. */
const settledSerdes: Serdes<PromiseSettledResult<unknown>[]> = {
  serialize(results, context) {
    if (results === undefined) return undefined;
    const stored: StoredSettled[] = results.map((r) =>
      r.status === 'fulfilled'
        ? r.value === undefined
          ? { status: 'fulfilled' }
          : { status: 'fulfilled', value: r.value }
        : { status: 'rejected', reason: encodeError(r.reason) },
    );
    return defaultSerdes.serialize(stored, context) as string | undefined;
  },
  deserialize(data, context) {
    const stored = defaultSerdes.deserialize(data, context) as StoredSettled[] | undefined;
    return stored?.map(
      (r): PromiseSettledResult<unknown> =>
        r.status === 'fulfilled'
          ? { status: 'fulfilled', value: r.value }
          : { status: 'rejected', reason: reviveError(r.reason) },
    );
  },
};

// ----------------------------------------------------------------------------------------------
// Errors, recorded so they revive as the same class on replay

/**
 * An error (or any rejection value) as stored, with what it takes to rebuild it: its class
 * among the known ones, name, message, code, stack, cause and class-specific fields.
 */
export interface EncodedError {
  /** The class that rebuilds it (`StepError`, `AggregateError`, `TypeError`, `Error`, …), or `value`. */
  kind: string;
  name?: string;
  message?: string;
  code?: string;
  stack?: string;
  /** DurableOperationError's `errorType` and `errorData`. */
  errorType?: string;
  errorData?: string;
  /** InvalidArgumentError's field, RetryAfterError's delay, AttemptFailure's flag. */
  field?: string;
  delayMs?: number;
  retriable?: boolean;
  /** Own enumerable JSON fields of other errors (e.g. an HTTP error's `status`). */
  props?: Record<string, unknown>;
  cause?: EncodedError;
  /** AggregateError's errors. */
  errors?: EncodedError[];
  /** A rejection that is not an Error, as JSON. */
  value?: unknown;
}

type DurableErrorClass = new (
  message: string,
  init: { errorType: string; code: string; cause?: unknown; errorData?: string },
) => DurableOperationError;

// Most specific first: an error is stored as the first class it is an instance of.
const DURABLE_CLASSES: ReadonlyArray<readonly [string, DurableErrorClass]> = [
  ['StepInterruptedError', StepInterruptedError],
  ['StepError', StepError],
  ['CallbackTimeoutError', CallbackTimeoutError],
  ['CallbackExternalError', CallbackExternalError],
  ['CallbackSubmitterError', CallbackSubmitterError],
  ['CallbackError', CallbackError],
  ['ChildContextError', ChildContextError],
  ['BatchCompletionError', BatchCompletionError],
  ['InvokeError', InvokeError],
  ['WaitForConditionError', WaitForConditionError],
  ['DurableOperationError', DurableOperationError],
];

type PlainErrorClass = new (message?: string, options?: { cause?: unknown }) => Error;

const NATIVE_CLASSES: ReadonlyArray<readonly [string, PlainErrorClass]> = [
  ['TypeError', TypeError],
  ['RangeError', RangeError],
  ['SyntaxError', SyntaxError],
  ['ReferenceError', ReferenceError],
  ['EvalError', EvalError],
  ['URIError', URIError],
];

/** Causes and nested errors kept, at most. */
const MAX_DEPTH = 8;
const MAX_NESTED_ERRORS = 100;
const MAX_STACK_LINES = 50;
const SKIPPED_PROPS = new Set(['name', 'message', 'stack', 'cause', 'code', 'errors']);

function kindOf(error: Error): string {
  for (const [kind, ctor] of DURABLE_CLASSES) if (error instanceof ctor) return kind;
  if (error instanceof InvalidArgumentError) return 'InvalidArgumentError';
  if (error instanceof NonRetriableError) return 'NonRetriableError';
  if (error instanceof RetryAfterError) return 'RetryAfterError';
  if (error instanceof AttemptFailure) return 'AttemptFailure';
  if (error instanceof DurableRuntimeFault) return 'DurableRuntimeFault';
  if (error instanceof AggregateError) return 'AggregateError';
  for (const [kind, ctor] of NATIVE_CLASSES) if (error instanceof ctor) return kind;
  return 'Error';
}

/** A JSON copy of `value`, or its string form when it has none. */
function jsonCopy(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return String(value);
  }
}

/** Encodes anything thrown so {@link reviveError} rebuilds it. */
export function encodeError(error: unknown, depth = 0): EncodedError {
  if (!(error instanceof Error)) {
    const value = jsonCopy(error);
    return value === undefined ? { kind: 'value' } : { kind: 'value', value };
  }
  const kind = kindOf(error);
  const out: EncodedError = { kind, name: error.name, message: error.message };
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') out.code = code;
  if (typeof error.stack === 'string') out.stack = error.stack.split('\n').slice(0, MAX_STACK_LINES).join('\n');
  if (error instanceof DurableOperationError) {
    out.errorType = error.errorType;
    if (error.errorData !== undefined) out.errorData = error.errorData;
  } else {
    const props: Record<string, unknown> = {};
    for (const key of Object.keys(error)) {
      if (SKIPPED_PROPS.has(key)) continue;
      const value = jsonCopy((error as unknown as Record<string, unknown>)[key]);
      if (value !== undefined) props[key] = value;
    }
    if (Object.keys(props).length > 0) out.props = props;
  }
  if (error instanceof InvalidArgumentError) out.field = error.field;
  if (error instanceof RetryAfterError) out.delayMs = error.delayMs;
  if (error instanceof AttemptFailure) out.retriable = error.retriable;
  if (depth < MAX_DEPTH) {
    if (error instanceof AggregateError && Array.isArray(error.errors)) {
      out.errors = error.errors.slice(0, MAX_NESTED_ERRORS).map((e) => encodeError(e, depth + 1));
    }
    if (error.cause !== undefined) out.cause = encodeError(error.cause, depth + 1);
  }
  return out;
}

/** Rebuilds what {@link encodeError} stored: the same class (or the nearest known one) and fields. */
export function reviveError(stored: EncodedError): unknown {
  if (stored.kind === 'value') return stored.value;
  const message = stored.message ?? '';
  const cause = stored.cause === undefined ? undefined : reviveError(stored.cause);
  const options = cause === undefined ? undefined : { cause };
  const durable = DURABLE_CLASSES.find(([kind]) => kind === stored.kind)?.[1];
  let error: Error;
  if (durable) {
    error = new durable(message, {
      errorType: stored.errorType ?? stored.name ?? 'Error',
      code: stored.code ?? PROMISE_COMBINATOR_FAILED,
      ...(options ?? {}),
      ...(stored.errorData === undefined ? {} : { errorData: stored.errorData }),
    });
  } else {
    switch (stored.kind) {
      case 'InvalidArgumentError':
        error = new InvalidArgumentError(stored.field ?? 'argument', message);
        break;
      case 'NonRetriableError':
        error = new NonRetriableError(message, options);
        break;
      case 'RetryAfterError':
        error = new RetryAfterError(message, stored.delayMs ?? 0, options);
        break;
      case 'AttemptFailure':
        error = new AttemptFailure(
          stored.code ?? PROMISE_COMBINATOR_FAILED,
          message,
          stored.retriable ?? false,
          options,
        );
        break;
      case 'DurableRuntimeFault':
        error = new DurableRuntimeFault(stored.code ?? PROMISE_COMBINATOR_FAILED, message);
        break;
      case 'AggregateError':
        error = new AggregateError((stored.errors ?? []).map(reviveError), message, options);
        break;
      default: {
        const ctor = NATIVE_CLASSES.find(([kind]) => kind === stored.kind)?.[1] ?? Error;
        error = new ctor(message, options);
      }
    }
  }
  // Constructors may compose their own message (InvalidArgumentError) or name: the stored win.
  const mutable = error as Error & { code?: string };
  mutable.message = message;
  if (stored.name !== undefined) mutable.name = stored.name;
  if (stored.code !== undefined) mutable.code = stored.code;
  if (stored.stack !== undefined) mutable.stack = stored.stack;
  if (cause !== undefined && mutable.cause === undefined) mutable.cause = cause;
  for (const [key, value] of Object.entries(stored.props ?? {})) {
    (mutable as unknown as Record<string, unknown>)[key] = value;
  }
  return error;
}

/** Marks the ErrorData of a recorded rejection. */
const ENVELOPE = 'durable-lambda/rejection@1';

interface Envelope {
  [ENVELOPE]: EncodedError;
  meta?: unknown;
}

/**
 * Carries a rejection through a CONTEXT operation's FAIL: its stored ErrorObject shows the
 * rejection as `toErrorObject` would (type, message, code, stack) and keeps the encoded
 * rejection, plus `meta`, in ErrorData.
 */
class RecordedRejection extends DurableOperationError {
  constructor(reason: unknown, fallbackCode: string, meta: unknown) {
    const shown = toErrorObject(reason, fallbackCode);
    const envelope: Envelope = { [ENVELOPE]: encodeError(reason), ...(meta === undefined ? {} : { meta }) };
    super(shown.ErrorMessage ?? '', {
      errorType: shown.ErrorType ?? 'Error',
      code: shown.ErrorCode ?? fallbackCode,
      errorData: JSON.stringify(envelope),
    });
    this.name = 'RecordedRejection';
    this.stack = shown.StackTrace?.join('\n') ?? '';
  }
}

/**
 * Wraps `reason` for a CONTEXT operation's body to throw: the operation's FAIL then stores what
 * {@link readRecordedRejection} needs to rebuild the same error, with `meta` alongside.
 * @internal shared with withRetry.
 */
export function recordRejection(reason: unknown, fallbackCode: string, meta?: unknown): Error {
  return new RecordedRejection(reason, fallbackCode, meta);
}

/**
 * The rejection recorded by {@link recordRejection}, rebuilt, from a stored ErrorObject or from
 * the error a CONTEXT operation threw for it (whose `errorData` is the stored ErrorData).
 * Undefined when it holds no recorded rejection.
 * @internal shared with withRetry.
 */
export function readRecordedRejection(source: unknown): { error: unknown; meta: unknown } | undefined {
  const data =
    source instanceof DurableOperationError ? source.errorData : (source as ErrorObject | undefined)?.ErrorData;
  if (typeof data !== 'string' || !data.includes(ENVELOPE)) return undefined;
  let envelope: Partial<Envelope>;
  try {
    envelope = JSON.parse(data) as Partial<Envelope>;
  } catch {
    return undefined;
  }
  const encoded = envelope?.[ENVELOPE];
  if (encoded === null || typeof encoded !== 'object' || typeof encoded.kind !== 'string') return undefined;
  return { error: reviveError(encoded), meta: envelope.meta };
}

/** A combinator's stored failure, as its caller sees it live and on replay. */
function reviveFailure(stored: ErrorObject | undefined): Error {
  const recorded = readRecordedRejection(stored);
  // The body failed otherwise (e.g. its values could not be serialized): a ChildContextError.
  // A rejection that is not an Error (`Promise.reject('x')`) is rethrown as it was.
  return recorded ? (recorded.error as Error) : operationError(ChildContextError, stored);
}
