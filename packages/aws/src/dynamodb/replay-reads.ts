/**
 * `loadReplayOperations` on DynamoDB: what an invocation replays from (the live operations and one
 * record per finished child context, see `replayScope` in the engine) without reading the
 * operations inside finished contexts. No new key or attribute is needed: operation sort keys are
 * in tree order (`layout.ts`), so the descendants of an operation with key `K` are exactly the keys
 * in [`K.`, `K/`) ('.' and '/' are consecutive bytes, and '/' occurs in no operation key). The read
 * walks the partition's operation keys in order, in pages, and jumps over the subtree of a finished
 * context instead of reading through it. Every run ever written is read this way (no migration).
 */

import { replayScope, replaysChildren } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import { Expressions } from './expressions';
import type { InlineEntry } from './inline-codec';
import {
  CURRENT_LAYOUT,
  entryRefs,
  HAS_ITEMS,
  inlineEntriesOf,
  joinEntry,
  LAYOUT_VERSION,
  withInline,
} from './inline-operations';
import { itemRefs, OP, OP_FENCE, OP_REFS, operationFromItem } from './items';
import { OP_PREFIX, operationSk, PK, RUN_SK, runPk, SK, TTL, ttlPassed } from './layout';
import { RUN_ATTRIBUTES_FOR_OPERATIONS } from './operation-reads';

/** Past every operation key ('$' follows '#'), before the run item's. */
const OP_END = 'OP$';

import type { StoreContext } from './store-context';
import type { Item } from './table-access';

/**
 * The first page's size, items. The page that first meets a large finished context reads into its
 * subtree until the page ends (the cost of not knowing the subtree's size before reading it): a
 * resume after a completed map of 100,000 operations reads ~14 of them, once. Small items (a few
 * hundred bytes), so that page costs 1 RRU like a page of 4 would; a smaller page would only add a
 * request (a round trip) to every wake-up of a run with a few operations more than it holds.
 */
export const FIRST_REPLAY_PAGE = 16;
/**
 * Each page with no jump reads this many times more than the one before (16, 128, 1,024, then
 * DynamoDB's 1 MB pages): a large live run costs a few requests more than one full Query (10,000
 * live operations: 6 instead of 3), and the waste a large finished context costs is at most the
 * page that meets it.
 */
const PAGE_GROWTH = 8;
/** Past this a page has no `Limit`: DynamoDB's own 1 MB pages. */
const LARGEST_LIMITED_PAGE = 1024;

/** Sort keys of ids that are not positional (`layout.ts`): no subtree follows them. */
const HASHED_PREFIX = `${OP_PREFIX}~`;

/** What the run item contributes: retention, epoch, inline operations and the input they may share. */
const RUN_ATTRIBUTES = RUN_ATTRIBUTES_FOR_OPERATIONS;

/**
 * The operations a replay needs, by the rules of `loadOperations` (nothing past the run's
 * retention, nothing below its epoch, items past their TTL skipped, chunked values joined, inline
 * operations over items) restricted to the engine's `replayScope`.
 *
 * The run item is read first (a GetItem): it holds the inline operations (layout 2), and says
 * whether the run has any operation item at all; a run without one (most runs: finished
 * operations move out only when the run item would grow another kilobyte) is answered from it
 * alone. Otherwise one Query over `OP#…` (up to, not including, the run item), in pages of growing
 * size; when a page ends inside the subtree of a finished context (its record an item, or an entry
 * of the run item) stored inline (no `ReplayChildren`), the next page starts past the subtree
 * (`K/`). Chunks are read by reference for the operations kept only: orphaned chunks (a crash
 * between chunks and item) and the children's are never read.
 *
 * Operations not made by our SDK whose ids are not positional (AWS's SDK through the compatibility
 * transport: hashed ids, keyed `OP#~<id>`) have no subtree in the key order: they are all read, and
 * filtered afterwards (so the answer is exact, but such runs read what `loadOperations` reads).
 */
export async function loadReplayOperations(ctx: StoreContext, runId: string): Promise<Operation[]> {
  return replayFromRunItem(ctx, runId, await ctx.access.getItem(runPk(runId), RUN_SK, RUN_ATTRIBUTES));
}

/**
 * {@link loadReplayOperations} from a run item already in hand (read, or returned by the lease's
 * conditional update): the operation items are read only if the run has any.
 */
