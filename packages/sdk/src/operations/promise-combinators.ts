import type { ErrorObject } from '@durable-lambda/protocol';
import { parseName } from '../config';
import type { Scope } from '../context/scope';
import { describe } from '../duration';
import { ChildContextError, ErrorCode, InvalidArgumentError, operationError } from '../errors';
import { defaultSerdes, type Serdes } from '../serdes';
import { runContextOperation } from './child-context';
import { type EncodedError, encodeError, readRecordedRejection, recordRejection, reviveError } from './recorded-errors';

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
export const PROMISE_COMBINATOR_FAILED = ErrorCode.PROMISE_COMBINATOR_FAILED;

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

/** A combinator's stored failure, as its caller sees it live and on replay. */
function reviveFailure(stored: ErrorObject | undefined): Error {
  const recorded = readRecordedRejection(stored);
  // The body failed otherwise (e.g. its values could not be serialized): a ChildContextError.
  // A rejection that is not an Error (`Promise.reject('x')`) is rethrown as it was.
  return recorded ? (recorded.error as Error) : operationError(ChildContextError, stored);
}
