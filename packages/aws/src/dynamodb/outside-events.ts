import type { OperationDeadlines } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import { failedAnyCondition } from './errors';
import { Expressions } from './expressions';
import { OP, OP_REFS, operationItem } from './items';
import { operationSk, PK, RUN_SK, runPk, SK, TTL } from './layout';
import type { StoreContext } from './store-context';

/** What an outside write expects of the operation. */
export type OutsideExpectation = Pick<Operation, 'Status'> & { deadlines?: OperationDeadlines };

/**
 * Writes an operation from outside the run's invocations (a callback completed, timed out or
 * heartbeated, a chained invoke's child run ended), without the run's fence: one transaction
 * updating the operation while it is as `expected` and its item's TTL has not passed, and the run
 * item while the run is live (adding one to `eventSeq` when `event`). Returns false, having
 * written nothing but unreferenced chunks, when either condition fails.
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
  if (event) run.adds('eventSeq', 1);
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
    if (failedAnyCondition(error)) return false;
    throw error;
  }
}
