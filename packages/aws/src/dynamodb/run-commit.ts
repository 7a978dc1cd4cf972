import type { CommitWrite, RunPatch } from '@durable-lambda/engine';
import { FencedError, type Operation } from '@durable-lambda/protocol';
import { AwsError } from '../aws-error';
import { approximateSize } from './chunks';
import { Expressions } from './expressions';
import { operationBatches, type RunEntry, writeFenced } from './fenced-writes';
import {
  CURRENT_LAYOUT,
  earlierRunEntry,
  HAS_ITEMS,
  type InlineKnowledge,
  type InlineState,
  inlineUpdate,
  itemIds,
  knowledgeOf,
  LAYOUT_VERSION,
  maxInlineEntries,
  type PreparedEntry,
  prepareEntry,
  spillPlan,
  stateAfter,
} from './inline-operations';
import { operationItems, type Prepared } from './items';
import { PK, RUN_SK, runPk, SK } from './layout';
import { applyRunPatch } from './run-patch';
import { spillEntries } from './spill';
import type { StoreContext } from './store-context';
import type { Item } from './table-access';
import { userWriteBytes } from './user-writes';

/**
 * Refusals a commit learns from and writes again after: an outside event landed, or the map is not
 * as the write assumed. Each one teaches the next attempt what the item returned with the refusal
 * says, so a second refusal means the run moved again.
 */
const MAX_ATTEMPTS = 5;

/**
 * The run is still ours, but refused the commit: what the item returned with the refusal says.
 * Code `commit_refused`; caught by {@link commit}, which writes again (exported for its test).
 */
export class Refused extends AwsError<'commit_refused'> {
  /** Stable code. */
  readonly code = 'commit_refused';
  constructor(
    readonly known: InlineKnowledge,
    readonly eventLanded: boolean,
  ) {
    super('the run item refused the commit');
  }
}

/**
 * Writes an invocation's operations and run patch while `fence` is still the run's; throws a
 * {@link FencedError} once another invocation has the run.
 *
 * Layout 2 (`inline-operations.ts`): the operations go inline, as entries of the run item, so the
 * common checkpoint is ONE conditional UpdateItem (fence, retention, the map's room), which makes
 * them committed at once; finished entries already committed move out to operation items first
 * when the item would otherwise grow into another kilobyte (plain conditional PutItems, then the
 * update removes them). Only operations that do not fit the map (more than
 * {@link MAX_INLINE_OPERATIONS} at once) are written as items, in a transaction with the run item.
 * What the map holds the store knows from the lease and its own commits; a refusal returns the
 * item and corrects it.
 *
 * The patch's `dueAt` is written as it is: the engine computes it, since a commit does not read
 * the run. One input of it the engine cannot know: an outside event that lands during the
 * invocation grows `eventSeq` past the `handledEventSeq` the patch sets, and the run must then
 * stay due at once. So a patch that sets `handledEventSeq` on a running run is also conditioned on
 * `eventSeq <= handledEventSeq`; when that part fails (the item returned with the failure still
 * has our fence), the same commit is written again with `dueAt` = now.
 */
