import type { LambdaContextLike } from '@durable-lambda/protocol';
import type { BatchResult, MapConfig, NestingType, ParallelConfig } from './batch';
import type {
  CreateCallbackConfig,
  CreateCallbackResult,
  WaitForCallbackConfig,
  WaitForCallbackSubmitter,
} from './callback';
import type { DurablePromiseCombinators } from './combinators';
import type { CompletionConfig } from './completion';
import type { DurablePromise } from './durable-promise';
import type { Duration } from './duration';
import type { InvokeConfig } from './invoke';
import type { DurableContextLogger, DurableLogger, LoggerConfig } from './logger';
import type { CompensationReport } from './saga';
import type { Serdes, SerdesConfig } from './serdes';
import type { WaitForSignalOptions } from './signal';
import type { ChildContextConfig, StepConfig, StepFunction } from './step';
import type { WaitForConditionCheck, WaitForConditionConfig } from './wait-condition';

/** A child context's function. */
export type ChildFunction<T> = (context: DurableContext) => Promise<T>;
/** AWS's name for {@link ChildFunction}. */
export type ChildFunc<T, _Logger = unknown> = ChildFunction<T>;

/** The function `map` runs for every item, in the item's own child context. */
export type MapFunction<TInput, TOutput> = (
  context: DurableContext,
  item: TInput,
  index: number,
  array: TInput[],
) => Promise<TOutput>;
/** AWS's name for {@link MapFunction}. */
export type MapFunc<TInput, TOutput, _Logger = unknown> = MapFunction<TInput, TOutput>;

/** A branch of `parallel`, run in its own child context. */
export type ParallelFunction<TOutput> = (context: DurableContext) => Promise<TOutput>;
/** AWS's name for {@link ParallelFunction}. */
export type ParallelFunc<TOutput, _Logger = unknown> = ParallelFunction<TOutput>;

/** A branch with a name: its child context's operation name. */
export interface NamedParallelBranch<TOutput, _Logger = unknown> {
  name?: string;
  func: ParallelFunction<TOutput>;
}

/**
 * The durable operations available to a handler. Each takes an optional leading name and
 * returns a {@link DurablePromise} whose operation is already under way (AWS's).
 */
export interface DurableContext {
  /** The run's id. */
  readonly runId: string;
  /** The run, as AWS's SDK names it (`durableExecutionArn` is the run's id here). */
  readonly executionContext: { readonly durableExecutionArn: string };
  /** The Lambda context of the current invocation (a stand-in under the test runner). */
  readonly lambdaContext: LambdaContextLike;
  /** Structured logger, silent while the invocation replays completed work (see `configureLogger`). */
  readonly logger: DurableContextLogger;

  /**
   * Runs `fn` once per attempt and checkpoints its result or error. On replay returns the stored
   * result (same type after serdes) or throws the stored error as a `StepError`.
   */
  step<T>(name: string | undefined, fn: StepFunction<T>, config?: StepConfig<T>): DurablePromise<T>;
  step<T>(fn: StepFunction<T>, config?: StepConfig<T>): DurablePromise<T>;

  /**
   * Ours: runs the compensations registered so far (`step(..., { compensate })`) that have not
   * run yet, in reverse order of their steps' positions in the run (for steps run one after
   * another, the reverse of the order they completed), each as a durable step
   * `compensate <step name>` with its own retries; a compensation that fails after its retries
   * does not stop the others. Compensations registered in child contexts belong to the run and
   * are included (a child context that fails has already undone its own succeeded steps). Each compensation runs at most once per run, so calling this twice, or failing
   * the run afterwards, never runs one again; a step still running when this is called is not
   * undone (call it again once the step has settled). Returns what the run has undone so far.
   *
   * @example
   * ```ts
   * if (!(await ctx.step('check', () => fraud.check(order)))) {
   *   await ctx.compensate();
   *   return { status: 'rejected' };
   * }
   * ```
   */
  compensate(): DurablePromise<CompensationReport>;

  /** Durable sleep of 1 s to 1 year: the invocation ends and is re-invoked when due. */
  wait(name: string | undefined, duration: Duration): DurablePromise<void>;
  wait(duration: Duration): DurablePromise<void>;

  /** Groups operations under one operation with its own deterministic ids. */
  runInChildContext<T>(
    name: string | undefined,
    fn: ChildFunction<T>,
    config?: ChildContextConfig<T>,
  ): DurablePromise<T>;
  runInChildContext<T>(fn: ChildFunction<T>, config?: ChildContextConfig<T>): DurablePromise<T>;

