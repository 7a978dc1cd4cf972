import type { LambdaContextLike } from '@durable-lambda/protocol';
import type { ChildContextConfig, StepConfig } from '../config';
import type { Duration } from '../duration';
import type { DurableLogger } from '../logger';
import type {
  BatchResult,
  MapConfig,
  MapFunction,
  NamedParallelBranch,
  ParallelConfig,
  ParallelFunction,
} from '../operations/batch/types';
import type {
  CreateCallbackConfig,
  CreateCallbackResult,
  WaitForCallbackConfig,
  WaitForCallbackSubmitter,
} from '../operations/callback';
import type { InvokeConfig } from '../operations/invoke';
import type { DurablePromiseCombinators } from '../operations/promise-combinators';
import type { WaitForConditionCheck, WaitForConditionConfig } from '../operations/wait-for-condition';

/** What a step's function receives. */
export interface StepContext {
  /** Logs with the step's id and attempt; steps only run live, so it is never silenced. */
  readonly logger: DurableLogger;
  /** The attempt number, 1-based. */
  readonly attempt: number;
  /**
   * `<runId>:<stepId>:<attempt>`: unique to this attempt, never issued twice (attempt numbers
   * only grow). Pass it to APIs that deduplicate requests, such as payment APIs.
   */
  readonly idempotencyKey: string;
  /** Aborted when the attempt reaches its `timeout`: pass it to `fetch` and friends. */
  readonly signal: AbortSignal;
}

/** A step's function. */
export type StepFunction<T> = (context: StepContext) => Promise<T> | T;

/** A child context's function. */
export type ChildFunction<T> = (context: DurableContext) => Promise<T>;

/** The durable operations available to a handler. Each takes an optional leading name. */
export interface DurableContext {
  /** The run's id. */
  readonly runId: string;
  /** The Lambda context of the current invocation (a stand-in under the test runner). */
  readonly lambdaContext: LambdaContextLike;
  /** Structured logger, silent while the invocation replays completed work. */
  readonly logger: DurableLogger;

  /**
   * Runs `fn` once per attempt and checkpoints its result or error. On replay returns the stored
   * result (same type after serdes) or throws the stored error as a `StepError`.
   */
  step<T>(name: string | undefined, fn: StepFunction<T>, config?: StepConfig<T>): Promise<T>;
  step<T>(fn: StepFunction<T>, config?: StepConfig<T>): Promise<T>;

  /** Durable sleep of 1 s to 1 year: the invocation ends and is re-invoked when due. */
  wait(name: string | undefined, duration: Duration): Promise<void>;
  wait(duration: Duration): Promise<void>;

  /** Groups operations under one operation with its own deterministic ids. */
  runInChildContext<T>(name: string | undefined, fn: ChildFunction<T>, config?: ChildContextConfig<T>): Promise<T>;
  runInChildContext<T>(fn: ChildFunction<T>, config?: ChildContextConfig<T>): Promise<T>;

  /**
   * Creates a callback: `[promise, callbackId]`. Hand the id to an outside system; the promise
   * settles when it completes the callback through the control API (or it times out).
   */
  createCallback<T = string>(
    name: string | undefined,
    config?: CreateCallbackConfig<T>,
  ): Promise<CreateCallbackResult<T>>;
  createCallback<T = string>(config?: CreateCallbackConfig<T>): Promise<CreateCallbackResult<T>>;

  /** createCallback plus a submitter step (with retries) that hands the id out. */
  waitForCallback<T = string>(
    name: string | undefined,
    submitter: WaitForCallbackSubmitter,
    config?: WaitForCallbackConfig<T>,
  ): Promise<T>;
  waitForCallback<T = string>(submitter: WaitForCallbackSubmitter, config?: WaitForCallbackConfig<T>): Promise<T>;

  /** Polls `check` with durable waits between checks until the wait strategy stops. */
  waitForCondition<T>(
    name: string | undefined,
    check: WaitForConditionCheck<T>,
    config: WaitForConditionConfig<T>,
  ): Promise<T>;
  waitForCondition<T>(check: WaitForConditionCheck<T>, config: WaitForConditionConfig<T>): Promise<T>;

  /** Starts a run of another durable function and waits for its result. */
  invoke<TInput, TOutput>(
    name: string,
    functionId: string,
    input?: TInput,
    config?: InvokeConfig<TInput, TOutput>,
  ): Promise<TOutput>;
  invoke<TInput, TOutput>(functionId: string, input?: TInput, config?: InvokeConfig<TInput, TOutput>): Promise<TOutput>;

  /** Runs `fn` for every item, each in its own child context, with bounded concurrency. */
  map<TInput, TOutput>(
    name: string | undefined,
    items: TInput[],
    fn: MapFunction<TInput, TOutput>,
    config?: MapConfig<TInput, TOutput>,
  ): Promise<BatchResult<TOutput>>;
  map<TInput, TOutput>(
    items: TInput[],
    fn: MapFunction<TInput, TOutput>,
    config?: MapConfig<TInput, TOutput>,
  ): Promise<BatchResult<TOutput>>;

  /** Runs branches, each in its own child context, with bounded concurrency. */
  parallel<TOutput>(
    name: string | undefined,
    branches: Array<ParallelFunction<TOutput> | NamedParallelBranch<TOutput>>,
    config?: ParallelConfig<TOutput>,
  ): Promise<BatchResult<TOutput>>;
  parallel<TOutput>(
    branches: Array<ParallelFunction<TOutput> | NamedParallelBranch<TOutput>>,
    config?: ParallelConfig<TOutput>,
  ): Promise<BatchResult<TOutput>>;

  /** Durable combinators over operations already started: their outcome is recorded, so replay agrees. */
  readonly promise: DurablePromiseCombinators;
}

/** A durable handler: `withDurableExecution` wraps it into a Lambda handler. */
export type DurableHandler<TEvent = unknown, TResult = unknown> = (
  event: TEvent,
  context: DurableContext,
) => Promise<TResult>;
