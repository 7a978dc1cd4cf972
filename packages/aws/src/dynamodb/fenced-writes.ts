import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { FencedError } from '@durable-lambda/protocol';
import { failedConditionAt, isConditionFailure, retryConflicts } from './errors';
import { PK, RUN_SK, SK } from './layout';
import { cancelledItem, conditionFailureItem } from './returned-items';
import type { StoreContext } from './store-context';
import type { Item, TransactItem } from './table-access';

/** Operations per transaction besides the run item (DynamoDB allows 100 items). */
const OPERATIONS_PER_TRANSACTION = 99;
/** Bytes per transaction, under DynamoDB's 4 MB with room for the size estimate. */
const TRANSACTION_BYTES = 3_500_000;

/**
 * Writes operation items with a conditional update of the run item: one UpdateItem without
 * operations, else one TransactWriteItems per 99 operations (and under 4 MB), each conditioned
 * on the run as the update is (earlier ones by a ConditionCheck), the update itself with the
 * last, so a run never shows an outcome before its operations. A failed run condition throws
 * what `fenced` makes of the run item as it is (returned with the failure, no read: undefined when
 * there is none), a {@link FencedError} by default; then the transaction wrote nothing.
 */
export async function writeFenced(
  ctx: StoreContext,
  pk: string,
  operations: ReadonlyArray<{ item: Item; size: number }>,
  runUpdate: NonNullable<TransactItem['Update']>,
  fenced: (current: Item | undefined) => Error = () => new FencedError(),
): Promise<void> {
  const update = { ...runUpdate, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const };
  if (operations.length === 0) {
    try {
      await retryConflicts(() => ctx.access.client.send(new UpdateCommand(update)));
    } catch (error) {
      if (isConditionFailure(error)) throw fenced(conditionFailureItem(error));
      throw error;
    }
    return;
  }
  const batches: Item[][] = [[]];
  let bytes = 0;
  for (const { item, size } of operations) {
    const batch = batches[batches.length - 1] as Item[];
    if (batch.length > 0 && (batch.length >= OPERATIONS_PER_TRANSACTION || bytes + size > TRANSACTION_BYTES)) {
      batches.push([item]);
      bytes = size;
    } else {
      batch.push(item);
      bytes += size;
    }
  }
  for (const [index, batch] of batches.entries()) {
    const runEntry: TransactItem =
      index === batches.length - 1
        ? { Update: update }
        : {
            ConditionCheck: {
              TableName: ctx.table,
              Key: { [PK]: pk, [SK]: RUN_SK },
              ConditionExpression: runUpdate.ConditionExpression as string,
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              ...conditionAttributes(runUpdate),
            },
          };
    try {
      await ctx.access.transact([runEntry, ...batch.map((item) => ({ Put: { TableName: ctx.table, Item: item } }))]);
    } catch (error) {
      if (failedConditionAt(error, 0)) throw fenced(cancelledItem(error, 0));
      throw error;
    }
  }
}

/** The names and values a condition expression of an update uses (DynamoDB refuses unused ones). */
function conditionAttributes(update: NonNullable<TransactItem['Update']>): {
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
} {
  const used = update.ConditionExpression ?? '';
  const pick = <T>(map: Record<string, T> | undefined) =>
    Object.fromEntries(Object.entries(map ?? {}).filter(([key]) => new RegExp(`${key}(?![A-Za-z0-9_])`).test(used)));
  const names = pick(update.ExpressionAttributeNames);
  const values = pick(update.ExpressionAttributeValues as Record<string, unknown> | undefined);
  return {
    ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
    ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
  };
}
