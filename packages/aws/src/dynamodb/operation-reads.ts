import type { Operation } from '@durable-lambda/protocol';
import { isTerminal } from '@durable-lambda/protocol';
import { ChunkPool } from './chunks';
import { Expressions } from './expressions';
import {
  HAS_ITEMS,
  inlineOperationsOf,
  inlineRefs,
  LAYOUT_VERSION,
  readInlineOperation,
  withInline,
} from './inline-operations';
import { EPOCH, INFLIGHT, itemRefs, OP, OP_FENCE, OP_REFS, operationFromItem, refAttribute } from './items';
import { CHUNK_PREFIX, OP_PREFIX, operationSk, PK, RUN_SK, runPk, SK, TTL, ttlPassed } from './layout';
import type { StoreContext } from './store-context';
import type { Item } from './table-access';

/**
 * What the run item contributes to a read of operations: its retention, its epoch and its inline
 * STARTs, not its input or result.
 */
export const RUN_ATTRIBUTES_FOR_OPERATIONS = [
  'expiresAt',
  EPOCH,
  INFLIGHT,
  'input',
  refAttribute('input'),
  LAYOUT_VERSION,
  HAS_ITEMS,
];

/**
 * The live operations of a run (none once its retention has passed), with their chunked values
 * read and the run item's inline STARTs over them. Operations written below the run's epoch belong
 * to an expired run this one replaced, so they stay hidden until TTL deletes them.
 */
export async function loadOperations(ctx: StoreContext, runId: string): Promise<Operation[]> {
  const e = new Expressions();
  // One Query over CHUNK#… < OP#… < RUN: the chunks, the operations, and the run item (its
  // retention, epoch and inline STARTs only: the projection leaves its input and result behind).
  const items = await ctx.access.queryAll({
    KeyConditionExpression: `${e.name(PK)} = ${e.value(runPk(runId))} AND ${e.name(SK)} BETWEEN ${e.value(CHUNK_PREFIX)} AND ${e.value(RUN_SK)}`,
    ProjectionExpression: [PK, SK, OP, OP_REFS, OP_FENCE, TTL, 'data', ...RUN_ATTRIBUTES_FOR_OPERATIONS]
      .map((n) => e.name(n))
      .join(', '),
    ...e.attributes(),
  });
  const now = ctx.clock.now();
  const pool = new ChunkPool();
  const operations: Item[] = [];
  let run: Item | undefined;
  for (const item of items) {
    const sk = item[SK] as string;
    if (sk === RUN_SK) run = item;
    else if (ttlPassed(item[TTL], now)) continue;
    else if (sk.startsWith(OP_PREFIX)) operations.push(item);
    else if (sk.startsWith(CHUNK_PREFIX)) pool.add(item);
  }
  if (!run || !ctx.live(run)) return [];
  const epoch = Number(run[EPOCH] ?? 0);
  const current = operations.filter((item) => Number(item[OP_FENCE] ?? 0) >= epoch);
  // Values in the payload bucket are not in the partition the Query read: fetch those named.
  await ctx.access.readObjects(runPk(runId), [...current.flatMap(itemRefs), ...inlineRefs(run)], pool);
  const stored = current.map((item) => operationFromItem(item, pool));
  return withInline(stored, inlineOperationsOf(run, pool));
}

/**
 * One live operation of a run, by the same rules as {@link loadOperations}: two point reads in
 * parallel (the run item narrowed to its retention, epoch and inline STARTs) instead of a Query
 * over the whole partition.
 */
export async function getOperation(
  ctx: StoreContext,
  runId: string,
  operationId: string,
): Promise<Operation | undefined> {
  const pk = runPk(runId);
  const sk = operationSk(operationId);
  const [run, read] = await Promise.all([
    ctx.access.getItem(pk, RUN_SK, RUN_ATTRIBUTES_FOR_OPERATIONS),
    ctx.access.getItem(pk, sk),
  ]);
  if (!run || !ctx.live(run)) return undefined;
  if (rawHas(run, operationId)) {
    return readInlineOperation(ctx.access, run, operationId, ctx.clock.now());
  }
  let item = read;
  // A step read as missing or unfinished may have been read just before a commit moved its inline
  // START (which the run item, read after that commit, no longer shows) to its item: read again.
  if (mayHaveMoved(item)) item = await ctx.access.getItem(pk, sk);
  const now = ctx.clock.now();
  if (!item || ttlPassed(item[TTL], now)) return undefined;
  if (Number(item[OP_FENCE] ?? 0) < Number(run[EPOCH] ?? 0)) return undefined;
  return operationFromItem(item, await ctx.access.readChunks(pk, itemRefs(item), now));
}

/** The run item holds an entry for the operation. */
function rawHas(run: Item, operationId: string): boolean {
  const map = run[INFLIGHT];
  return map !== null && typeof map === 'object' && Object.hasOwn(map, operationId);
}

/**
 * An operation item read that a concurrent commit may have overtaken: missing, or not finished (a
 * spill writes a finished operation's item before removing its entry, so an entry the run item no
 * longer shows has an item by then; an unfinished item may be older than an entry that came and
 * moved out).
 */
function mayHaveMoved(item: Item | undefined): boolean {
  if (!item) return true;
  const op = item[OP] as Operation | undefined;
  return op !== undefined && !isTerminal(op.Status);
}
