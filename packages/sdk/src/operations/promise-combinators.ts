import { parseName } from '../config';
import type { Scope } from '../context/scope';
import { describe } from '../duration';
import { ErrorCode, withCode } from '../errors/codes';
import { PromiseCombinatorError } from '../errors/durable-errors';
import { InvalidArgumentError } from '../errors/invalid-argument';
import { defaultSerdes } from '../serdes/checked';
import type { DurablePromiseCombinators } from '../types/combinators';
import type { DurablePromise } from '../types/durable-promise';
import { OperationSubType } from '../types/operation-enums';
import type { Serdes } from '../types/serdes';
import { runContextOperation } from './child-context';

export type { AllValues, DurablePromiseCombinators, SettledResults } from '../types/combinators';

type Kind = keyof DurablePromiseCombinators;

/**
 * The SubType each combinator's CONTEXT operation is stored with: AWS's, whose combinators are
 * child contexts (`RunInChildContext`), so a run's operations read the same on both SDKs.
 */
export const PROMISE_COMBINATOR_SUBTYPES: Readonly<Record<Kind, string>> = Object.freeze({
  all: OperationSubType.RUN_IN_CHILD_CONTEXT,
  allSettled: OperationSubType.RUN_IN_CHILD_CONTEXT,
  any: OperationSubType.RUN_IN_CHILD_CONTEXT,
  race: OperationSubType.RUN_IN_CHILD_CONTEXT,
});

/**
 * The SubTypes earlier versions of this SDK stored (one per combinator): a run that recorded
 * them replays under its own SubType, not as a non-deterministic replay.
 */
const LEGACY_SUBTYPES: Readonly<Record<Kind, string>> = Object.freeze({
  all: 'PromiseAll',
  allSettled: 'PromiseAllSettled',
  any: 'PromiseAny',
  race: 'PromiseRace',
});

/** The code stored for a rejection that carries no code of its own (e.g. `any`'s AggregateError). */
export const PROMISE_COMBINATOR_FAILED = ErrorCode.PROMISE_COMBINATOR_FAILED;

/** Starts an operation the way the owning context does (its checks, a DurablePromise). */
export type StartOperation = <T>(run: () => Promise<T>) => DurablePromise<T>;

/** Builds `context.promise` for the operations of `scope`. */
export function createPromiseCombinators(scope: Scope, start: StartOperation): DurablePromiseCombinators {
  return {
    all: (...args: unknown[]) => start(() => combine(scope, 'all', args)),
    allSettled: (...args: unknown[]) => start(() => combine(scope, 'allSettled', args)),
    any: (...args: unknown[]) => start(() => combine(scope, 'any', args)),
    race: (...args: unknown[]) => start(() => combine(scope, 'race', args)),
  } as DurablePromiseCombinators;
}

async function combine(scope: Scope, kind: Kind, args: readonly unknown[]): Promise<unknown> {
  const { name, promises } = parseCombinatorArgs(kind, args);
  // The id is taken now, at the call, like every operation's.
  const id = scope.nextId();
  const legacy = scope.runtime.get(id)?.SubType === LEGACY_SUBTYPES[kind];
  return runContextOperation<unknown>(scope, {
    id,
    name,
    subType: legacy ? LEGACY_SUBTYPES[kind] : PROMISE_COMBINATOR_SUBTYPES[kind],
    serdes: kind === 'allSettled' ? settledSerdes : kind === 'all' ? allSerdes : defaultSerdes,
    body: () => settle(kind, promises),
    // AWS's: the rejection, rebuilt from storage, is the cause of a PromiseCombinatorError.
    errorMapper: (original) => new PromiseCombinatorError(original.message, original),
    failureCode: PROMISE_COMBINATOR_FAILED,
  });
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

/**
 * `all`'s values as a JSON array, AWS's way: an `undefined` value (a wait's) comes back as
 * `null`, live and on replay, as on AWS. Runs recorded by earlier versions of this SDK stored
 * `{ values, undefinedAt }` to keep the holes; those still read back as they were.
 */
const allSerdes: Serdes<unknown[]> = {
  serialize(values, context) {
    return defaultSerdes.serialize(values, context) as string | undefined;
  },
  deserialize(data, context) {
    const stored = defaultSerdes.deserialize(data, context) as unknown[] | { values: unknown[]; undefinedAt: number[] };
    if (stored === undefined || stored === null || Array.isArray(stored)) return stored;
    const values = [...stored.values];
    for (const i of stored.undefinedAt) values[i] = undefined;
    return values;
  },
};

/**
 * A rejection reason as `allSettled` stores it (AWS's: an Error keeps its name, message and
 * stack). `code` is only in runs recorded by earlier versions of this SDK.
 */
type StoredReason = { name: string; message: string; stack?: string; code?: string };

/**
 * `allSettled`'s outcomes (AWS's error-aware serdes): an Error reason is stored as its name,
 * message and stack and comes back as an Error with those, live and on replay.
 */
const settledSerdes: Serdes<PromiseSettledResult<unknown>[]> = {
  serialize(results, context) {
    if (results === undefined) return undefined;
    const stored = results.map((r) => {
      if (r.status !== 'rejected' || !(r.reason instanceof Error)) return r;
      // Exactly AWS's keys: our code stays on the live error only, so the stored form (and the
      // reason rebuilt on replay) reads the same on both SDKs.
      const reason: StoredReason = { message: r.reason.message, name: r.reason.name };
      if (r.reason.stack !== undefined) reason.stack = r.reason.stack;
      return { ...r, reason };
    });
    return defaultSerdes.serialize(stored, context) as string | undefined;
  },
  deserialize(data, context) {
    const stored = defaultSerdes.deserialize(data, context) as PromiseSettledResult<unknown>[] | undefined;
    return stored?.map((r) => {
      const reason = (r as { reason?: Partial<StoredReason> }).reason;
      if (r.status !== 'rejected' || !reason || typeof reason !== 'object' || !reason.message) return r;
      const error = new Error(reason.message);
      error.name = reason.name || 'Error';
      if (reason.stack) error.stack = reason.stack;
      return { ...r, reason: withCode(error, reason.code) };
    });
  },
};
