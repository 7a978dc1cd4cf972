import type { DurablePromise } from './durable-promise';

/**
 * `context.promise`: durable combinators over operations already started (compat with AWS's
 * SDK). Each is one CONTEXT operation that records the outcome the first time, so a replay
 * returns the same values, the same race winner and the same error, whatever order the
 * underlying operations settle in on replay.
 *
 * Values are stored as JSON (a Date comes back as a string, live too). `all`, `any` and `race`
 * reject with a `PromiseCombinatorError` carrying the rejection's message, code and (rebuilt)
 * cause; `allSettled`'s reasons come back as errors with the same name, message and code. All
 * of it is the same live and on replay, and the same as AWS's SDK.
 */
export interface DurablePromiseCombinators {
  /** Like `Promise.all`: every value in order, or the first rejection. */
  all<P extends readonly PromiseLike<unknown>[] | []>(
    name: string | undefined,
    promises: P,
  ): DurablePromise<AllValues<P>>;
  all<P extends readonly PromiseLike<unknown>[] | []>(promises: P): DurablePromise<AllValues<P>>;
  all<TOutput>(name: string | undefined, promises: readonly PromiseLike<TOutput>[]): DurablePromise<TOutput[]>;
  all<TOutput>(promises: readonly PromiseLike<TOutput>[]): DurablePromise<TOutput[]>;
  /** Like `Promise.allSettled`: every outcome in order; reasons are stored and revived as errors. */
  allSettled<P extends readonly PromiseLike<unknown>[] | []>(
    name: string | undefined,
    promises: P,
  ): DurablePromise<SettledResults<P>>;
  allSettled<P extends readonly PromiseLike<unknown>[] | []>(promises: P): DurablePromise<SettledResults<P>>;
  allSettled<TOutput>(
    name: string | undefined,
    promises: readonly PromiseLike<TOutput>[],
  ): DurablePromise<PromiseSettledResult<TOutput>[]>;
  allSettled<TOutput>(promises: readonly PromiseLike<TOutput>[]): DurablePromise<PromiseSettledResult<TOutput>[]>;
  /**
   * Like `Promise.any`: the first value; when every promise rejects, a `PromiseCombinatorError`
   * (AWS's) whose cause is the `AggregateError`, rebuilt from storage.
   */
  any<P extends readonly PromiseLike<unknown>[] | []>(
    name: string | undefined,
    promises: P,
  ): DurablePromise<Awaited<P[number]>>;
  any<P extends readonly PromiseLike<unknown>[] | []>(promises: P): DurablePromise<Awaited<P[number]>>;
  any<TOutput>(name: string | undefined, promises: readonly PromiseLike<TOutput>[]): DurablePromise<TOutput>;
  any<TOutput>(promises: readonly PromiseLike<TOutput>[]): DurablePromise<TOutput>;
  /** Like `Promise.race`: the first outcome, value or rejection. Needs at least one promise. */
  race<P extends readonly PromiseLike<unknown>[] | []>(
    name: string | undefined,
    promises: P,
  ): DurablePromise<Awaited<P[number]>>;
  race<P extends readonly PromiseLike<unknown>[] | []>(promises: P): DurablePromise<Awaited<P[number]>>;
  race<TOutput>(name: string | undefined, promises: readonly PromiseLike<TOutput>[]): DurablePromise<TOutput>;
  race<TOutput>(promises: readonly PromiseLike<TOutput>[]): DurablePromise<TOutput>;
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
