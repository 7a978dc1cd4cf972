import type { Operation } from '@durable-lambda/protocol';
import { approximateSize, utf8Bytes } from './chunks';
import { Expressions } from './expressions';
import type { RunEntry } from './fenced-writes';
import { INFLIGHT, type ItemLimits, OP, type Prepared } from './items';
import { operationSk } from './layout';
import type { Item } from './table-access';

/**
 * Inline STARTs. The SDK makes every step attempt's START durable before the attempt's body runs
 * (a crash inside it is then a lost attempt), and writes the attempt's outcome behind, with the
 * next checkpoint. As an operation item of its own a START costs a whole item write in the
 * checkpoint's transaction (2 WRU), soon overwritten by the outcome. Kept instead as an entry of
 * the run item's `inflight` map, which every checkpoint writes anyway, it costs nothing while the
 * run item stays within its kilobyte. The rules that keep reads exact:
 *
 * - only a step in STARTED goes inline, and only a small one; the map holds at most
 *   {@link MAX_INLINE_STARTS} entries (the write conditions on `size(inflight)`), so it takes at
 *   most an eighth of an item's budget, beside the three quarters input, result and error may take;
 * - every later write of that operation (its outcome, a retry, a reopen) writes its item and
 *   REMOVEs the entry in the same transaction, so an entry is always newer than the item: reads
 *   merge the entries over the items;
 * - the entries live and die with the run item: its retention is theirs, and a run created again
 *   over an expired one starts with an empty map (no epoch needed).
 */

/** Most inline STARTs a run item holds at once; more go to operation items. */
export const MAX_INLINE_STARTS = 8;
/**
 * Largest inline START, bytes (its JSON and its key). A START carries no payload (~120 B), unless
 * it lists earlier failed attempts or a long name. A write of the run item costs one unit per KB:
 * beside a run item of ~400 B, an entry over ~600 B would cost more (crossing a kilobyte at its
 * write and at its removal) than the item it saves (2 units), so such STARTs stay items.
 */
export const MAX_INLINE_START_BYTES = 512;

/** The largest START kept inline: 512 B, less for small item budgets (all of them within an eighth). */
export function inlineStartBytes(limits: ItemLimits): number {
  return Math.min(MAX_INLINE_START_BYTES, Math.floor(limits.maxItemBytes / (8 * MAX_INLINE_STARTS)));
}

/** A prepared operation that may go inline: a step's START, small, nothing moved into chunks. */
export function inlineable(prepared: Prepared<Item>, limits: ItemLimits): boolean {
  const op = prepared.item[OP] as Operation;
  return (
    op.Type === 'STEP' &&
    op.Status === 'STARTED' &&
    prepared.chunks.length === 0 &&
    approximateSize(op) + utf8Bytes(op.Id) <= inlineStartBytes(limits)
  );
}

/** Operation items whose inline entry a write must remove: steps (no other type goes inline). */
function mayBeInline(item: Item): boolean {
  return (item[OP] as Operation).Type === 'STEP';
}

/**
 * The inline STARTs of a run item (as read, or returned with a failed condition), by operation
 * id; undefined when the item has no map (a run item written before inline STARTs existed).
 */
export function inlineStartsOf(item: Item | undefined): Map<string, Operation> | undefined {
  const map = item?.[INFLIGHT];
  if (map === null || typeof map !== 'object') return undefined;
  return new Map(Object.entries(map as Record<string, Operation>));
}

/**
 * The operations of a run: the items' (in tree order), each replaced by its inline START when it
 * has one (the entry is the newer), the inline-only ones placed in tree order too.
 */