export async function replayFromRunItem(ctx: StoreContext, runId: string, run: Item | undefined): Promise<Operation[]> {
  const pk = runPk(runId);
  const now = ctx.clock.now();
  if (!run || !ctx.live(run)) return [];
  const entries = inlineEntriesOf(run);
  const layout2 = Number(run[LAYOUT_VERSION] ?? 0) >= CURRENT_LAYOUT;
  const items = layout2 && run[HAS_ITEMS] === undefined ? [] : await replayItems(ctx, pk, now, entries);
  const epoch = Number(run.epoch ?? 0);
  const current = items.filter((item) => Number(item[OP_FENCE] ?? 0) >= epoch);
  // Scope first, on the records as stored (a moved field does not decide it), then join.
  const itemOps = new Map(current.map((item) => [(item[OP] as Operation).Id, item]));
  const entryOps = new Map([...entries].map(([id, entry]) => [id, entry.op]));
  const scoped = replayScope(
    withInline(
      [...itemOps.values()].map((item) => item[OP] as Operation),
      entryOps,
    ),
  );
  const keptEntries = scoped.flatMap((op) => {
    const entry = entries.get(op.Id);
    return entry ? [entry] : [];
  });
  const keptItems = scoped.flatMap((op) => (entries.has(op.Id) ? [] : [itemOps.get(op.Id) as Item]));
  const pool = await ctx.access.readChunks(pk, [...keptItems.flatMap(itemRefs), ...entryRefs(run, keptEntries)], now);
  const joined = new Map<string, Operation>();
  for (const item of keptItems) joined.set((item[OP] as Operation).Id, operationFromItem(item, pool));
  for (const entry of keptEntries) joined.set(entry.op.Id, joinEntry(run, entry, pool));
  return scoped.map((op) => joined.get(op.Id) as Operation);
}

/**
 * The operation items a replay needs read: one Query in tree order that jumps over the subtree of
 * a finished context, whether its record is an item met on the way or an entry of the run item.
 */
async function replayItems(
  ctx: StoreContext,
  pk: string,
  now: number,
  entries: ReadonlyMap<string, InlineEntry>,
): Promise<Item[]> {
  const finishedInline = [...entries.values()]
    .filter(({ op }) => !replaysChildren(op) && !operationSk(op.Id).startsWith(HASHED_PREFIX))
    .map(({ op }) => `${operationSk(op.Id)}.`);
  const kept: Item[] = [];
  let from = OP_PREFIX;
  let exclusive: Item | undefined;
  let limit: number | undefined = FIRST_REPLAY_PAGE;
  /** The finished context whose subtree is being passed over (its key + '.'), and how many of it this page read. */
  let skipping: { prefix: string; inPage: number } | undefined;
  for (;;) {
    const e = new Expressions();
    const page = await ctx.access.queryPage({
      KeyConditionExpression: `${e.name(PK)} = ${e.value(pk)} AND ${e.name(SK)} BETWEEN ${e.value(from)} AND ${e.value(OP_END)}`,
      ProjectionExpression: [PK, SK, OP, OP_REFS, OP_FENCE, TTL].map((n) => e.name(n)).join(', '),
      ...(limit === undefined ? {} : { Limit: limit }),
      ...(exclusive ? { ExclusiveStartKey: exclusive } : {}),
      ...e.attributes(),
    });
    if (skipping) skipping.inPage = 0;
    for (const item of page.items) {
      const sk = item[SK] as string;
      if (skipping && sk.startsWith(skipping.prefix)) {
        skipping.inPage++;
        continue;
      }
      skipping = undefined;
      const under = finishedInline.find((prefix) => sk.startsWith(prefix));
      if (under) {
        skipping = { prefix: under, inPage: 1 };
        continue;
      }
      if (ttlPassed(item[TTL], now)) continue;
      kept.push(item);
      // A stale item (below the epoch) passed over is safe: the run of this epoch has not written
      // that operation yet, so it has no children under it either. Only positional keys have a
      // subtree in the key order (`OP#~<id>` may hold any character, '.' too).
      // The run item's entry of the same operation is newer than its item (a finished context
      // an operator's retry reopened is written as an entry over its old item): it decides.
      const stored = item[OP] as Operation | undefined;
      const op = stored && (entries.get(stored.Id)?.op ?? stored);
      if (op && !replaysChildren(op) && !sk.startsWith(HASHED_PREFIX)) skipping = { prefix: `${sk}.`, inPage: 0 };
    }
    if (!page.lastKey) break;
    const grown: number | undefined =
      limit === undefined || limit * PAGE_GROWTH > LARGEST_LIMITED_PAGE ? undefined : limit * PAGE_GROWTH;
    if (skipping) {
      // The page ended in the subtree of a finished context: the next starts past it (`K/`: its
      // keys are below, the next operation's at or above). A subtree that took half the page or
      // more looks large: the next page is small again, so the next one like it wastes little.
      from = `${skipping.prefix.slice(0, -1)}/`;
      exclusive = undefined;
      limit = skipping.inPage * 2 >= page.items.length ? FIRST_REPLAY_PAGE : grown;
      skipping = undefined;
    } else {
      exclusive = page.lastKey;
      limit = grown;
    }
  }
  return kept;
}
