import { randomUUID } from 'node:crypto';
import {
  addToMeter,
  dueAtOf,
  type RevisionBase,
  type RunPatch,
  type RunRecord,
  type RunStatus,
} from '@durable-lambda/engine';
import { FencedError, type Operation } from '@durable-lambda/protocol';
import { failedConditionAt } from './errors';
import { Expressions } from './expressions';
import { operationBatches, type RunEntry, writeFenced } from './fenced-writes';
import { earlierRunEntry, inlineUpdate, knowledgeOf, stepIds } from './inline-starts';
import { operationItem, operationItems, REVISION, runItem } from './items';
import { PK, RUN_SK, runPk, SK } from './layout';
import { applyRunPatch, setDueAt } from './run-patch';
import type { StoreContext } from './store-context';
import type { Item } from './table-access';

/**
 * A revision releases the lease itself (its fence moves on), so a patch's `leaseExpiresAt` is left
 * out (one UpdateItem may not both set and remove an attribute), and it computes `dueAt` itself
 * from the run it read.
 */
const REVISION_SKIPS = new Set<keyof RunRecord>(['leaseExpiresAt', 'dueAt']);

/** The revision's condition failed because the revision is already written: its own retry. */
class AlreadyRevised extends Error {}

/** The run with `dueAt` as {@link dueAtOf} says (absent when it is not due). */
function withDueAt(run: RunRecord): RunRecord {
  const { dueAt: _stale, ...rest } = run;
  const dueAt = dueAtOf(rest);
  return dueAt === undefined ? rest : { ...rest, dueAt };
}

/**
 * Creates a run with its EXECUTION operation in one transaction, unless a live run has the id
 * (then returns it, `created: false`). A run whose retention has passed is replaced in place,
 * conditioned on the expired item as read, since DynamoDB may not have deleted it yet. The run
 * enters the due index at {@link dueAtOf} (a new run is due at once: nothing may have woken it).
 * A transaction whose response was lost is sent again by the SDK with the same
 * ClientRequestToken, which DynamoDB answers as the success it was.
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
    const stored = withDueAt({ ...run, fence: epoch });
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
 * Changes a run from outside its invocations (the control API, the reconciler) while its status
 * is `expectStatus`: patches it, writes `operations`, moves its fence on (so the holder of any
 * lease is fenced) and releases the lease. It reads the run first, so it writes `dueAt` as
 * {@link dueAtOf} says of the revised run (a patch's own `dueAt` agrees with it, when the caller
 * computed it from the same run). A step it writes (a reopened one) drops its inline START in the
 * same transaction. Returns the revised run, or undefined when the run is gone or has another
 * status.
 */
export async function reviseRun(
  ctx: StoreContext,
  runId: string,
  expectStatus: RunStatus,
  patch: RunPatch,
  operations: readonly Operation[],
  basedOn?: RevisionBase,
): Promise<RunRecord | undefined> {
  const pk = runPk(runId);
  for (let attempt = 0; attempt < 5; attempt++) {
    // Read first: the revised run is returned, and the operations are written with its new fence.
    const current = await ctx.access.getItem(pk, RUN_SK);
    if (!current || !ctx.live(current) || current.status !== expectStatus) return undefined;
    // The write below is conditioned on this fence, so checking it here is enough.
    if (basedOn !== undefined && current.fence !== basedOn.fence) return undefined;
    const before = await ctx.runOf(current);
    const now = ctx.clock.now();
    const fence = before.fence + 1;
    const expiresAt = typeof patch.expiresAt === 'number' ? patch.expiresAt : undefined;
    const ttl = ctx.itemTtl(now, expiresAt);
    const prepared = operationItems(runId, operations, fence, ttl, ctx.limits);
    const batches = operationBatches(prepared);
    // Read with the run: whether its inline map exists (only a lease or a new run creates it).
    const absent = knowledgeOf(current) === 'absent';
    const conditionsOf = (e: Expressions) => [
      `${e.name('fence')} = ${e.value(before.fence)}`,
      `${e.name('status')} = ${e.value(expectStatus)}`,
      ctx.liveCondition(e, now),
    ];
    const e = new Expressions();
    const conditions = conditionsOf(e);
    const chunks = applyRunPatch(e, runId, patch, ctx.limits, ttl, REVISION_SKIPS);
    const revised: Record<string, unknown> = { ...before, fence, updatedAt: now };
    delete revised.leaseExpiresAt;
    delete revised.leaseToken;
    for (const [key, value] of Object.entries(patch)) {
      if (REVISION_SKIPS.has(key as keyof RunRecord) || value === undefined) continue;
      if (value === null) delete revised[key];
      else revised[key] = structuredClone(value);
    }
    // Run meter hook: the meter is an increment (run-meter.ts).
    if (patch.meter) revised.meter = addToMeter(before.meter, patch.meter);
    const result = withDueAt(revised as unknown as RunRecord);
    // Marks the revision, so a retry of it after a lost response (which finds the fence moved)
    // knows its own write.
    const revision = randomUUID();
    e.setTo('fence', fence).setTo('updatedAt', now).setTo(REVISION, revision);
    e.removes('leaseExpiresAt').removes('leaseToken');
    setDueAt(e, runId, result.dueAt ?? null);
    // A reopened step's item is newer than its inline START: the entry goes.
    inlineUpdate(e, conditions, [], stepIds(batches[batches.length - 1] ?? []), absent);
    const key = { [PK]: pk, [SK]: RUN_SK };
    const entries: RunEntry[] = [
      ...batches.slice(0, -1).map((batch) => earlierRunEntry(ctx.table, key, batch, conditionsOf, absent)),
      {
        Update: {
          TableName: ctx.table,
          Key: key,
          UpdateExpression: e.update(),
          ConditionExpression: conditions.join(' AND '),
          ...e.attributes(),
        },
      },
    ];
    await ctx.access.writeChunks([...prepared.flatMap((p) => p.chunks), ...chunks]);
    try {
      await writeFenced(ctx, batches, entries, (stored) =>
        stored?.[REVISION] === revision ? new AlreadyRevised() : new FencedError(),
      );
    } catch (error) {
      if (error instanceof AlreadyRevised) return result;
      // The run moved on (a lease, a commit) since the read: look again.
      if (error instanceof FencedError) continue;
      throw error;
    }
    return result;
  }
  throw new Error(`run ${runId}: could not revise it, the stored run kept changing`);
}