export function withInlineStarts(operations: Operation[], inline: Map<string, Operation> | undefined): Operation[] {
  if (!inline || inline.size === 0) return operations;
  const byId = new Map(operations.map((op) => [op.Id, op]));
  for (const [id, op] of inline) byId.set(id, op);
  // DynamoDB orders sort keys by their UTF-8 bytes; so do we.
  const keyed = [...byId.values()].map((op) => ({ op, key: Buffer.from(operationSk(op.Id), 'utf8') }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  return keyed.map(({ op }) => op);
}

/** What a write knows of the run item's map: the ids in it, `absent` (no map), or nothing. */
export type InlineKnowledge = ReadonlySet<string> | 'absent' | undefined;

/** What a run item (read, or returned with a refused write) says of its map. */
export function knowledgeOf(item: Item | undefined): InlineKnowledge {
  const inline = inlineStartsOf(item);
  return inline ? new Set(inline.keys()) : 'absent';
}

/**
 * Adds inline entries to an update of the run item: SETs the `inline` STARTs, REMOVEs the entries
 * of `removed` (operations written as items now), with the conditions that keep the map exact:
 * it exists (DynamoDB refuses a path into a missing map), and it has room for the new entries.
 * With `absent`, nothing is touched, on the condition that the map is indeed missing.
 */
export function inlineUpdate(
  e: Expressions,
  conditions: string[],
  inline: readonly Operation[],
  removed: readonly string[],
  absent: boolean,
): void {
  if (absent) {
    // Steps written as items then need no REMOVE: no entry can hide them.
    if (removed.length > 0) conditions.push(`attribute_not_exists(${e.name(INFLIGHT)})`);
    return;
  }
  if (inline.length === 0 && removed.length === 0) return;
  // Named only when used: DynamoDB refuses unused names.
  const map = e.name(INFLIGHT);
  conditions.push(`attribute_exists(${map})`);
  for (const op of inline) e.setEntry(INFLIGHT, op.Id, op);
  for (const id of removed) e.removesEntry(INFLIGHT, id);
  // Counted before the write, with no credit for the entries it removes (they may not be there):
  // at most MAX_INLINE_STARTS after it.
  if (inline.length > 0) conditions.push(`size(${map}) <= ${e.value(MAX_INLINE_STARTS - inline.length)}`);
}

/**
 * What this store instance last knew of the inline STARTs of the runs it wrote, by run and fence
 * (learnt from each lease, each commit, each refused write): it picks how many STARTs a commit
 * puts inline so that the map's condition holds, saving a refused write. Never trusted otherwise:
 * every write that relies on the map conditions on it, and a refused one learns the map from the
 * item returned with the refusal. Bounded: the least recently written runs are forgotten.
 */
export class InlineStartHints {
  private readonly runs = new Map<string, { fence: number; known: ReadonlySet<string> | 'absent' }>();

  constructor(private readonly maxRuns = 1_000) {}

  /** What is known of the run's map at `fence`. */
  get(runId: string, fence: number): InlineKnowledge {
    const hint = this.runs.get(runId);
    return hint?.fence === fence ? hint.known : undefined;
  }

  /** Records the run's map at `fence` (`undefined` forgets it). */
  set(runId: string, fence: number, known: InlineKnowledge): void {
    this.runs.delete(runId);
    if (known === undefined) return;
    this.runs.set(runId, { fence, known });
    if (this.runs.size > this.maxRuns) {
      const oldest = this.runs.keys().next().value;
      if (oldest !== undefined) this.runs.delete(oldest);
    }
  }
}

/**
 * The run item's entry in a transaction before the last of a commit that takes several: a check
 * of `conditions`, or, when the batch writes steps, an update removing their inline entries (each
 * transaction keeps entries newer than items, whichever batch a crash stops after).
 */
export function earlierRunEntry(
  table: string,
  key: Item,
  batch: readonly Item[],
  conditionsOf: (e: Expressions) => string[],
  absent: boolean,
): RunEntry {
  const e = new Expressions();
  const conditions = conditionsOf(e);
  inlineUpdate(e, conditions, [], stepIds(batch), absent);
  const update = e.update();
  const base = { TableName: table, Key: key, ConditionExpression: conditions.join(' AND '), ...e.attributes() };
  return update ? { Update: { ...base, UpdateExpression: update } } : { ConditionCheck: base };
}

/** The ids of the steps among operation items: the entries their write removes. */
export function stepIds(items: readonly Item[]): string[] {
  return items.filter(mayBeInline).map((item) => (item[OP] as Operation).Id);
}