  /**
   * Creates a callback: `[promise, callbackId]`. Hand the id to an outside system; the promise
   * settles when it completes the callback through the control API (or it times out).
   */
  createCallback<T = string>(
    name: string | undefined,
    config?: CreateCallbackConfig<T>,
  ): DurablePromise<CreateCallbackResult<T>>;
  createCallback<T = string>(config?: CreateCallbackConfig<T>): DurablePromise<CreateCallbackResult<T>>;

  /** createCallback plus a submitter step (with retries) that hands the id out. */
  waitForCallback<T = string>(
    name: string | undefined,
    submitter: WaitForCallbackSubmitter,
    config?: WaitForCallbackConfig<T>,
  ): DurablePromise<T>;
  waitForCallback<T = string>(
    submitter: WaitForCallbackSubmitter,
    config?: WaitForCallbackConfig<T>,
  ): DurablePromise<T>;

  /**
   * Ours: waits for the signal `name`, sent to this run from outside (`POST
   * /v1/runs/{id}/signals/{name}`, the client's `sendSignal`, `durable signal`, the dashboard, or a
   * test runner's `sendSignal`), and resolves with its payload. A signal sent before the wait is
   * kept for it; several signals of one name are taken in the order sent, one per wait, each
   * exactly once; a replay gets the same signal it got the first time. The invocation suspends
   * while nothing arrives (nobody pays for the wait) and a signal's arrival wakes the run.
   *
   * @example
   * const approval = await ctx.waitForSignal<{ by: string }>('approved', { timeout: { hours: 24 } });
   *
   * @param name - 1-128 characters: a letter or digit, then letters, digits and `_ . : -` (else
   *   `InvalidArgumentError`, field `name`).
   * @param options - `timeout` (past it: `SignalTimeoutError`, code `signal_timeout`); `serdes`
   *   to read the payload (default: `JSON.parse`; a signal sent without a payload gives undefined).
   */
  waitForSignal<T = unknown>(name: string, options?: WaitForSignalOptions<T>): DurablePromise<T>;

  /** Polls `check` with durable waits between checks until the wait strategy stops. */
  waitForCondition<T>(
    name: string | undefined,
    check: WaitForConditionCheck<T>,
    config: WaitForConditionConfig<T>,
  ): DurablePromise<T>;
  waitForCondition<T>(check: WaitForConditionCheck<T>, config: WaitForConditionConfig<T>): DurablePromise<T>;

  /** Starts a run of another durable function and waits for its result. */
  invoke<TInput, TOutput>(
    name: string,
    functionId: string,
    input?: TInput,
    config?: InvokeConfig<TInput, TOutput>,
  ): DurablePromise<TOutput>;
  invoke<TInput, TOutput>(
    functionId: string,
    input?: TInput,
    config?: InvokeConfig<TInput, TOutput>,
  ): DurablePromise<TOutput>;

  /** Runs `fn` for every item, each in its own child context, with bounded concurrency. */
  map<TInput, TOutput>(
    name: string | undefined,
    items: TInput[],
    fn: MapFunction<TInput, TOutput>,
    config?: MapConfig<TInput, TOutput>,
  ): DurablePromise<BatchResult<TOutput>>;
  map<TInput, TOutput>(
    items: TInput[],
    fn: MapFunction<TInput, TOutput>,
    config?: MapConfig<TInput, TOutput>,
  ): DurablePromise<BatchResult<TOutput>>;

  /** Runs branches, each in its own child context, with bounded concurrency. */
  parallel<TOutput>(
    name: string | undefined,
    branches: Array<ParallelFunction<TOutput> | NamedParallelBranch<TOutput>>,
    config?: ParallelConfig<TOutput>,
  ): DurablePromise<BatchResult<TOutput>>;
  parallel<TOutput>(
    branches: Array<ParallelFunction<TOutput> | NamedParallelBranch<TOutput>>,
    config?: ParallelConfig<TOutput>,
  ): DurablePromise<BatchResult<TOutput>>;

  /**
   * Ours (Temporal's `patched()`; AWS's SDK has none): whether this run takes the new path of a
   * code change, so a change can reach runs already in flight. True for a run that reaches this
   * point on code that has the call (a marker is recorded at this position, a STEP with SubType
   * `Patch` named `patchId`); false for a run that passed this point on older code (another
   * operation holds the position: the old path must follow, and it gets that position). The
   * answer is the same on every replay, and the same for every call with `patchId` in this
   * context. Synchronous: it runs no user code and the marker is written with the next checkpoint.
   *
   * @example
   * if (ctx.patched('charge-with-tax')) await ctx.step('charge', () => chargeWithTax());
   * else await ctx.step('charge', () => charge());
   *
   * @param patchId - 1–256 characters without control characters (else `InvalidArgumentError`,
   *   code `invalid_argument`, field `patchId`).
   */
  patched(patchId: string): boolean;

