import { randomUUID } from 'node:crypto';
import {
  addToMeter,
  dueAtOf,
  functionBaseName,
  type RevisionBase,
  type RunPatch,
  type RunRecord,
  type RunStatus,
} from '@durable-lambda/engine';
import { FencedError, type Operation } from '@durable-lambda/protocol';
import { AwsError } from '../aws-error';
import { PutCommand } from './commands';
import { isConditionFailure } from './errors';
import { Expressions } from './expressions';
import { operationBatches, type RunEntry, writeFenced } from './fenced-writes';
import {
  CURRENT_LAYOUT,
  earlierRunEntry,
  HAS_ITEMS,
  inlineUpdate,
  itemIds,
  knowledgeOf,
  LAYOUT_VERSION,
  maxInlineEntries,
  type PreparedEntry,
  prepareEntry,
} from './inline-operations';
import { INFLIGHT, operationItems, REVISION, runItem } from './items';
import { FUNCTIONS_PK, PK, RUN_SK, runPk, SK } from './layout';
import { conditionFailureItem } from './returned-items';
import { applyRunPatch, setDueAt } from './run-patch';
import type { StoreContext } from './store-context';
import type { Item } from './table-access';

/**
 * A revision releases the lease itself (its fence moves on), so a patch's `leaseExpiresAt` is left
 * out (one UpdateItem may not both set and remove an attribute), and it computes `dueAt` itself
 * from the run it read.
 */
const REVISION_SKIPS = new Set<keyof RunRecord>(['leaseExpiresAt', 'dueAt']);

/**
 * The revision's condition failed because the revision is already written: its own retry. Code
 * `already_revised`; caught where it is thrown (exported for its test).
 */
export class AlreadyRevised extends AwsError<'already_revised'> {
  /** Stable code. */
  readonly code = 'already_revised';
}

/** The run with `dueAt` as {@link dueAtOf} says (absent when it is not due). */
function withDueAt(run: RunRecord): RunRecord {
  const { dueAt: _stale, ...rest } = run;
  const dueAt = dueAtOf(rest);
  return dueAt === undefined ? rest : { ...rest, dueAt };
}

/**
 * The lowest epoch a new run may start at. A run with an incarnation has an id that named runs
 * before (a run key used again): the old run item may be gone already (TTL deletes it, and with
 * it the old fences), while an invocation of the old run still holds a fence, or its spilled
 * operation items (`f`) still stand. Starting at its creation time in ms puts the new run above
 * every fence of an older run of its id, read or not: fences grow by one per lease or revision,
 * each a write of its own, never a thousand a second, and the old run ended and its retention
 * passed before this one was created. A run without one keeps the fence the engine gave it.
 */
function firstEpoch(run: RunRecord, leased: number): number {
  const given = run.fence - leased;
  return run.incarnation === undefined ? given : Math.max(given, Math.floor(run.createdAt));
}

/** On run items: the token of the put that created it, so a put sent again after a lost response knows its own write. */
export const CREATE_TOKEN = 'ct';

/**
 * Creates a run with its EXECUTION operation in one conditional PutItem (layout 2: the EXECUTION
 * is an entry of the run item, sharing its input), unless a live run has the id (then returns it,
 * `created: false`). A run passed with a lease (fence, `leaseExpiresAt`, `leaseToken`: the
 * invocation that starts it) is created already held by it: the start costs one write. A run whose
 * retention has passed is replaced in place, conditioned on the expired item as read (returned
 * with the refusal), since DynamoDB may not have deleted it yet. The run enters the due index at
 * {@link dueAtOf} (a new run is due at once, or when its first lease lapses). A put the SDK sent
 * again after a lost response finds its own item: it holds this call's lease token (a start with
 * its first lease) or create token (`ct`, a start without one).
 */
