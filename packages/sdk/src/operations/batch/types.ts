import type { DurableContext } from '../../context/types';
import type { ChildContextError } from '../../errors';
import type { Serdes } from '../../serdes';

/** The status of one item of a batch (compat with AWS's `BatchItemStatus`). */
export const BatchItemStatus = {
  SUCCEEDED: 'SUCCEEDED',
  FAILED: 'FAILED',
  /** Still in flight when the batch completed early (`minSuccessful`, a failure limit, `shouldComplete`). */
  STARTED: 'STARTED',
} as const;
/** One of {@link BatchItemStatus}. */
export type BatchItemStatus = (typeof BatchItemStatus)[keyof typeof BatchItemStatus];

/** One item of a batch result. Items that never started are not listed. */
export interface BatchItem<TResult> {
  /** The item's result, when it succeeded. */
  result?: TResult;
  /** The item's error, when it failed: always a `ChildContextError`, since every item runs in a child context. */
  error?: ChildContextError;
  /** The item's position in the input array (or branch list). */
  index: number;
  status: BatchItemStatus;
}

/**
 * Why a batch completed (compat):
 * - `ALL_COMPLETED`: every item finished.
 * - `MIN_SUCCESSFUL_REACHED`: `completionConfig.minSuccessful` items succeeded.
 * - `FAILURE_TOLERANCE_EXCEEDED`: more failures than tolerated (by default, any failure).
 * - `CUSTOM_COMPLETION_SUCCEEDED` / `CUSTOM_COMPLETION_FAILED`: `shouldComplete` stopped the batch.
 */
export type CompletionReason =
  | 'ALL_COMPLETED'
  | 'MIN_SUCCESSFUL_REACHED'
  | 'FAILURE_TOLERANCE_EXCEEDED'
  | 'CUSTOM_COMPLETION_SUCCEEDED'
  | 'CUSTOM_COMPLETION_FAILED';

/** What `map` and `parallel` return (compat with AWS's `BatchResult`); the same live and on replay. */
export interface BatchResult<TResult> {
  /** The items that started, in index order. Treat as immutable. */
  all: Array<BatchItem<TResult>>;
  /** The items that succeeded with a result other than `undefined` (as AWS's SDK does). */
  succeeded(): Array<BatchItem<TResult> & { result: TResult }>;
  /** The items that failed. */
  failed(): Array<BatchItem<TResult> & { error: ChildContextError }>;
  /** The items still in flight when the batch completed early. */
  started(): Array<BatchItem<TResult> & { status: 'STARTED' }>;
  /** `FAILED` when an item failed (or a custom completion said so), else `SUCCEEDED`. */
  status: 'SUCCEEDED' | 'FAILED';
  completionReason: CompletionReason;
  /** True when at least one item failed. */
  hasFailure: boolean;
  /** Throws the first failed item's error (by index); `BatchCompletionError` for a custom FAILED completion. */
  throwIfError(): void;
  /** The results of {@link succeeded}, in index order. */
  getResults(): TResult[];
  /** The errors of {@link failed}, in index order. */
  getErrors(): ChildContextError[];
  successCount: number;
  failureCount: number;
  startedCount: number;
  /** The number of items listed in {@link all} (those that started). */
  totalCount: number;
}

/** Outcome of a custom completion decision (compat). */
export const CompletionOutcome = {
  SUCCEEDED: 'SUCCEEDED',
  FAILED: 'FAILED',
} as const;
/** One of {@link CompletionOutcome}. */
export type CompletionOutcome = (typeof CompletionOutcome)[keyof typeof CompletionOutcome];

/** What `shouldComplete` returns: keep going, or complete now with an outcome (default SUCCEEDED). */
export type CompletionDecision = { complete: false } | { complete: true; outcome?: CompletionOutcome };

/** Keep the batch going. */
export const continueBatch = (): CompletionDecision => ({ complete: false });
/** Complete the batch now (default outcome SUCCEEDED). */
export const completeBatch = (outcome: CompletionOutcome = CompletionOutcome.SUCCEEDED): CompletionDecision => ({
  complete: true,
  outcome,
});

/** One item as `shouldComplete` sees it. */
export interface CompletionItemStatus {
  index: number;
  /** The item's own name (`itemNamer`, or the branch's `name`), when it has one. */
  name?: string;
  /** Undefined while the item has not started. */
  status?: BatchItemStatus;
}

/** The progress `shouldComplete` decides on. */
export interface CompletionStatus {
  successCount: number;
  failureCount: number;
  completedCount: number;
  totalCount: number;
  /** Every item, by index. */
  items: readonly CompletionItemStatus[];
}

/** Threshold-based completion. */
export interface ThresholdCompletionConfig {
  /** Complete as soon as this many items succeeded (a non-negative integer). */
  minSuccessful?: number;
  /** Stop once more than this many items failed (a non-negative integer). */
  toleratedFailureCount?: number;
  /** Stop once more than this percentage (0–100) of all items failed. */
  toleratedFailurePercentage?: number;
  shouldComplete?: never;
}

/** Completion decided by a deterministic predicate, evaluated as items finish. */
export interface CustomCompletionConfig {
  shouldComplete: (status: CompletionStatus) => CompletionDecision;
  minSuccessful?: never;
  toleratedFailureCount?: never;
  toleratedFailurePercentage?: never;
}

/**
 * When a batch completes before every item ran. Without any criterion the batch fails fast: the
 * first failure stops it (`FAILURE_TOLERANCE_EXCEEDED`), as in AWS's SDK.
 */
export type CompletionConfig = ThresholdCompletionConfig | CustomCompletionConfig;

/** How items nest (compat). Both run every item in its own child context here. */
export const NestingType = {
  NESTED: 'NESTED',
  /** Accepted for compatibility; items still get their own child context. */
  FLAT: 'FLAT',
} as const;
/** One of {@link NestingType}. */
export type NestingType = (typeof NestingType)[keyof typeof NestingType];

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
export interface NamedParallelBranch<TOutput> {
  name?: string;
  func: ParallelFunction<TOutput>;
}

/** Options shared by `map` and `parallel`. */
interface BatchConfig<TResult> {
  /** How many items run at once (a positive integer); unbounded by default. */
  maxConcurrency?: number;
  /** How the batch's result is stored; by default a summary from which the same BatchResult is rebuilt. */
  serdes?: Serdes<BatchResult<TResult>>;
  /** How each item's result is stored; JSON by default. */
  itemSerdes?: Serdes<TResult>;
  completionConfig?: CompletionConfig;
  /** Adds `summary` (its string) to the stored summary when the results are too large to store inline. */
  summaryGenerator?: (result: BatchResult<TResult>) => string;
  /** Accepted for compatibility; every item gets its own child context either way. */
  nesting?: NestingType;
}

/** Options of `map`. */
export interface MapConfig<TItem, TResult> extends BatchConfig<TResult> {
  /** Names each item's child context (default `map-item-<index>`, as AWS's SDK). */
  itemNamer?: (item: TItem, index: number) => string;
}

/** Options of `parallel`. */
export interface ParallelConfig<TResult> extends BatchConfig<TResult> {}
