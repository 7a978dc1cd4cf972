/** The status of one item of a batch (compat with AWS's `BatchItemStatus`). */
export const BatchItemStatus = {
  SUCCEEDED: 'SUCCEEDED',
  FAILED: 'FAILED',
  /** Still in flight when the batch completed early (`minSuccessful`, a failure limit, `shouldComplete`). */
  STARTED: 'STARTED',
} as const;
/** One of {@link BatchItemStatus}. */
export type BatchItemStatus = (typeof BatchItemStatus)[keyof typeof BatchItemStatus];
