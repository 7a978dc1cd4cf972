import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { LeaseGrant, RunPatch, RunRecord, RunStatus } from '@durable-lambda/engine';
import { FencedError, type Operation } from '@durable-lambda/protocol';
import { failedConditionAt, isConditionFailure } from './errors';
import { Expressions } from './expressions';
import { writeFenced } from './fenced-writes';
import { operationItem, runItem } from './items';
import { PK, RUN_SK, runPk, SK } from './layout';
import { applyRunPatch } from './run-patch';
import type { StoreContext } from './store-context';
import type { Item } from './table-access';

/**
 * A revision releases the lease itself (its fence moves on), so a patch's `leaseExpiresAt` is left
 * out: one UpdateItem may not both set and remove an attribute.
 */
const NO_LEASE_PATCH = new Set<keyof RunRecord>(['leaseExpiresAt']);

/**
 * Creates a run with its EXECUTION operation in one transaction, unless a live run has the id
 * (then returns it, `created: false`). A run whose retention has passed is replaced in place,
 * conditioned on the expired item as read, since DynamoDB may not have deleted it yet.
 */
export async function createRun(
  ctx: StoreContext,
  run: RunRecord,
  execution: Operation,
): Promise<{ created: boolean; run: RunRecord }> {
  const pk = runPk(run.runId);
  let replacing: Item | undefined;
  let chunksWritten = false;
  for (let attempt = 0; attempt < 5; attempt++) {
    const now = ctx.clock.now();
    // A run re-created over an expired one starts above its fences: its operations stay hidden
    // (they carry lower fences) and its invocations' fences are never valid again.
    const epoch = replacing ? Math.max(run.fence, Number(replacing.fence ?? 0) + 1) : run.fence;
    const stored: RunRecord = { ...run, fence: epoch };
    const ttl = ctx.itemTtl(now, run.expiresAt);
    const runPrepared = runItem(stored, epoch, ctx.limits, ttl);
    const opPrepared = operationItem(run.runId, execution, epoch, ttl, ctx.limits);
    if (!chunksWritten) {
      await ctx.access.writeChunks([...runPrepared.chunks, ...opPrepared.chunks]);
      chunksWritten = true;
    }
    const c = new Expressions();
    const condition = replacing
      ? `${c.name('fence')} = ${c.value(replacing.fence)} AND ${c.name('expiresAt')} = ${c.value(replacing.expiresAt)}`
      : `attribute_not_exists(${c.name(PK)})`;
    try {
      await ctx.access.transact([
        { Put: { TableName: ctx.table, Item: runPrepared.item, ConditionExpression: condition, ...c.attributes() } },
        { Put: { TableName: ctx.table, Item: opPrepared.item } },
      ]);
      return { created: true, run: structuredClone(stored) };
    } catch (error) {
      if (!failedConditionAt(error, 0)) throw error;
    }
    const existing = await ctx.access.getItem(pk, RUN_SK);
    if (existing && ctx.live(existing)) return { created: false, run: await ctx.runOf(existing) };
    replacing = existing;
  }
  throw new Error(`run ${run.runId}: could not create it, the stored run kept changing`);
}

/**
 * Takes the lease of a running, live run when it is free or lapsed, moving its fence on by one in
 * a single conditional UpdateItem. A lease taken over from a lapsed one counts a lost invocation.
 * Returns undefined when the lease is held (or the run is not running).
 */
