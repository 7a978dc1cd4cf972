import type { BatchItemStatus } from './batch-status';

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