export async function createRun(
  ctx: StoreContext,
  run: RunRecord,
  execution: Operation,
): Promise<{ created: boolean; run: RunRecord }> {
  await registerFunction(ctx, run.functionName);
  let replacing: Item | undefined;
  let chunksWritten = false;
  const token = randomUUID().slice(0, 13);
  for (let attempt = 0; attempt < 5; attempt++) {
    const now = ctx.clock.now();
    // A run re-created over an expired one starts above its fences: its operations stay hidden
    // (they carry lower fences) and its invocations' fences are never valid again. A run created
    // with its first lease is one fence above its epoch, as a lease would have made it.
    const leased = run.leaseToken === undefined ? 0 : 1;
    const base = firstEpoch(run, leased);
    const epoch = replacing ? Math.max(base, Number(replacing.fence ?? 0) + 1) : base;
    const stored = withDueAt({ ...run, fence: epoch + leased });
    const ttl = ctx.itemTtl(now, run.expiresAt);
    const runPrepared = runItem(stored, epoch, ctx.limits, ttl);
    const entry = prepareEntry(run.runId, execution, ttl, ctx.limits, run.input);
    if (!entry) throw new Error(`run ${run.runId}: its EXECUTION operation does not fit an entry`);
    runPrepared.item[INFLIGHT] = { [execution.Id]: entry.text };
    runPrepared.item[LAYOUT_VERSION] = CURRENT_LAYOUT;
    // A run created with its lease is recognised by its lease token; others carry a token of their own.
    if (run.leaseToken === undefined) runPrepared.item[CREATE_TOKEN] = token;
    if (!chunksWritten) {
      await ctx.access.writeChunks([...runPrepared.chunks, ...entry.chunks]);
      chunksWritten = true;
    }
    const c = new Expressions();
    const condition = replacing
      ? `${c.name('fence')} = ${c.value(replacing.fence)} AND ${c.name('expiresAt')} = ${c.value(replacing.expiresAt)}`
      : `attribute_not_exists(${c.name(PK)})`;
    let existing: Item | undefined;
    try {
      await ctx.access.client.send(
        new PutCommand({
          TableName: ctx.table,
          Item: runPrepared.item,
          ConditionExpression: condition,
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          ...c.attributes(),
        }),
      );
      ctx.inline.set(run.runId, stored.fence, knowledgeOf(runPrepared.item));
      return { created: true, run: structuredClone(stored) };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      existing = conditionFailureItem(error);
    }
    const ours =
      run.leaseToken === undefined ? existing?.[CREATE_TOKEN] === token : existing?.leaseToken === run.leaseToken;
    if (existing !== undefined && ours) {
      ctx.inline.set(run.runId, stored.fence, knowledgeOf(runPrepared.item));
      return { created: true, run: structuredClone(stored) };
    }
    if (existing && ctx.live(existing)) return { created: false, run: await ctx.runOf(existing) };
    replacing = existing ?? (await ctx.access.getItem(runPk(run.runId), RUN_SK));
    if (replacing && ctx.live(replacing)) return { created: false, run: await ctx.runOf(replacing) };
  }
  throw new Error(`run ${run.runId}: could not create it, the stored run kept changing`);
}

/**
 * Puts the run's function in the table's `FUNCTIONS` registry (what a listing with no function
 * reads), once per store instance and function, before its first run is created: a run is never
 * created without its function findable. One small PutItem per container and function.
 */
async function registerFunction(ctx: StoreContext, functionName: string): Promise<void> {
  const base = functionBaseName(functionName);
  if (ctx.registered.has(base)) return;
  await ctx.access.client.send(new PutCommand({ TableName: ctx.table, Item: { [PK]: FUNCTIONS_PK, [SK]: base } }));
  ctx.registered.add(base);
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
    // Layout 2 runs take the operations inline (as many as the map has room for); a layout-1 run
    // (no `lv`) may still be run by the code of a version pinned before layout 2, which reads only
    // items and its own STARTs: it is written as layout 1 wrote it.
    const known = knowledgeOf(current);
    const layout2 = Number(current[LAYOUT_VERSION] ?? 0) >= CURRENT_LAYOUT && known !== 'absent';
    const inline = new Map<string, PreparedEntry>();
    const itemOps: Operation[] = [];
    const latest = new Map<string, Operation>();
    for (const op of operations) latest.set(op.Id, op);
    let room = known === 'absent' || known === undefined ? 0 : maxInlineEntries(ctx.limits) - known.entries.size;
    for (const op of latest.values()) {
      const already = known !== 'absent' && known?.entries.has(op.Id) === true;
      const entry =
        layout2 && (already || room > 0) ? prepareEntry(runId, op, ttl, ctx.limits, before.input) : undefined;
      if (!entry) itemOps.push(op);
      else {
        if (!already) room--;
        inline.set(op.Id, entry);
      }
    }
    const prepared = operationItems(runId, itemOps, fence, ttl, ctx.limits);
    const batches = operationBatches(prepared);
    const absent = known === 'absent';
    const newIds = [...inline.keys()].filter((id) => known === 'absent' || !known?.entries.has(id)).length;
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
    if (prepared.length > 0) e.setTo(HAS_ITEMS, 1);
    e.removes('leaseExpiresAt').removes('leaseToken');
    setDueAt(e, runId, result.dueAt ?? null);
    // An operation written as an item is newer than its entry: the entry goes.
    inlineUpdate(
      e,
      conditions,
      inline,
      new Set(itemIds(batches[batches.length - 1] ?? [])),
      absent,
      newIds,
      maxInlineEntries(ctx.limits),
    );
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
    await ctx.access.writeChunks([
      ...[...inline.values()].flatMap((p) => p.chunks),
      ...prepared.flatMap((p) => p.chunks),
      ...chunks,
    ]);
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
