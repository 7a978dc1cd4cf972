import type {
  OutboxEvent,
  TransactConditionCheck,
  TransactDelete,
  TransactPut,
  TransactUpdate,
} from '@durable-lambda/protocol';
import type { DurableOperationError } from '../errors/durable-errors';
import type { Duration } from './duration';
import type { DurableLogger } from './logger';
import type { RetryPolicy, RetryStrategy } from './retry';
import type { Serdes } from './serdes';

/** How often a step's code may run per attempt (compat with AWS's SDK). */
export const StepSemantics = {
  /** The attempt's start is stored first; a lost attempt is never re-run, it fails. */
  AtMostOncePerRetry: 'AT_MOST_ONCE_PER_RETRY',
  /** The default: the code may run again if the invocation dies before its result is stored. */
  AtLeastOncePerRetry: 'AT_LEAST_ONCE_PER_RETRY',
} as const;
/** One of {@link StepSemantics}. */
export type StepSemantics = (typeof StepSemantics)[keyof typeof StepSemantics];

/** Retry, timeout and semantics settings shared by a step and a function's defaults. */
export interface StepDefaults {
  /** A compat retry strategy (`createRetryStrategy`, a preset, or your own function). */
  retryStrategy?: RetryStrategy;
  /** Ours: a plain retry policy; fields left out keep the default strategy's values. */
  retry?: RetryPolicy;
  /** Ours: the longest one attempt may run (at most 24 h); then it fails with `step_timeout`. */
  timeout?: Duration;
  /** Defaults to `AtLeastOncePerRetry`. */
  semantics?: StepSemantics;
}

/** Configuration of one step. */
export interface StepConfig<T> extends StepDefaults {
  /** How the result is stored; JSON by default (or the context's `configureSerdes` default). */
  serdes?: Serdes<T>;
  /**
   * Ours: the step's undo (a saga's compensation), registered once the step succeeded. When the
   * handler throws, the registered compensations run in reverse order, each a durable step
   * `compensate <name>` with its own retries, then the run fails with the handler's error (its
   * `ErrorData` says what was undone); `context.compensate()` runs them on demand. Each runs at
   * most once per run.
   */
  compensate?: Compensation<T>;
  /**
   * Ours: the step's writes to your own DynamoDB tables (through `context.tx`) are committed in
   * the same transaction as its outcome: both are stored, or neither, and a step that succeeded
   * is replayed, never run again, so they are applied once. A write whose condition fails fails
   * the attempt with `TransactConditionFailedError` (then its retry policy decides). At most 99
   * writes and ~3 MB per step (DynamoDB's transaction limits, less the checkpoint's share).
   */
  transact?: boolean;
}

/**
 * Ours: collects a transactional step's writes (DynamoDB TransactWriteItems entries with plain JS
 * values, as `@aws-sdk/lib-dynamodb` takes them). Each call is checked at once: a malformed write or
 * one past the limits throws `TransactRejectedError` naming the field. Nothing is sent until the
 * step's function returns; then the writes go with its outcome, in one transaction.
 */
export interface TransactWriter {
  /** A `Put`: the whole item (with an optional `ConditionExpression`). */
  put(put: TransactPut): void;
  /** An `Update` of the item at `Key` by an `UpdateExpression`. */
  update(update: TransactUpdate): void;
  /** A `Delete` of the item at `Key`. */
  delete(del: TransactDelete): void;
  /** A `ConditionCheck`: nothing written, but the whole transaction needs its condition to hold. */
  conditionCheck(check: TransactConditionCheck): void;
  /** How many writes were collected so far. */
  readonly size: number;
}

