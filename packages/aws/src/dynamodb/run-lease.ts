import type { LeaseGrant, RunRecord } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import { UpdateCommand } from './commands';
import { isConditionFailure } from './errors';
import { Expressions } from './expressions';
import { type InlineState, knowledgeOf } from './inline-operations';
import { INFLIGHT, LEASE_PREVIOUS, LOST_COUNTED } from './items';
import { DUE_SHARD, dueShard, PK, RUN_SK, runPk, SK } from './layout';
import { replayFromRunItem } from './replay-reads';
import { conditionFailureItem } from './returned-items';
import type { StoreContext } from './store-context';
import type { Item } from './table-access';

/**
 * Takes the lease of a running, live run when it is free or lapsed, moving its fence on by one in
 * a single conditional UpdateItem that also stores `leaseToken`, puts the run in the due index at
 * `leaseExpiresAt`, records the lease it replaced (`leasePrev`) and makes sure the run item has
 * its inline-START map (`inflight`), whose entries then guide the commits of this lease. A lease
 * taken over from a lapsed one counts a lost invocation. Returns undefined when the lease is held
 * (or the run is not running).
 *
 * The SDK sends an UpdateItem again when its response is lost (a timeout, a 5xx); the second one
 * finds the lease held, by this very grant. The failed condition returns the item, and an item
 * holding our token and expiry is our own earlier success: granted, not refused (the lost-response
 * case of issue 9, which otherwise strands the run for a whole lease with no wake-up).
 */
export async function acquireLease(
  ctx: StoreContext,
  runId: string,
  now: number,
  leaseExpiresAt: number,
  leaseToken: string,
): Promise<LeaseGrant | undefined> {
  const e = new Expressions();
  const lease = e.name('leaseExpiresAt');
  const condition = [
    `attribute_exists(${e.name(PK)})`,
    `${e.name('status')} = ${e.value('RUNNING')}`,
    `(attribute_not_exists(${lease}) OR ${lease} <= ${e.value(now)})`,
    ctx.liveCondition(e),
  ].join(' AND ');
  // Operands read the item as it was: `leasePrev` gets the lease this grant replaces.
  e.setToExpression(LEASE_PREVIOUS, `if_not_exists(${lease}, ${e.value(0)})`);
  e.setTo('leaseExpiresAt', leaseExpiresAt).setTo('leaseToken', leaseToken).setTo('updatedAt', now);
  // A run item written before inline STARTs existed gets its map here, before any commit of this lease.
  e.setToExpression(INFLIGHT, `if_not_exists(${e.name(INFLIGHT)}, ${e.value({})})`);
  // Due when the lease lapses, unless due earlier already (as a run being woken is): the index
  // entry then stays as it is, which saves the index two writes (a delete and a put) per lease. The
  // reconciler reads a run it finds due and leaves one whose lease is live.
  e.setToExpression('dueAt', `if_not_exists(${e.name('dueAt')}, ${e.value(leaseExpiresAt)})`);
  e.setToExpression(DUE_SHARD, `if_not_exists(${e.name(DUE_SHARD)}, ${e.value(dueShard(runId))})`);
  e.adds('fence', 1).adds('invocations', 1);
  let granted: {
    run: RunRecord;
    replaced: number;
    counted: boolean;
    inline: InlineState;
    replay?: () => Promise<Operation[]>;
  };
  try {
    const out = await ctx.access.client.send(
      new UpdateCommand({
        TableName: ctx.table,
        Key: { [PK]: runPk(runId), [SK]: RUN_SK },
        UpdateExpression: e.update(),
        ConditionExpression: condition,
        ReturnValues: 'ALL_OLD',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        ...e.attributes(),
      }),
    );
    if (!out.Attributes) return undefined;
    const old = out.Attributes;
    const before = await ctx.runOf(old);
    granted = {
      run: {
        ...before,
        fence: before.fence + 1,
        leaseExpiresAt,
        leaseToken,
        dueAt: before.dueAt ?? leaseExpiresAt,
        invocations: before.invocations + 1,
        updatedAt: now,
      },
      replaced: typeof old.leaseExpiresAt === 'number' ? old.leaseExpiresAt : 0,
      counted: false,
      inline: inlineIds(old),
      // The item as the lease found it holds the inline operations: the replay needs no read of it.
      replay: () => replayFromRunItem(ctx, runId, old),
    };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const current = conditionFailureItem(error);
    if (!current || !ours(ctx, current, leaseExpiresAt, leaseToken)) return undefined;
    granted = {
      run: await ctx.runOf(current),
      replaced: Number(current[LEASE_PREVIOUS] ?? 0),
      counted: current[LOST_COUNTED] === current.fence,
      inline: inlineIds(current),
    };
  }
  const { run, replaced, counted, replay } = granted;
  // The invocation's commits start from the map as the lease found it.
  ctx.inline.set(runId, run.fence, granted.inline);
  const previousLost = replaced > 0;
  if (previousLost && !counted) {
    run.lostInvocations += 1;
    await countLostInvocation(ctx, runId, run.fence);
  }
  return replay ? { run, previousLost, replay } : { run, previousLost };
}

/** What a run item's map holds (empty when it had no map: the lease created it). */
function inlineIds(item: Item): InlineState {
  const known = knowledgeOf(item);
  return known === 'absent' || known === undefined ? { ...knowledgeOfEmpty(item) } : known;
}

function knowledgeOfEmpty(item: Item): InlineState {
  const state = knowledgeOf({ ...item, [INFLIGHT]: {} });
  return state === 'absent' || state === undefined ? { entries: new Map(), base: 0 } : state;
}

/** The run item holds the lease this call asked for: a grant whose response was lost. */
function ours(ctx: StoreContext, item: Item, leaseExpiresAt: number, leaseToken: string): boolean {
  return (
    item.status === 'RUNNING' &&
    item.leaseToken === leaseToken &&
    item.leaseExpiresAt === leaseExpiresAt &&
    ctx.live(item)
  );
}

/**
 * Adds one lost invocation to the run the lease just went to (only after a crash), once: the
 * update marks the fence it counted for (`lostCounted`), so the SDK's retry of it after a lost
 * response, which finds the mark, adds nothing.
 */
async function countLostInvocation(ctx: StoreContext, runId: string, fence: number): Promise<void> {
  const e = new Expressions();
  const counted = e.name(LOST_COUNTED);
  const condition = `${e.name('fence')} = ${e.value(fence)} AND (attribute_not_exists(${counted}) OR ${counted} <> ${e.value(fence)})`;
  e.setTo(LOST_COUNTED, fence).adds('lostInvocations', 1);
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
    // Counted already (our own retried update), or a newer lease took over: this grant is stale,
    // and its commits will be fenced.
    if (!isConditionFailure(error)) throw error;
  }
}
