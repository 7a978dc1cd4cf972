import { parseConfigObject, parseName, parseSerdes } from '../config';
import { describe } from '../duration';
import { ErrorCode } from '../errors/codes';
import { causeChain } from '../errors/error-object';
import { InvalidArgumentError } from '../errors/invalid-argument';
import { isFunction, splitNamed } from '../operations/arguments';
import { readRecordedRejection, recordRejection } from '../operations/recorded-errors';
import { type ResolvedRetry, type RetryStrategy, resolveRetry } from '../retry';
import type { DurableContext } from '../types/durable-context';
import type { ChildContextConfig } from '../types/step';

/**
 * What {@link withRetry} runs on each attempt (compat with AWS's SDK): any block of durable
 * operations, given a context of its own and the 1-based attempt number.
 */
export type RetryableFunc<T> = (context: DurableContext, attempt: number) => Promise<T>;

/** Configuration of {@link withRetry} (compat with AWS's SDK). */
export interface WithRetryConfig<T> {
  /**
   * Decides after a failed attempt whether to run another and after how long (the same shape as
   * a step's). Default: the default strategy of steps, `retryPresets.default` (AWS's SDK requires
   * one).
   */
  retryStrategy?: RetryStrategy;
  /**
   * Group the attempts and waits under one CONTEXT operation (named `name`). Default true.
   * Either way, the error thrown after the last attempt is that attempt's error.
   */
  wrapWithRunInChildContext?: boolean;
  /** Options of the grouping context (`serdes`, `subType`); the serdes also stores each attempt's result. */
  childContextConfig?: ChildContextConfig<T>;
}

/** SubType of the CONTEXT operation grouping a withRetry's attempts. */
export const WITH_RETRY_SUBTYPE = 'WithRetry';
/** SubType of each attempt's CONTEXT operation. */
export const WITH_RETRY_ATTEMPT_SUBTYPE = 'WithRetryAttempt';

const CONFIG_KEYS = ['retryStrategy', 'wrapWithRunInChildContext', 'childContextConfig'] as const;
const NAME_MAX = 256;
/** Room left in a name for the suffixes of attempts and waits (`-attempt-100`, `-backoff-100`). */
const SUFFIX_ROOM = 24;

/** What an attempt's FAIL records next to its error: the strategy's decision, taken once. */
interface Decision {
  /** Seconds before the next attempt; absent when the strategy gave up. */
  retrySeconds?: number;
}

/**
 * Runs `fn` and, when it fails, runs it again per `retryStrategy`, with a durable wait between
 * attempts so the invocation suspends meanwhile (compat with AWS's SDK; seed 002). The loop
 * runs in a child context; each attempt runs in a child context of its own, so its operations
 * get fresh ids. The strategy is asked once per failed attempt, live, with the error `fn`
 * threw; its decision is stored with the attempt, so a replay follows it without asking again.
 * When the strategy gives up, the attempt's error is thrown (rebuilt from storage, so the same
 * class, message and code live and on replay). Errors with code `non_retriable` (a
 * `NonRetriableError`, or a step that failed with one) are not retried.
 *
 * @throws InvalidArgumentError naming the bad argument.
 */
export function withRetry<T>(
  context: DurableContext,
  name: string | undefined,
  fn: RetryableFunc<T>,
  config?: WithRetryConfig<T>,
): Promise<T>;
export function withRetry<T>(context: DurableContext, fn: RetryableFunc<T>, config?: WithRetryConfig<T>): Promise<T>;
export async function withRetry<T>(context: DurableContext, ...args: unknown[]): Promise<T> {
  if (!isDurableContext(context)) {
    throw new InvalidArgumentError('context', `must be a DurableContext, got ${describe(context)}`);
  }
  const { name, main: fn, config } = splitNamed<RetryableFunc<T>>(args, isFunction, 'fn');
  if (name !== undefined && name.length > NAME_MAX - SUFFIX_ROOM) {
    throw new InvalidArgumentError(
      'name',
      `must be at most ${NAME_MAX - SUFFIX_ROOM} characters (attempts and waits add a suffix)`,
    );
  }
  parseConfigObject(config, 'config', CONFIG_KEYS);
  const c = (config ?? {}) as WithRetryConfig<T>;
  const retry = resolveRetry({ retryStrategy: c.retryStrategy }, undefined, 'config');
  const wrap = c.wrapWithRunInChildContext ?? true;
  if (typeof wrap !== 'boolean') {
    throw new InvalidArgumentError('config.wrapWithRunInChildContext', `must be a boolean, got ${describe(wrap)}`);
  }
  parseConfigObject(c.childContextConfig, 'config.childContextConfig', ['serdes', 'subType']);
  const serdes = parseSerdes<T>(c.childContextConfig?.serdes, 'config.childContextConfig.serdes');
  const subType = parseName(c.childContextConfig?.subType, 'config.childContextConfig.subType') ?? WITH_RETRY_SUBTYPE;
  const withSerdes = serdes === undefined ? {} : { serdes };

  const loop = async (ctx: DurableContext): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      const attemptName = name === undefined ? undefined : `${name}-attempt-${attempt}`;
      let recorded: { error: unknown; meta: unknown } | undefined;
      try {
        return await ctx.runInChildContext<T>(
          attemptName,
          async (attemptContext) => {
            try {
              return await fn(attemptContext, attempt);
            } catch (error) {
              const { final, decision } = decide(retry, error, attempt);
              throw recordRejection(final, ErrorCode.CHILD_CONTEXT_FAILED, decision);
            }
          },
          { subType: WITH_RETRY_ATTEMPT_SUBTYPE, ...withSerdes },
        );
      } catch (error) {
        recorded = readRecordedRejection(error);
        // Not a failure of fn (e.g. its result could not be stored): not retried.
        if (!recorded) throw error;
      }
      const seconds = (recorded.meta as Decision | undefined)?.retrySeconds;
      if (typeof seconds !== 'number') throw recorded.error;
      const delay = { seconds };
      await (name === undefined ? ctx.wait(delay) : ctx.wait(`${name}-backoff-${attempt}`, delay));
    }
  };

  if (!wrap) return loop(context);
  try {
    return await context.runInChildContext<T>(
      name,
      async (loopContext) => {
        try {
          return await loop(loopContext);
        } catch (error) {
          throw recordRejection(error, ErrorCode.CHILD_CONTEXT_FAILED);
        }
      },
      { subType, ...withSerdes },
    );
  } catch (error) {
    const recorded = readRecordedRejection(error);
    throw recorded ? recorded.error : error;
  }
}

/**
 * Asks the strategy about a failed attempt, once, live. A strategy that throws or answers
 * nonsense ends the loop with its InvalidArgumentError (field `config.retryStrategy`).
 */
function decide(retry: ResolvedRetry, error: unknown, attempt: number): { final: unknown; decision: Decision } {
  for (const e of causeChain(error)) {
    if ((e as { code?: unknown } | null)?.code === ErrorCode.NON_RETRIABLE) return { final: error, decision: {} };
  }
  try {
    const verdict = retry(error, attempt);
    // Waits take whole seconds, at least one.
    if (verdict.retry) {
      return { final: error, decision: { retrySeconds: Math.max(1, Math.round(verdict.delayMs / 1000)) } };
    }
    return { final: error, decision: {} };
  } catch (thrown) {
    if (thrown instanceof InvalidArgumentError) return { final: thrown, decision: {} };
    throw thrown;
  }
}

function isDurableContext(value: unknown): value is DurableContext {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as DurableContext).runInChildContext === 'function' &&
    typeof (value as DurableContext).wait === 'function'
  );
}
