import type { LambdaContextLike } from '@durable-lambda/protocol';
import type { ChildContextConfig, StepConfig } from '../config';
import type { Duration } from '../duration';
import type { DurableLogger } from '../logger';

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
}

/** A durable handler: `withDurableExecution` wraps it into a Lambda handler. */
export type DurableHandler<TEvent = unknown, TResult = unknown> = (
  event: TEvent,
  context: DurableContext,
) => Promise<TResult>;