export async function acquireLease(
  ctx: StoreContext,
  runId: string,
  now: number,
  leaseExpiresAt: number,
): Promise<LeaseGrant | undefined> {
  const e = new Expressions();
  const lease = e.name('leaseExpiresAt');
  const condition = [
    `attribute_exists(${e.name(PK)})`,
    `${e.name('status')} = ${e.value('RUNNING')}`,
    `(attribute_not_exists(${lease}) OR ${lease} <= ${e.value(now)})`,
    ctx.liveCondition(e),
  ].join(' AND ');
  e.setTo('leaseExpiresAt', leaseExpiresAt).setTo('updatedAt', now).adds('fence', 1).adds('invocations', 1);
  let old: Item | undefined;
  try {
    const out = await ctx.access.client.send(
      new UpdateCommand({
        TableName: ctx.table,
        Key: { [PK]: runPk(runId), [SK]: RUN_SK },
        UpdateExpression: e.update(),
        ConditionExpression: condition,
        ReturnValues: 'ALL_OLD',
        ...e.attributes(),
      }),
    );
    old = out.Attributes;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
  if (!old) return undefined;
  const before = await ctx.runOf(old);
  const previousLost = before.leaseExpiresAt !== undefined;
  const run: RunRecord = {
    ...before,
    fence: before.fence + 1,
    leaseExpiresAt,
    invocations: before.invocations + 1,
    lostInvocations: before.lostInvocations + (previousLost ? 1 : 0),
    updatedAt: now,
  };
  if (previousLost) await countLostInvocation(ctx, runId, run.fence);
  return { run, previousLost };
}

/**
 * Changes a run from outside its invocations (the control API) while its status is
 * `expectStatus`: patches it, writes `operations`, moves its fence on (so the holder of any lease
 * is fenced) and releases the lease. Returns the revised run, or undefined when the run is gone
 * or has another status.
 */
export async function reviseRun(
  ctx: StoreContext,
  runId: string,
  expectStatus: RunStatus,
  patch: RunPatch,
  operations: readonly Operation[],
): Promise<RunRecord | undefined> {
  const pk = runPk(runId);
  for (let attempt = 0; attempt < 5; attempt++) {
    // Read first: the revised run is returned, and the operations are written with its new fence.
    const current = await ctx.access.getItem(pk, RUN_SK);
    if (!current || !ctx.live(current) || current.status !== expectStatus) return undefined;
    const before = await ctx.runOf(current);
    const now = ctx.clock.now();
    const fence = before.fence + 1;
    const expiresAt = typeof patch.expiresAt === 'number' ? patch.expiresAt : undefined;
    const ttl = ctx.itemTtl(now, expiresAt);
    const prepared = operationItems(ctx, runId, operations, fence, ttl);
    const e = new Expressions();
    const condition = [
      `${e.name('fence')} = ${e.value(before.fence)}`,
      `${e.name('status')} = ${e.value(expectStatus)}`,
      ctx.liveCondition(e, now),
    ].join(' AND ');
    const chunks = applyRunPatch(e, runId, patch, ctx.limits, ttl, NO_LEASE_PATCH);
    e.setTo('fence', fence).setTo('updatedAt', now).removes('leaseExpiresAt');
    await ctx.access.writeChunks([...prepared.flatMap((p) => p.chunks), ...chunks]);
    try {
      await writeFenced(ctx, pk, prepared, {
        TableName: ctx.table,
        Key: { [PK]: pk, [SK]: RUN_SK },
        UpdateExpression: e.update(),
        ConditionExpression: condition,
        ...e.attributes(),
      });
    } catch (error) {
      // The run moved on (a lease, a commit) since the read: look again.
      if (error instanceof FencedError) continue;
      throw error;
    }
    const revised: Record<string, unknown> = { ...before, fence, updatedAt: now };
    delete revised.leaseExpiresAt;
    for (const [key, value] of Object.entries(patch)) {
      if (key === 'leaseExpiresAt' || value === undefined) continue;
      if (value === null) delete revised[key];
      else revised[key] = structuredClone(value);
    }
    return revised as unknown as RunRecord;
  }
  throw new Error(`run ${runId}: could not revise it, the stored run kept changing`);
}

/**
 * Writes an invocation's operations and run patch while `fence` is still the run's (see
 * {@link writeFenced}); throws a {@link FencedError} once another invocation has the run.
 */
export async function commit(
  ctx: StoreContext,
  runId: string,
  fence: number,
  write: { operations: readonly Operation[]; run?: RunPatch },
): Promise<void> {
  const now = ctx.clock.now();
  const pk = runPk(runId);
  const expiresAt = typeof write.run?.expiresAt === 'number' ? write.run.expiresAt : undefined;
  const ttl = ctx.itemTtl(now, expiresAt);
  // Everything is prepared, and checked against the payload limit, before anything is written.
  const prepared = operationItems(ctx, runId, write.operations, fence, ttl);
  const e = new Expressions();
  const condition = fenceCondition(ctx, e, fence, now);
  e.setTo('updatedAt', now);
  const chunks = applyRunPatch(e, runId, write.run, ctx.limits, ttl);
  await ctx.access.writeChunks([...prepared.flatMap((p) => p.chunks), ...chunks]);
  await writeFenced(
    ctx,
    pk,
    prepared,
    {
      TableName: ctx.table,
      Key: { [PK]: pk, [SK]: RUN_SK },
      UpdateExpression: e.update(),
      ConditionExpression: condition,
      ...e.attributes(),
    },
    () => new FencedError(`run ${runId} is no longer owned by fence ${fence}`),
  );
}

/** Operation items to write, the last of each id only, checked against the payload limit. */
function operationItems(
  ctx: StoreContext,
  runId: string,
  operations: readonly Operation[],
  fence: number,
  ttl: number,
) {
  const latest = new Map<string, Operation>();
  for (const op of operations) latest.set(op.Id, op);
  return [...latest.values()].map((op) => operationItem(runId, op, fence, ttl, ctx.limits));
}

/** Adds one lost invocation to the run the lease just went to (only after a crash). */
async function countLostInvocation(ctx: StoreContext, runId: string, fence: number): Promise<void> {
  const e = new Expressions();
  const condition = `${e.name('fence')} = ${e.value(fence)}`;
  e.adds('lostInvocations', 1);
  try {
    await ctx.access.client.send(
      new UpdateCommand({
        TableName: ctx.table,
        Key: { [PK]: runPk(runId), [SK]: RUN_SK },
        UpdateExpression: e.update(),
        ConditionExpression: condition,
        ...e.attributes(),
      }),
    );
  } catch (error) {
    // A newer lease already took over: this grant is stale, and its commits will be fenced.
    if (!isConditionFailure(error)) throw error;
  }
}

/** `fence` is the run's, and its retention has not passed. */
function fenceCondition(ctx: StoreContext, e: Expressions, fence: number, now: number): string {
  return `${e.name('fence')} = ${e.value(fence)} AND ${ctx.liveCondition(e, now)}`;
}
