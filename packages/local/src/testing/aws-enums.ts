/**
 * The enums AWS's testing package re-exports from `@aws-sdk/client-lambda`, with the same values,
 * defined here so the test runner never depends on the AWS SDK.
 */

/** A durable execution's status, as Lambda reports it (`TestResult.getStatus()`). */
export const ExecutionStatus = {
  FAILED: 'FAILED',
  RUNNING: 'RUNNING',
  STOPPED: 'STOPPED',
  SUCCEEDED: 'SUCCEEDED',
  TIMED_OUT: 'TIMED_OUT',
} as const;
/** One of {@link ExecutionStatus}. */
export type ExecutionStatus = (typeof ExecutionStatus)[keyof typeof ExecutionStatus];

/** How Lambda is invoked (AWS's `InvocationType`, used with `CloudDurableTestRunner`). */
export const InvocationType = {
  DryRun: 'DryRun',
  Event: 'Event',
  RequestResponse: 'RequestResponse',
} as const;
/** One of {@link InvocationType}. */
export type InvocationType = (typeof InvocationType)[keyof typeof InvocationType];