  /**
   * Ours (Temporal's `deprecatePatch`): once no run that took the old path of `patched(patchId)`
   * remains, replace the `patched` call and its old branch with this call. A run that recorded
   * the marker passes over it here; any other run records nothing, so once no run with the
   * marker remains, this call can be deleted too.
   *
   * @param patchId - as for {@link DurableContext.patched}.
   */
  deprecatePatch(patchId: string): void;

  /**
   * Ours (Temporal's queries, with no worker to answer them): publishes `state` as the run's
   * current state, which the API (`GET /v1/runs/{id}`), the CLI (`durable show`) and the dashboard
   * read from the store without touching the run. It replaces the state published before. It is
   * written with the run's next write (a checkpoint, or the end of the invocation), never with a
   * write of its own, and resolves once handed over (not once stored).
   *
   * Replay-safe: a publish the run already passed (made again on replay) is not sent, so the
   * stored state never goes back to an older one.
   *
   * @example
   * await ctx.publish({ stage: 'charging', done: 2, of: 5 });
   *
   * @param state - a JSON value of at most 4,096 bytes serialized (else `InvalidArgumentError`,
   *   code `invalid_argument`, field `state`). Always JSON, whatever the context's serdes.
   */
  publish(state: unknown): Promise<void>;

  /**
   * Ours (Temporal's search attributes): sets search tags on the run, found by
   * `GET /v1/runs?tag=key:value`, `durable list --tag key=value` and the dashboard's filters. A key
   * tagged again replaces its value; other keys stay. Written with the run's next write (a
   * checkpoint, or the end of the invocation); resolves once handed over (not once stored).
   *
   * Replay-safe: a tag the run already passed (made again on replay) is not sent, so a later value
   * of the same key is never set back.
   *
   * @example
   * await ctx.tag({ customer: order.customerId, region: 'eu' });
   *
   * @param tags - string values; keys of 1-64 characters (a letter, then letters, digits, `_`, `-`,
   *   `.`), values of 1-256 bytes without control characters, at most 16 keys on the run (else
   *   `InvalidArgumentError`, code `invalid_argument`, field `tags.<key>` or `tags`).
   */
  tag(tags: Readonly<Record<string, string>>): Promise<void>;

  /** Durable combinators over operations already started: their outcome is recorded, so replay agrees. */
  readonly promise: DurablePromiseCombinators;

  /**
   * Sets this context's logger (AWS's): a custom logger (used by this context, by child contexts
   * created afterwards and by their steps) and whether it is silent during replay (`modeAware`,
   * default true). Only the fields given change.
   */
  configureLogger(config: LoggerConfig<DurableLogger>): void;

  /**
   * Sets this context's default serdes (AWS's): used by operations without one of their own,
   * here and in child contexts created afterwards. Only the fields given change.
   */
  configureSerdes(config: SerdesConfig): void;
}

/** A durable handler: `withDurableExecution` wraps it into a Lambda handler. */
export type DurableHandler<TEvent = unknown, TResult = unknown> = (
  event: TEvent,
  context: DurableContext,
) => Promise<TResult>;
/** AWS's name for {@link DurableHandler}. */
export type DurableExecutionHandler<TEvent = unknown, TResult = unknown, _Logger = unknown> = DurableHandler<
  TEvent,
  TResult
>;

/** One item of AWS's concurrent executor (types only, for code written against AWS's SDK). */
export interface ConcurrentExecutionItem<T> {
  id: string;
  data: T;
  index: number;
  name?: string;
}

/** AWS's concurrent executor function type (types only). */
export type ConcurrentExecutor<TItem, TResult, _Logger = unknown> = (
  item: ConcurrentExecutionItem<TItem>,
  childContext: DurableContext,
) => Promise<TResult>;

/** AWS's concurrency options type (types only). */
export interface ConcurrencyConfig<TResult> {
  maxConcurrency?: number;
  topLevelSubType?: string;
  iterationSubType?: string;
  summaryGenerator?: (result: BatchResult<TResult>) => string;
  serdes?: Serdes<BatchResult<TResult>>;
  itemSerdes?: Serdes<TResult>;
  completionConfig?: CompletionConfig;
  nesting?: NestingType;
}