export async function commit(ctx: StoreContext, runId: string, fence: number, write: CommitWrite): Promise<void> {
  const now = ctx.clock.now();
  const userWrites = write.transactWrites ?? [];
  const reserve = { items: userWrites.length, bytes: userWriteBytes(userWrites) };
  const pk = runPk(runId);
  const patch = write.run;
  const expiresAt = typeof patch?.expiresAt === 'number' ? patch.expiresAt : undefined;
  const ttl = ctx.itemTtl(now, expiresAt);
  const latest = new Map<string, Operation>();
  for (const op of write.operations) latest.set(op.Id, op);
  const handled = typeof patch?.handledEventSeq === 'number' ? patch.handledEventSeq : undefined;
  // An ended run is never woken for an event (dueAtOf ignores it), so its end is not checked.
  const watchEvents = handled !== undefined && (patch?.status === undefined || patch.status === 'RUNNING');
  const fenceConditions = (e: Expressions) => [`${e.name('fence')} = ${e.value(fence)}`, ctx.liveCondition(e, now)];
  let known = ctx.inline.get(runId, fence);
  let eventLanded = false;
  const chunksWritten = new Set<string>();
  const writeChunks = async (chunks: Prepared<Item>['chunks']) => {
    const fresh = chunks.filter((c) => !chunksWritten.has(String(c[SK])));
    await ctx.access.writeChunks(fresh);
    for (const c of fresh) chunksWritten.add(String(c[SK]));
  };
  for (let attempt = 1; ; attempt++) {
    const state: InlineState | undefined = known === 'absent' ? undefined : known;
    // Each operation's entry is prepared once; what moves out is decided on what this write adds
    // (all of it inline, at first), and frees room.
    const preparedEntries = new Map<string, PreparedEntry | undefined>();
    const entryOf = (op: Operation) => {
      if (!preparedEntries.has(op.Id))
        preparedEntries.set(op.Id, prepareEntry(runId, op, ttl, ctx.limits, state?.input));
      return preparedEntries.get(op.Id);
    };
    const tentative = placeOperations([...latest.values()], ctx, known, new Set(), entryOf);
    const spill = state ? spillPlan(state, tentative.inline, new Set(tentative.itemOps.map((op) => op.Id))) : [];
    const { inline, itemOps } = placeOperations([...latest.values()], ctx, known, new Set(spill), entryOf);
    const prepared = operationItems(runId, itemOps, fence, ttl, ctx.limits);
    const batches = operationBatches(prepared, reserve);
    const removing = new Set([...itemIds(batches[batches.length - 1] ?? []), ...spill]);
    // The map's condition is counted before the write: the entries moving out are credited.
    const newIds = [...inline.keys()].filter((id) => !state?.entries.has(id)).length - spill.length;
    const e = new Expressions();
    const conditions = fenceConditions(e);
    if (watchEvents && !eventLanded) {
      // Absent is 0 (a run item leaves its counters out while they are 0).
      const seq = e.name('eventSeq');
      conditions.push(`(attribute_not_exists(${seq}) OR ${seq} <= ${e.value(handled)})`);
    }
    e.setTo('updatedAt', now);
    if (known !== 'absent') e.setTo(LAYOUT_VERSION, CURRENT_LAYOUT);
    if (spill.length > 0 || prepared.length > 0) e.setTo(HAS_ITEMS, 1);
    const runPatch = eventLanded ? { ...patch, dueAt: now } : patch;
    const patchChunks = applyRunPatch(e, runId, runPatch, ctx.limits, ttl);
    inlineUpdate(e, conditions, inline, removing, known === 'absent', newIds, maxInlineEntries(ctx.limits));
    const key = { [PK]: pk, [SK]: RUN_SK };
    const entries: RunEntry[] = [
      ...batches
        .slice(0, -1)
        .map((batch) => earlierRunEntry(ctx.table, key, batch, fenceConditions, known === 'absent')),
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
    await writeChunks([
      ...[...inline.values()].flatMap((p) => p.chunks),
      ...prepared.flatMap((p) => p.chunks),
      ...patchChunks,
    ]);
    // Committed finished entries first become items (of this fence), then the update drops them.
    if (state && spill.length > 0) await spillEntries(ctx, runId, fence, ttl, spill, state);
    try {
      await writeFenced(
        ctx,
        batches,
        entries,
        (current) => {
          if (!holds(ctx, current, fence)) return new FencedError(`run ${runId} is no longer owned by fence ${fence}`);
          const seq = current === undefined ? undefined : (current.eventSeq ?? 0);
          const landed = watchEvents && !eventLanded && !(typeof seq === 'number' && seq <= (handled as number));
          return new Refused(knowledgeOf(current), landed);
        },
        userWrites,
      );
      const grown = approximateSize(runPatchBytes(runPatch));
      ctx.inline.set(
        runId,
        fence,
        state ? stateAfter(state, inline, removing, grown) : known === 'absent' ? 'absent' : undefined,
      );
      return;
    } catch (error) {
      // Nothing of the refused write was written: write it all again, as the run now is.
      if (error instanceof Refused && attempt < MAX_ATTEMPTS) {
        known = error.known;
        eventLanded ||= error.eventLanded;
        continue;
      }
      ctx.inline.set(runId, fence, undefined);
      if (error instanceof Refused) throw new Error(`run ${runId}: the run item kept refusing the commit`);
      throw error;
    }
  }
}

/**
 * Which operations go inline (as many as the map has room for, by what is known of it: all of them
 * when nothing is known, the write's condition then checks) and which are items (too large for an
 * entry even with fields moved out, beyond the map's room, or a run item without a map).
 */
function placeOperations(
  operations: readonly Operation[],
  ctx: StoreContext,
  known: InlineKnowledge,
  leaving: ReadonlySet<string>,
  entryOf: (op: Operation) => PreparedEntry | undefined,
): { inline: Map<string, PreparedEntry>; itemOps: Operation[] } {
  const inline = new Map<string, PreparedEntry>();
  const itemOps: Operation[] = [];
  if (known === 'absent') return { inline, itemOps: [...operations] };
  // Entries moving out in this write make room: they are known to be there (committed, finished).
  let room = maxInlineEntries(ctx.limits) - (known?.entries.size ?? 0) + leaving.size;
  for (const op of operations) {
    const already = known?.entries.has(op.Id) === true;
    const entry = already || room > 0 ? entryOf(op) : undefined;
    if (!entry) {
      itemOps.push(op);
      continue;
    }
    if (!already) room--;
    inline.set(op.Id, entry);
  }
  return { inline, itemOps };
}

/** What a patch adds to the run item, roughly: the values it sets. */
function runPatchBytes(patch: RunPatch | undefined): unknown {
  return Object.fromEntries(Object.entries(patch ?? {}).filter(([, v]) => v !== null && v !== undefined));
}

/** The run item (as returned with a failed condition) is still live and ours. */
function holds(ctx: StoreContext, item: Item | undefined, fence: number): boolean {
  return item !== undefined && item.fence === fence && ctx.live(item);
}
