import { isDeepStrictEqual } from 'node:util';
import type { OperationDeadlines } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import { UpdateCommand } from './commands';
import { failedAnyCondition, failedConditionAt, isConditionFailure } from './errors';
import { Expressions } from './expressions';
import { prepareEntry, readInlineOperation } from './inline-operations';
import { INFLIGHT, OP, OP_REFS, operationItem } from './items';
import { DUE_SHARD, dueShard, operationSk, PK, RUN_SK, runPk, SK, TTL } from './layout';
import { getOperation, RUN_ATTRIBUTES_FOR_OPERATIONS } from './operation-reads';
import { conditionFailureItem } from './returned-items';
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
  const inline = await writeInlineOutsideEvent(ctx, runId, next, expected, event);
  if (inline !== undefined) return inline;
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

/**
 * Layout 2: the operation is an entry of the run item. One strongly consistent read of the run item
 * finds the entry's text, the expectation is checked on it, and one UpdateItem replaces the text
 * while it is still the text read (a compare-and-swap: a commit or another outside writer in
 * between makes it fail, and it is read again), with the run's `eventSeq` and `dueAt` as the
 * transaction did. Undefined when the run item holds no entry for it (an operation item: layout 1,
 * or one the map had no room for), which the transaction then writes.
 */
async function writeInlineOutsideEvent(
  ctx: StoreContext,
  runId: string,
  next: Operation,
  expected: OutsideExpectation,
  event: boolean,
): Promise<boolean | undefined> {
  const pk = runPk(runId);
  for (let attempt = 0; attempt < 5; attempt++) {
    const now = ctx.clock.now();
    const run = await ctx.access.getItem(pk, RUN_SK, RUN_ATTRIBUTES_FOR_OPERATIONS);
    if (!run || !ctx.live(run)) return false;
    const raw = (run[INFLIGHT] as Record<string, unknown> | undefined)?.[next.Id];
    if (raw === undefined) return attempt === 0 ? undefined : false;
    const current = await readInlineOperation(ctx.access, run, next.Id, now);
    if (!current) return false;
    if (!matches(current, expected)) return sameOperation(current, next);
    const prepared = prepareEntry(runId, next, ctx.itemTtl(now, undefined), ctx.limits);
    if (!prepared) return undefined;
    await ctx.access.writeChunks(prepared.chunks);
    const e = new Expressions();
    e.setEntry(INFLIGHT, next.Id, prepared.text).setTo('updatedAt', now);
    if (event) {
      e.adds('eventSeq', 1);
      e.setToExpression('dueAt', `if_not_exists(${e.name('leaseExpiresAt')}, ${e.value(now)})`);
      e.setTo(DUE_SHARD, dueShard(runId));
    }
    const condition = `${e.entry(INFLIGHT, next.Id)} = ${e.value(raw)} AND ${ctx.liveCondition(e, now)}`;
    try {
      await ctx.access.client.send(
        new UpdateCommand({
          TableName: ctx.table,
          Key: { [PK]: pk, [SK]: RUN_SK },
          UpdateExpression: e.update(),
          ConditionExpression: condition,
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          ...e.attributes(),
        }),
      );
      return true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // Our own write, sent again after a lost response, finds the text it wrote.
      const stored = (conditionFailureItem(error)?.[INFLIGHT] as Record<string, unknown> | undefined)?.[next.Id];
      if (stored === prepared.text) return true;
    }
  }
  return false;
}

/** The operation is as the outside writer expects: its status and the deadlines given. */
function matches(op: Operation, expected: OutsideExpectation): boolean {
  if (op.Status !== expected.Status) return false;
  if (!expected.deadlines) return true;
  for (const key of ['TimeoutTimestamp', 'HeartbeatDeadline'] as const) {
    if (op.CallbackDetails?.[key] !== expected.deadlines[key]) return false;
  }
  return true;
}

/** Two operations are the same as DynamoDB stores them (no undefined fields). */
function sameOperation(a: Operation, b: Operation): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b)));
}

/** The stored operation already equals `next` (as DynamoDB stores it: no undefined fields). */
async function alreadyWritten(ctx: StoreContext, runId: string, next: Operation): Promise<boolean> {
  const stored = await getOperation(ctx, runId, next.Id);
  return stored !== undefined && sameOperation(stored, next);
}
