import type { RunPatch } from '@durable-lambda/engine';
import { FencedError, type Operation } from '@durable-lambda/protocol';
import { Expressions } from './expressions';
import { writeFenced } from './fenced-writes';
import { operationItems } from './items';
import { PK, RUN_SK, runPk, SK } from './layout';
import { applyRunPatch } from './run-patch';
import type { StoreContext } from './store-context';
import type { Item } from './table-access';

/** The commit's condition failed only because an outside event landed after what it handled. */
class EventLanded extends Error {}

/**
 * Writes an invocation's operations and run patch while `fence` is still the run's (see
 * {@link writeFenced}); throws a {@link FencedError} once another invocation has the run.
 *
 * The patch's `dueAt` is written as it is: the engine computes it, since a commit does not read
 * the run. One input of it the engine cannot know: an outside event that lands during the
 * invocation grows `eventSeq` past the `handledEventSeq` the patch sets, and the run must then
 * stay due at once. So a patch that sets `handledEventSeq` on a running run is also conditioned on
 * `eventSeq <= handledEventSeq`; when only that part fails (the item returned with the failure
 * still has our fence), the same commit is written again with `dueAt` = now.
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
  const handled = typeof patch?.handledEventSeq === 'number' ? patch.handledEventSeq : undefined;
  // An ended run is never woken for an event (dueAtOf ignores it), so its end is not checked.
  const watchEvents = handled !== undefined && (patch?.status === undefined || patch.status === 'RUNNING');
  let chunksWritten = false;
  for (const eventLanded of watchEvents ? [false, true] : [true]) {
    const e = new Expressions();
    const conditions = [`${e.name('fence')} = ${e.value(fence)}`, ctx.liveCondition(e, now)];
    if (!eventLanded) conditions.push(`${e.name('eventSeq')} <= ${e.value(handled)}`);
    e.setTo('updatedAt', now);
    const runPatch = eventLanded && watchEvents ? { ...patch, dueAt: now } : patch;
    const chunks = applyRunPatch(e, runId, runPatch, ctx.limits, ttl);
    if (!chunksWritten) {
      await ctx.access.writeChunks([...prepared.flatMap((p) => p.chunks), ...chunks]);
      chunksWritten = true;
    }
    try {
      await writeFenced(
        ctx,
        pk,
        prepared,
        {
          TableName: ctx.table,
          Key: { [PK]: pk, [SK]: RUN_SK },
          UpdateExpression: e.update(),
          ConditionExpression: conditions.join(' AND '),
          ...e.attributes(),
        },
        (current) =>
          !eventLanded && holds(ctx, current, fence)
            ? new EventLanded()
            : new FencedError(`run ${runId} is no longer owned by fence ${fence}`),
      );
      return;
    } catch (error) {
      // Nothing was written: write it all again, due now.
      if (error instanceof EventLanded) continue;
      throw error;
    }
  }
}

/** The run item (as returned with a failed condition) is still live and ours. */
function holds(ctx: StoreContext, item: Item | undefined, fence: number): boolean {
  return item !== undefined && item.fence === fence && ctx.live(item);
}
