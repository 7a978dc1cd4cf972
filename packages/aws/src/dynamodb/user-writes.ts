/**
 * A transactional step's writes to the user's own tables (`StoreTransactWrite`, the protocol's
 * `TransactWrite`) as entries of the commit's TransactWriteItems, and what DynamoDB's refusal of
 * them means: a failed user condition is the protocol's `TransactConditionFailedError` naming the
 * write; a request DynamoDB refuses as invalid (two writes of one item, a bad expression, a
 * missing table) is `TransactRejectedError`, since sending it again cannot help.
 */
import type { StoreTransactWrite } from '@durable-lambda/engine';
import { TransactConditionFailedError, TransactRejectedError, transactEntry } from '@durable-lambda/protocol';
import { failedConditionAt } from './errors';
import type { TransactItem } from './table-access';

/** The entries, in order (DynamoDB refuses empty name or value maps: left out). */
export function userTransactItems(writes: readonly StoreTransactWrite[]): TransactItem[] {
  return writes.map(({ write }) => {
    const [kind, body] = transactEntry(write);
    const entry: Record<string, unknown> = { ...body };
    for (const map of ['ExpressionAttributeNames', 'ExpressionAttributeValues'] as const) {
      const value = entry[map] as Record<string, unknown> | undefined;
      if (value !== undefined && Object.keys(value).length === 0) delete entry[map];
    }
    return { [kind]: entry } as TransactItem;
  });
}

/** Their estimated bytes (JSON), to keep the transaction under DynamoDB's 4 MB. */
export function userWriteBytes(writes: readonly StoreTransactWrite[]): number {
  let bytes = 0;
  for (const { write } of writes) bytes += JSON.stringify(write).length;
  return bytes;
}

function errorName(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? (error as { name?: string }).name : undefined;
}

/**
 * What a failed transaction whose user writes start at `first` means for them: the protocol error
 * to throw, or undefined when the failure is not theirs (the run's condition, a fault).
 */
export function userWriteRefusal(
  error: unknown,
  writes: readonly StoreTransactWrite[],
  first: number,
): Error | undefined {
  for (const [i, w] of writes.entries()) {
    if (failedConditionAt(error, first + i)) {
      const [kind, body] = transactEntry(w.write);
      return new TransactConditionFailedError(w.operationId, w.index, { kind, tableName: body.TableName });
    }
  }
  const name = errorName(error);
  const message = error instanceof Error ? error.message : String(error);
  const operationId = writes[0]?.operationId;
  if (name === 'ValidationException')
    return new TransactRejectedError(
      'invalid_write',
      'transactWrites',
      `DynamoDB refused the writes: ${message}`,
      operationId,
    );
  if (name === 'ResourceNotFoundException')
    return new TransactRejectedError('unknown_table', 'transactWrites', `DynamoDB: ${message}`, operationId);
  return undefined;
}
