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
import { inlineStartsOf, withInlineStarts } from './inline-starts';
import { EPOCH, INFLIGHT, itemRefs, OP, OP_FENCE, OP_REFS, operationFromItem } from './items';
import { OP_PREFIX, PK, RUN_SK, runPk, SK, TTL, ttlPassed } from './layout';
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

/** What the run item contributes: retention, epoch, inline STARTs (not its input or result). */
const RUN_ATTRIBUTES = ['expiresAt', EPOCH, INFLIGHT];

/**
 * The operations a replay needs, by the rules of `loadOperations` (nothing past the run's
 * retention, nothing below its epoch, items past their TTL skipped, chunked values joined, inline
 * STARTs merged) restricted to the engine's `replayScope`. One Query over `OP#…` up to the run item
 * (which sorts last), in pages of growing size; when a page ends inside the subtree of a finished
 * context stored inline (no `ReplayChildren`), the next page starts past the subtree (`K/`).
 * Chunks are read by reference, for the operations kept only: orphaned chunks (a crash between
 * chunks and item) are never read.
 *
 * Operations not made by our SDK whose ids are not positional (AWS's SDK through the compatibility
 * transport: hashed ids, keyed `OP#~<id>`) have no subtree in the key order: they are all read, and
 * filtered afterwards (so the answer is exact, but such runs read what `loadOperations` reads).
 */
export async function loadReplayOperations(ctx: StoreContext, runId: string): Promise<Operation[]> {
  const pk = runPk(runId);
  const now = ctx.clock.now();
  const kept: Item[] = [];
  let run: Item | undefined;
  let from = OP_PREFIX;
  let exclusive: Item | undefined;
  let limit: number | undefined = FIRST_REPLAY_PAGE;
  /** The finished context whose subtree is being passed over (its key + '.'), and how many of it this page read. */
  let skipping: { prefix: string; inPage: number } | undefined;
  for (;;) {
    const e = new Expressions();
    const page = await ctx.access.queryPage({
      KeyConditionExpression: `${e.name(PK)} = ${e.value(pk)} AND ${e.name(SK)} BETWEEN ${e.value(from)} AND ${e.value(RUN_SK)}`,
      ProjectionExpression: [PK, SK, OP, OP_REFS, OP_FENCE, TTL, ...RUN_ATTRIBUTES].map((n) => e.name(n)).join(', '),
      ...(limit === undefined ? {} : { Limit: limit }),
      ...(exclusive ? { ExclusiveStartKey: exclusive } : {}),
      ...e.attributes(),
    });
    if (skipping) skipping.inPage = 0;
    for (const item of page.items) {
      const sk = item[SK] as string;
      if (sk === RUN_SK) {
        run = item;
        continue;
      }
      if (skipping && sk.startsWith(skipping.prefix)) {
        skipping.inPage++;
        continue;
      }
      skipping = undefined;
      if (ttlPassed(item[TTL], now)) continue;
      kept.push(item);
      // A stale item (below the epoch) passed over is safe: the run of this epoch has not written
      // that operation yet, so it has no children under it either. Only positional keys have a
      // subtree in the key order (`OP#~<id>` may hold any character, '.' too).
      const op = item[OP] as Operation | undefined;
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
  if (!run || !ctx.live(run)) return [];
  const epoch = Number(run[EPOCH] ?? 0);
  const current = kept.filter((item) => Number(item[OP_FENCE] ?? 0) >= epoch);
  const pool = await ctx.access.readChunks(pk, current.flatMap(itemRefs), now);
  const stored = current.map((item) => operationFromItem(item, pool));
  return replayScope(withInlineStarts(stored, inlineStartsOf(run)));
}
