import { isDeepStrictEqual } from 'node:util';
import type { OperationDeadlines } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import { failedAnyCondition, failedConditionAt } from './errors';
import { Expressions } from './expressions';
import { OP, OP_REFS, operationItem } from './items';
import { DUE_SHARD, dueShard, operationSk, PK, RUN_SK, runPk, SK, TTL } from './layout';
import { getOperation } from './operation-reads';
import type { StoreContext } from './store-context';

/** What an outside write expects of the operation. */
export type OutsideExpectation = Pick<Operation, 'Status'> & { deadlines?: OperationDeadlines };

/**
 * Writes an operation from outside the run's invocations (a callback completed, timed out or
 * heartbeated, a chained invoke's child run ended), without the run's fence: one transaction
 * updating the operation while it is as `expected` and its item's TTL has not passed, and the run
 * item while the run is live (adding one to `eventSeq` when `event`, and making the run due:
 * `dueAt` = the lease's expiry while one is held, else now). Returns false, having written
 * nothing but unreferenced chunks, when either condition fails.
 *
 * A retry is recognised as its own earlier success: the SDK resends a transaction whose response
 * was lost with the same ClientRequestToken, which DynamoDB answers as the success it was; and a
 * write whose operation condition fails because the operation already equals `next` (a retry
 * from further up, or after the token's 10 minutes) is true.
 */
export async function writeOutsideEvent(
  ctx: StoreContext,
  runId: string,
  next: Operation,
  expected: OutsideExpectation,
  event: boolean,
): Promise<boolean> {
  const now = ctx.clock.now();
  const pk = runPk(runId);
  const ttl = ctx.itemTtl(now, undefined);
  // An update, not a put: the operation keeps the fence it was written with.
  const prepared = operationItem(runId, next, 0, ttl, ctx.limits);
  await ctx.access.writeChunks(prepared.chunks);

  const op = new Expressions();
  op.setTo(OP, prepared.item[OP]).setTo(TTL, ttl);
  if (prepared.item[OP_REFS]) op.setTo(OP_REFS, prepared.item[OP_REFS]);
  else op.removes(OP_REFS);
  const opCondition = [
    `attribute_exists(${op.name(PK)})`,
    `${op.name(TTL)} > ${op.value(now / 1000)}`,
    `${op.name(`${OP}.Status`)} = ${op.value(expected.Status)}`,
  ];
  if (expected.deadlines) {
    for (const key of ['TimeoutTimestamp', 'HeartbeatDeadline'] as const) {
      const path = op.name(`${OP}.CallbackDetails.${key}`);
      const value = expected.deadlines[key];
      opCondition.push(value === undefined ? `attribute_not_exists(${path})` : `${path} = ${op.value(value)}`);
    }
  }
  const run = new Expressions();
  const runCondition = `attribute_exists(${run.name(PK)}) AND ${ctx.liveCondition(run, now)}`;
  run.setTo('updatedAt', now);
  if (event) {
    run.adds('eventSeq', 1);
    // Due at once, unless an invocation holds the lease: it handles the event before it ends,
    // and its commit moves `dueAt` on. An ended run gets an entry too, which the reconciler
    // finds not due and removes (the write does not read the run to know).
    run.setToExpression('dueAt', `if_not_exists(${run.name('leaseExpiresAt')}, ${run.value(now)})`);
    run.setTo(DUE_SHARD, dueShard(runId));
  }
  try {
    await ctx.access.transact([
      {
        Update: {
          TableName: ctx.table,
          Key: { [PK]: pk, [SK]: operationSk(next.Id) },
          UpdateExpression: op.update(),
          ConditionExpression: opCondition.join(' AND '),
          ...op.attributes(),
        },
      },
      {
        Update: {
          TableName: ctx.table,
          Key: { [PK]: pk, [SK]: RUN_SK },
          UpdateExpression: run.update(),
          ConditionExpression: runCondition,
          ...run.attributes(),
        },
      },
    ]);
    return true;
  } catch (error) {
    if (!failedAnyCondition(error)) throw error;
    if (!failedConditionAt(error, 0)) return false;
    return alreadyWritten(ctx, runId, next);
  }
}

/** The stored operation already equals `next` (as DynamoDB stores it: no undefined fields). */
async function alreadyWritten(ctx: StoreContext, runId: string, next: Operation): Promise<boolean> {
  const stored = await getOperation(ctx, runId, next.Id);
  return (
    stored !== undefined && isDeepStrictEqual(JSON.parse(JSON.stringify(stored)), JSON.parse(JSON.stringify(next)))
  );
}
