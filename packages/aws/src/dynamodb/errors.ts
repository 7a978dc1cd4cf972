interface CancellationReason {
  Code?: string;
}

function errorName(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? (error as { name?: string }).name : undefined;
}

/** The cancellation reason codes of a cancelled transaction, or undefined for other errors. */
function cancellationCodes(error: unknown): string[] | undefined {
  if (errorName(error) !== 'TransactionCanceledException') return undefined;
  const reasons = (error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? [];
  return reasons.map((reason) => reason.Code ?? 'None');
}

/** A single conditional request's condition failed. */
export function isConditionFailure(error: unknown): boolean {
  return errorName(error) === 'ConditionalCheckFailedException';
}

/** The item at `index` of a cancelled transaction failed its condition. */
export function failedConditionAt(error: unknown, index: number): boolean {
  return cancellationCodes(error)?.[index] === 'ConditionalCheckFailed';
}

/** Any item of a cancelled transaction failed its condition. */
export function failedAnyCondition(error: unknown): boolean {
  return cancellationCodes(error)?.includes('ConditionalCheckFailed') ?? false;
}

/**
 * A write that lost a race with a concurrent transaction on the same item, without any condition
 * failing: DynamoDB wrote nothing, and sending it again decides it on its conditions.
 */
function isConflict(error: unknown): boolean {
  if (errorName(error) === 'TransactionConflictException') return true;
  const codes = cancellationCodes(error);
  if (codes === undefined) return false;
  return codes.includes('TransactionConflict') && !codes.includes('ConditionalCheckFailed');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs a write again while it only collided with another transaction (nothing was written), with
 * a short jittered backoff; any other error, and the last conflict, propagate as they are.
 */
export async function retryConflicts<T>(write: () => Promise<T>, attempts = 8): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= attempts || !isConflict(error)) throw error;
      await sleep(Math.random() * 10 * 2 ** Math.min(attempt, 5));
    }
  }
}
