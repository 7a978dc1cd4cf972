/**
 * The writes to the user's tables a checkpoint carries (a transactional step's SUCCEED,
 * `OperationUpdate.TransactWrites`), checked and flattened for `Store.commit`, which applies them
 * in the same atomic write as the step's outcome.
 */
import {
  CheckpointRejectedError,
  checkTransactWrites,
  MAX_TRANSACT_WRITES,
  type OperationUpdate,
  TransactRejectedError,
} from '@durable-lambda/protocol';
import type { StoreTransactWrite } from './store';

/**
 * The user writes of `updates`, or undefined when none has any. Only a STEP's SUCCEED may carry
 * them (else `CheckpointRejectedError`); each list is checked again here (shapes, limits:
 * `TransactRejectedError` naming the field), and so is their total, since they share one
 * transaction with the checkpoint.
 */
export function transactWritesOf(updates: readonly OperationUpdate[]): StoreTransactWrite[] | undefined {
  let all: StoreTransactWrite[] | undefined;
  for (const update of updates) {
    const writes = update.TransactWrites;
    if (writes === undefined || writes.length === 0) continue;
    if (update.Type !== 'STEP' || update.Action !== 'SUCCEED') {
      throw new CheckpointRejectedError(
        `operation ${update.Id}: only a STEP's SUCCEED may carry TransactWrites`,
        update.Id,
      );
    }
    checkTransactWrites(writes, `transactWrites`, update.Id);
    all ??= [];
    for (const [index, write] of writes.entries()) all.push({ operationId: update.Id, index, write });
  }
  if (all && all.length > MAX_TRANSACT_WRITES) {
    throw new TransactRejectedError(
      'too_many_writes',
      'transactWrites',
      `${all.length} writes in one checkpoint; at most ${MAX_TRANSACT_WRITES}`,
      all[all.length - 1]?.operationId,
    );
  }
  return all;
}
