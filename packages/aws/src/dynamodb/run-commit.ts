import type { RunPatch } from '@durable-lambda/engine';
import { FencedError, type Operation } from '@durable-lambda/protocol';
import { Expressions } from './expressions';
import { operationBatches, type RunEntry, writeFenced } from './fenced-writes';
import {
  earlierRunEntry,
  type InlineKnowledge,
  inlineable,
  inlineUpdate,
  knowledgeOf,
  MAX_INLINE_STARTS,
  stepIds,
} from './inline-starts';
import { OP, operationItems, type Prepared } from './items';
import { PK, RUN_SK, runPk, SK } from './layout';
import { applyRunPatch } from './run-patch';
import type { StoreContext } from './store-context';
import type { Item } from './table-access';

/**
 * Refusals a commit learns from and writes again after: an outside event landed, or the inline
 * map is not as the write assumed. Each one teaches the next attempt what the item returned
 * with the refusal says, so a second refusal means the run moved again.
 */
const MAX_ATTEMPTS = 5;

/** The run is still ours, but refused the commit: what the item returned with the refusal says. */
class Refused extends Error {
  constructor(
    readonly known: InlineKnowledge,
    readonly eventLanded: boolean,
  ) {
    super('the run item refused the commit');
  }
}

/**
 * Writes an invocation's operations and run patch while `fence` is still the run's (see
 * {@link writeFenced}); throws a {@link FencedError} once another invocation has the run.
 *
 * A step's START goes inline (the run item's `inflight` map, see `inline-starts.ts`) while the map
 * has room; every step written as an item removes its entry. How many fit, this store guesses
 * from what it last knew of the run (its lease, its last commit); the write conditions on the
 * map, and a refusal (the item comes back with it) corrects the guess: written again.
 *
 * The patch's `dueAt` is written as it is: the engine computes it, since a commit does not read
 * the run. One input of it the engine cannot know: an outside event that lands during the
 * invocation grows `eventSeq` past the `handledEventSeq` the patch sets, and the run must then
 * stay due at once. So a patch that sets `handledEventSeq` on a running run is also conditioned on
 * `eventSeq <= handledEventSeq`; when that part fails (the item returned with the failure still
 * has our fence), the same commit is written again with `dueAt` = now.
 */
export async function commit(
  ctx: StoreContext,
  runId: string,
  fence: number,
  write: { operations: readonly Operation[]; run?: RunPatch },
): Promise<void> {
  const now = ctx.clock.now();
  const pk = runPk(runId);
  const patch = write.run;
  const expiresAt = typeof patch?.expiresAt === 'number' ? patch.expiresAt : undefined;
  const ttl = ctx.itemTtl(now, expiresAt);
  // Everything is prepared, and checked against the payload limit, before anything is written.
  const prepared = operationItems(runId, write.operations, fence, ttl, ctx.limits);
  const starts = prepared.filter((p) => inlineable(p, ctx.limits));
  const handled = typeof patch?.handledEventSeq === 'number' ? patch.handledEventSeq : undefined;
  // An ended run is never woken for an event (dueAtOf ignores it), so its end is not checked.
  const watchEvents = handled !== undefined && (patch?.status === undefined || patch.status === 'RUNNING');
  const fenceConditions = (e: Expressions) => [`${e.name('fence')} = ${e.value(fence)}`, ctx.liveCondition(e, now)];
  let known = ctx.inlineStarts.get(runId, fence);
  let eventLanded = false;
  let chunksWritten = false;
  for (let attempt = 1; ; attempt++) {
    const room = known === 'absent' ? 0 : Math.max(0, MAX_INLINE_STARTS - (known?.size ?? 0));
    const inline = starts.slice(0, room).map((p) => p.item[OP] as Operation);
    const inlineIds = new Set(inline.map((op) => op.Id));
    const items = prepared.filter((p) => !inlineIds.has((p.item[OP] as Operation).Id));
    const batches = operationBatches(items);
    const e = new Expressions();
    const conditions = fenceConditions(e);
    if (watchEvents && !eventLanded) conditions.push(`${e.name('eventSeq')} <= ${e.value(handled)}`);
    e.setTo('updatedAt', now);
    const runPatch = eventLanded ? { ...patch, dueAt: now } : patch;
    const chunks = applyRunPatch(e, runId, runPatch, ctx.limits, ttl);
    inlineUpdate(e, conditions, inline, stepIds(batches[batches.length - 1] ?? []), known === 'absent');
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
    if (!chunksWritten) {
      await ctx.access.writeChunks([...prepared.flatMap((p) => p.chunks), ...chunks]);
      chunksWritten = true;
    }
    try {
      await writeFenced(ctx, batches, entries, (current) => {
        if (!holds(ctx, current, fence)) return new FencedError(`run ${runId} is no longer owned by fence ${fence}`);
        const seq = current?.eventSeq;
        const landed = watchEvents && !eventLanded && !(typeof seq === 'number' && seq <= (handled as number));
        return new Refused(knowledgeOf(current), landed);
      });
      ctx.inlineStarts.set(runId, fence, knownAfter(known, inline, items));
      return;
    } catch (error) {
      // Nothing of the refused transaction was written: write it all again, as the run now is.
      if (error instanceof Refused && attempt < MAX_ATTEMPTS) {
        known = error.known;
        eventLanded ||= error.eventLanded;
        continue;
      }
      ctx.inlineStarts.set(runId, fence, undefined);
      if (error instanceof Refused) throw new Error(`run ${runId}: the run item kept refusing the commit`);
      throw error;
    }
  }
}

/** The map after a commit written on `known`: its entries, less the steps written as items, plus the new ones. */
function knownAfter(known: InlineKnowledge, inline: readonly Operation[], items: readonly Prepared<Item>[]) {
  if (known === undefined || known === 'absent') return known;
  const removed = new Set(stepIds(items.map((p) => p.item)));
  return new Set([...[...known].filter((id) => !removed.has(id)), ...inline.map((op) => op.Id)]);
}

/** The run item (as returned with a failed condition) is still live and ours. */
function holds(ctx: StoreContext, item: Item | undefined, fence: number): boolean {
  return item !== undefined && item.fence === fence && ctx.live(item);
}