/** What a step's function receives. */
export interface StepContext {
  /**
   * Logs with the step's id and attempt (or goes to the custom logger of `configureLogger`);
   * steps only run live, so it is never silenced.
   */
  readonly logger: DurableLogger;
  /** The attempt number, 1-based. */
  readonly attempt: number;
  /**
   * `<runId>:<stepId>:<attempt>`: unique to this attempt, never issued twice (attempt numbers
   * only grow). For a run started with a key (a run key, a Lambda request id, an invoke), the run
   * part is `<runId>.<incarnation>`: the key names a new run once the old one has expired, and
   * that run's keys are its own. Pass it to APIs that deduplicate requests, such as payment APIs.
   */
  readonly idempotencyKey: string;
  /** Aborted when the attempt reaches its `timeout`: pass it to `fetch` and friends. */
  readonly signal: AbortSignal;
  /**
   * Ours: the step's writes to your DynamoDB tables, committed with its outcome (only in a step
   * with `{ transact: true }`; elsewhere each call throws `TransactRejectedError`).
   */
  readonly tx: TransactWriter;
  /**
   * Ours: emits an event to EventBridge (`{ source, detailType, detail, eventBusName? }`) or SQS
   * (`{ queueUrl, body, groupId? }`) through the run's outbox: recorded with the step's outcome in
   * the same write (only the attempt that succeeds emits), published after it, by the reconciler
   * if the invocation dies first. At-least-once, with a stable id (`<run>:<step>:<index>`; an SQS
   * FIFO queue dedupes on it). Checked at once: a malformed event throws, naming the field.
   */
  emit(event: OutboxEvent): void;
}

/**
 * Ours: undoes a step that succeeded (a saga's compensating action). It receives the step's
 * result and runs as a durable step of its own (named `compensate <step name>`), so it runs
 * once per attempt and its outcome is checkpointed; make it idempotent with
 * `context.idempotencyKey` as you would any step.
 */
export type CompensateFunction<T> = (result: T, context: StepContext) => Promise<unknown> | unknown;

/** Ours: a compensation with its own retry policy and timeout (else the function's defaults). */
export interface CompensationConfig<T> {
  /** The compensating action. */
  run: CompensateFunction<T>;
  /** A compat retry strategy for the compensation's step. */
  retryStrategy?: RetryStrategy;
  /** A plain retry policy for the compensation's step. */
  retry?: RetryPolicy;
  /** The longest one attempt of the compensation may run. */
  timeout?: Duration;
}

/** Ours: what `step(..., { compensate })` accepts: the action, or the action with its retries. */
export type Compensation<T> = CompensateFunction<T> | CompensationConfig<T>;

/** A step's function. */
export type StepFunction<T> = (context: StepContext) => Promise<T> | T;
/** AWS's name for {@link StepFunction}. */
export type StepFunc<T, _Logger = unknown> = StepFunction<T>;

/** Configuration of a child context (AWS's `ChildConfig`). */
export interface ChildContextConfig<T> {
  /** How the result is stored; JSON by default (or the context's `configureSerdes` default). */
  serdes?: Serdes<T>;
  /** A label kept with the operation (default `RunInChildContext`). */
  subType?: string;
  /**
   * Maps the child's failure (rebuilt from storage) to the error the caller sees; by default it
   * is wrapped in a `ChildContextError`. Applied the same live and on replay.
   */
  errorMapper?: (originalError: DurableOperationError) => DurableOperationError;
  /**
   * What is stored instead of a result too large to checkpoint (over 256 KB serialized, AWS's
   * limit), for the history (AWS's); by default nothing. Such a result is rebuilt on replay by
   * running the function again (see {@link ChildContextConfig.storeLargeResult}).
   */
  summaryGenerator?: (result: T) => string;
  /**
   * Ours. By default (AWS's ReplayChildren), a result over 256 KB serialized is not stored: each
   * later invocation that reaches the context runs its function again, its operations replaying
   * from their records (their code does not run again, the function's own code does: it must be
   * deterministic, and its log lines show again unless mode-aware). `true` stores such a result
   * whole instead (up to the payload limit; the store splits it): the function never runs again,
   * and every later invocation loads the stored result (more read and stored bytes, less CPU).
   */
  storeLargeResult?: boolean;
}
/** AWS's name for {@link ChildContextConfig}. */
export type ChildConfig<T> = ChildContextConfig<T>;
