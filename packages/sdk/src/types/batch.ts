import type { ChildContextError } from '../errors/durable-errors';
import type { BatchItemStatus } from './batch-status';
import type { CompletionConfig, CompletionReason } from './completion';
import type { Serdes } from './serdes';

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

/** How items nest (compat). Both run every item in its own child context here. */
export const NestingType = {
  NESTED: 'NESTED',
  /** Accepted for compatibility; items still get their own child context. */
  FLAT: 'FLAT',
} as const;
/** One of {@link NestingType}. */
export type NestingType = (typeof NestingType)[keyof typeof NestingType];

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
