import type { StoreTransactWrite } from '@durable-lambda/engine';
import { FencedError } from '@durable-lambda/protocol';
import { UpdateCommand } from './commands';
import { failedConditionAt, isConditionFailure, retryConflicts } from './errors';
import { cancelledItem, conditionFailureItem } from './returned-items';
import type { StoreContext } from './store-context';
import type { Item, RunEntry, TransactItem } from './table-access';
import { userTransactItems, userWriteRefusal } from './user-writes';

export type { RunEntry } from './table-access';

/** Operations per transaction besides the run item (DynamoDB allows 100 items). */
const OPERATIONS_PER_TRANSACTION = 99;
/** Bytes per transaction, under DynamoDB's 4 MB with room for the size estimate. */
const TRANSACTION_BYTES = 3_500_000;

/**
 * Operation items split into transactions: at most 99 per transaction and under ~3.5 MB; one
 * empty batch when there are none.
 */
export function operationBatches(
  operations: ReadonlyArray<{ item: Item; size: number }>,
  /** Room each transaction keeps for other entries (a transactional step's user writes). */
  reserve: { items: number; bytes: number } = { items: 0, bytes: 0 },
): Item[][] {
  const batches: Item[][] = [[]];
  const most = OPERATIONS_PER_TRANSACTION - reserve.items;
  const room = TRANSACTION_BYTES - reserve.bytes;
  let bytes = 0;
  for (const { item, size } of operations) {
    const batch = batches[batches.length - 1] as Item[];
    if (batch.length > 0 && (batch.length >= most || bytes + size > room)) {
      batches.push([item]);
      bytes = size;
    } else {
      batch.push(item);
      bytes += size;
    }
  }
  return batches;
}

/**
 * Writes batches of operation items (from {@link operationBatches}), each with its entry for the
 * run item (`runEntries[i]`, conditioned on the run as the last one is: earlier ones a
 * ConditionCheck, or an update removing the inline STARTs of that batch's operations), the run's
 * update with the last batch, so a run never shows an outcome before its operations. No
 * operation: one UpdateItem. A failed run condition throws what `fenced` makes of the run item as
 * it is (returned with the failure, no read: undefined when there is none), a
 * {@link FencedError} by default; then that transaction wrote nothing.
 */
export async function writeFenced(
  ctx: StoreContext,
  batches: readonly Item[][],
  runEntries: readonly RunEntry[],
  fenced: (current: Item | undefined) => Error = () => new FencedError(),
  /** A transactional step's writes: in the last transaction, after its operations. */
  userWrites: readonly StoreTransactWrite[] = [],
): Promise<void> {
  const only = runEntries[0];
  const user = userTransactItems(userWrites);
  if (batches.length === 1 && batches[0]?.length === 0 && only && 'Update' in only && user.length === 0) {
    try {
      const update = { ...only.Update, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const };
      await retryConflicts(() => ctx.access.client.send(new UpdateCommand(update)));
    } catch (error) {
      if (isConditionFailure(error)) throw fenced(conditionFailureItem(error));
      throw error;
    }
    return;
  }
  for (const [index, batch] of batches.entries()) {
    const entry = runEntries[index];
    if (!entry) throw new Error(`writeFenced: no run entry for batch ${index}`);
    const runEntry: TransactItem =
      'Update' in entry
        ? { Update: { ...entry.Update, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } }
        : { ConditionCheck: { ...entry.ConditionCheck, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } };
    const last = index === batches.length - 1;
    try {
      await ctx.access.transact([
        runEntry,
        ...batch.map((item) => ({ Put: { TableName: ctx.table, Item: item } })),
        ...(last ? user : []),
      ]);
    } catch (error) {
      if (failedConditionAt(error, 0)) throw fenced(cancelledItem(error, 0));
      if (last && user.length > 0) throw userWriteRefusal(error, userWrites, 1 + batch.length) ?? error;
      throw error;
    }
  }
}
