import type { Operation } from '@durable-lambda/protocol';
import { isTerminal } from '@durable-lambda/protocol';
import {
  type ChunkItem,
  type ChunkPool,
  type ChunkRef,
  checkPayload,
  chunkItems,
  splitField,
  utf8Bytes,
} from './chunks';
import { Expressions } from './expressions';
import { decodeInline, encodeInline, type InlineEntry } from './inline-codec';
import { chunkBytes, INFLIGHT, type ItemLimits, largeOperationFields, OP, refAttribute } from './items';
import { operationSk, PK, runPk } from './layout';
import type { Item, RunEntry, TableAccess } from './table-access';

/**
 * Inline operations (layout 2): a run's operations live in its run item, in the map `inflight`
 * (operation id → compact text, `inline-codec.ts`), which every checkpoint writes anyway. A
 * checkpoint is then one conditional UpdateItem of the run item, fenced by the lease: no
 * transaction, no operation item, and the operation is committed exactly when the run item says
 * so (a writer that lost its lease writes nothing anyone reads). The rules that keep it cheap and
 * exact:
 *
 * - **Small entries.** An entry's text is at most {@link inlineEntryBytes} (~0.7 KB by default);
 *   larger fields (a big step result) move into content-addressed chunk items written before the
 *   run item (an orphan if the write is refused, never a half value), the entry keeping the
 *   reference. At most {@link MAX_INLINE_OPERATIONS} entries (the write conditions on
 *   `size(inflight)`); beyond that an operation is an operation item, written in one transaction
 *   with the run item as in layout 1.
 * - **Spill.** Every write of the run item costs one unit per KB of the whole item, so finished
 *   entries already committed move out to operation items ({@link spillPlan}) when the item would
 *   otherwise cross into another kilobyte: the item is written first (a plain conditional PutItem,
 *   `f` = the writer's fence, never over an item of a newer fence), then the run update REMOVEs the
 *   entry. A crash in between leaves the same finished operation twice (item and entry): readers
 *   take the entry. Only committed, finished entries move, so an item is never an uncommitted write.
 * - **Entries are newer than items.** Every write that writes an operation as an item removes its
 *   entry in the same request, so readers put entries over items.
 * - **Layout 1 runs** (no `lv` on the run item) hold plain operation maps here (inline STARTs);
 *   {@link decodeInline} reads both.
 */

/** Most entries a run item holds at once; more go to operation items. */
export const MAX_INLINE_OPERATIONS = 64;
/** Largest entry text, bytes, before its largest fields move into chunks. */
export const MAX_INLINE_ENTRY_BYTES = 1024;
/** The run item's layout version attribute: 2 for runs written with inline operations. */
export const LAYOUT_VERSION = 'lv';
/**
 * On layout-2 run items: set (1) once the run has any operation item (an entry moved out, or an
 * operation the map had no room for), so a replay of a run without one reads the run item alone.
 */
export const HAS_ITEMS = 'oi';
/** The layout this code writes. */
export const CURRENT_LAYOUT = 2;

/** The largest entry text: 1 KB, less for small item budgets. */
export function inlineEntryBytes(limits: ItemLimits): number {
  return Math.min(MAX_INLINE_ENTRY_BYTES, Math.floor(limits.maxItemBytes / 16));
}

/**
 * Most entries at once: {@link MAX_INLINE_OPERATIONS}, fewer for small item budgets, so the map
 * stays within an eighth of the item beside the three quarters input, result and error may take
 * (42 of at most 1 KB each with the default 350,000 B budget).
 */
export function maxInlineEntries(limits: ItemLimits): number {
  return Math.max(1, Math.min(MAX_INLINE_OPERATIONS, Math.floor(limits.maxItemBytes / (8 * inlineEntryBytes(limits)))));
}

/** An operation ready to go inline: its text, and the chunks its moved fields need (written first). */
export interface PreparedEntry {
  id: string;
  op: Operation;
  text: string;
  bytes: number;
  chunks: ChunkItem[];
}

/**
 * The entry of an operation, its largest fields moved into chunks until the text fits; undefined
 * when it cannot (then it is an operation item). `runInput`: the run's input, left out of an
 * EXECUTION operation's text when its `InputPayload` is the same.
 */
export function prepareEntry(
  runId: string,
  op: Operation,
  ttl: number,
  limits: ItemLimits,
  runInput?: string,
): PreparedEntry | undefined {
  const fields = largeOperationFields(op);
  for (const field of fields) checkPayload(`operation ${op.Id} ${field.path}`, field.value);
  const max = inlineEntryBytes(limits);
  const shared = op.Type === 'EXECUTION' && runInput !== undefined && op.ExecutionDetails?.InputPayload === runInput;
  const entry: InlineEntry = { op, ...(shared ? { runInput: true } : {}) };
  let text = encodeInline(entry);
  const chunks: ChunkItem[] = [];
  if (utf8Bytes(text) > max) {
    const pk = runPk(runId);
    const stored = { ...op } as unknown as Record<string, Record<string, unknown>>;
    const refs: Record<string, ChunkRef> = {};
    fields.sort((a, b) => b.size - a.size);
    for (const field of fields) {
      if (shared && field.path === 'ExecutionDetails.InputPayload') continue;
      const [detailsKey, name] = field.path.split('.') as [string, string];
      const details = { ...stored[detailsKey] };
      delete details[name];
      stored[detailsKey] = details;
      const split = splitField(field.value, chunkBytes(limits), limits.objectBytes);
      refs[field.path] = split.ref;
      chunks.push(...chunkItems(pk, split, ttl));
      text = encodeInline({ ...entry, op: stored as unknown as Operation, refs });
      if (utf8Bytes(text) <= max) break;
    }
    if (utf8Bytes(text) > max) return undefined;
  }
  return { id: op.Id, op, text, bytes: utf8Bytes(text) + utf8Bytes(op.Id), chunks };
}

/** The raw entries of a run item (as read, or returned with a refused write); undefined without a map. */
export function rawEntriesOf(item: Item | undefined): Map<string, unknown> | undefined {
  const map = item?.[INFLIGHT];
  if (map === null || typeof map !== 'object') return undefined;
  return new Map(Object.entries(map as Record<string, unknown>));
}

/** The chunk references a run item's entries need read: their moved fields, and the run's input if shared. */
export function inlineRefs(item: Item | undefined): ChunkRef[] {
  return item ? entryRefs(item, inlineEntriesOf(item).values()) : [];
}

/** The entries of a run item, decoded but not joined (moved fields still references). */
export function inlineEntriesOf(item: Item | undefined): Map<string, InlineEntry> {
  return new Map([...(rawEntriesOf(item) ?? [])].map(([id, raw]) => [id, decodeInline(raw, id)]));
}

/** The chunk references the given entries need read (their moved fields, the run's input if shared). */
export function entryRefs(item: Item, entries: Iterable<InlineEntry>): ChunkRef[] {
  const refs: ChunkRef[] = [];
  let input = false;
  for (const entry of entries) {
    refs.push(...Object.values(entry.refs ?? {}));
    input ||= entry.runInput === true;
  }
  const inputRef = item[refAttribute('input')] as ChunkRef | undefined;
  if (input && inputRef) refs.push(inputRef);
  return refs;
}

/** An entry made whole: its moved fields joined from `pool`, a shared input taken from the run item. */
export function joinEntry(item: Item, entry: InlineEntry, pool: ChunkPool | undefined): Operation {
  const pk = String(item[PK]);
  const { op, refs, runInput } = entry;
  const record = op as unknown as Record<string, Record<string, unknown>>;
  for (const [path, ref] of Object.entries(refs ?? {})) {
    if (!pool) throw new Error(`chunks of ${pk} were not read`);
    const [detailsKey, name] = path.split('.') as [string, string];
    record[detailsKey] = { ...(record[detailsKey] ?? {}), [name]: pool.join(pk, ref) };
  }
  if (runInput) {
    const inputRef = item[refAttribute('input')] as ChunkRef | undefined;
    const input = inputRef ? pool?.join(pk, inputRef) : item.input;
    if (input === undefined) throw new Error(`${pk}: the run's input was not read`);
    record.ExecutionDetails = { ...(record.ExecutionDetails ?? {}), InputPayload: input as unknown as never };
  }
  return op;
}

/**
 * One operation the run item holds inline, whole (its moved fields read from their chunks), or
 * undefined when the item has no entry for it.
 */
export async function readInlineOperation(access: TableAccess, item: Item, id: string, now: number) {
  const raw = rawEntriesOf(item)?.get(id);
  if (raw === undefined) return undefined;
  const entry = decodeInline(raw, id);
  return joinEntry(item, entry, await access.readChunks(String(item[PK]), entryRefs(item, [entry]), now));
}

/**
 * The operations a run item holds inline, by id, whole: moved fields joined from `pool` (which
 * must hold {@link inlineRefs}' chunks), a shared input taken from the run item.
 */
export function inlineOperationsOf(item: Item | undefined, pool: ChunkPool | undefined): Map<string, Operation> {
  const out = new Map<string, Operation>();
  if (!item) return out;
  for (const [id, entry] of inlineEntriesOf(item)) out.set(id, joinEntry(item, entry, pool));
  return out;
}

/**
 * The operations of a run: the items' (in tree order), each replaced by its entry when it has one
 * (the entry is the newer), the inline-only ones placed in tree order too.
 */
export function withInline(operations: Operation[], inline: ReadonlyMap<string, Operation>): Operation[] {
  if (inline.size === 0) return operations;
  const byId = new Map(operations.map((op) => [op.Id, op]));
  for (const [id, op] of inline) byId.set(id, op);
  // DynamoDB orders sort keys by their UTF-8 bytes; so do we.
  const keyed = [...byId.values()].map((op) => ({ op, key: Buffer.from(operationSk(op.Id), 'utf8') }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  return keyed.map(({ op }) => op);
}

/** What a writer knows of a run item's entries: their texts and sizes, the rest of the item's size. */
export interface InlineState {
  /** Entry texts by id (a layout-1 entry as its plain map). */
  entries: Map<string, { text: unknown; bytes: number; terminal: boolean }>;
  /** Estimated bytes of the run item without its map. */
  base: number;
  /** The run's input, when known (an EXECUTION entry then leaves it out). */
  input?: string;
}

/** What a writer knows of the map: its state, `absent` (a run item without a map), or nothing. */
export type InlineKnowledge = InlineState | 'absent' | undefined;

/** What a run item (read, or returned with a refused write) says of its map. */
export function knowledgeOf(item: Item | undefined): InlineKnowledge {
  const raw = rawEntriesOf(item);
  if (!item || !raw) return 'absent';
  const entries = new Map<string, { text: unknown; bytes: number; terminal: boolean }>();
  let mapBytes = 0;
  for (const [id, value] of raw) {
    const bytes = (typeof value === 'string' ? utf8Bytes(value) : utf8Bytes(JSON.stringify(value))) + utf8Bytes(id);
    mapBytes += bytes;
    const entry = decodeInline(value, id);
    // An EXECUTION sharing the run's input never moves out: its item could not point at the input.
    entries.set(id, { text: value, bytes, terminal: isTerminal(entry.op.Status) && !entry.runInput });
  }
  const total = utf8Bytes(JSON.stringify(item, (_k, v) => (v instanceof Uint8Array ? 'x'.repeat(v.length) : v)));
  return {
    entries,
    base: Math.max(0, total - mapBytes),
    ...(typeof item.input === 'string' ? { input: item.input } : {}),
  };
}

/**
 * How many kilobytes a few finished entries may add to the run item before they move out. A
 * finished entry kept costs one more write unit on each later write while it keeps the item a
 * kilobyte larger; moved out it costs one write unit once and its item's storage until its TTL
 * ceiling (~400 days: ~1.7 write units' worth for a small one, bench "cost" rows). A short run's
 * few finished entries are worth keeping (it ends soon, and they expire with its run item); a run
 * that has many is a long one, whose later writes would each pay for them: those move out as soon
 * as the item would grow a kilobyte past what it needs.
 */
export const SPILL_SLACK_KB = 1;
/** At most this many finished entries get {@link SPILL_SLACK_KB}. */
export const SLACK_ENTRIES = 6;

/**
 * Finished entries to move out to operation items so the run item stays within the kilobytes its
 * other contents need: after a write adding `adding` and removing `removing`, if the item would be
 * more than {@link SPILL_SLACK_KB} over the smallest whole number of KB that its base and
 * unfinished entries take, the largest finished entries (committed before this write) move out
 * until it is back within that number.
 */
export function spillPlan(
  state: InlineState,
  adding: ReadonlyMap<string, PreparedEntry>,
  removing: ReadonlySet<string>,
): string[] {
  let total = state.base;
  let kept = state.base;
  const movable: Array<{ id: string; bytes: number }> = [];
  for (const [id, entry] of state.entries) {
    if (adding.has(id) || removing.has(id)) continue;
    total += entry.bytes;
    if (entry.terminal) movable.push({ id, bytes: entry.bytes });
    else kept += entry.bytes;
  }
  for (const entry of adding.values()) {
    total += entry.bytes;
    kept += entry.bytes;
  }
  const target = Math.max(1, Math.ceil(kept / 1024)) * 1024;
  if (movable.length <= SLACK_ENTRIES && total <= target + SPILL_SLACK_KB * 1024) return [];
  const spill: string[] = [];
  movable.sort((a, b) => b.bytes - a.bytes);
  for (const entry of movable) {
    if (total <= target) break;
    spill.push(entry.id);
    total -= entry.bytes;
  }
  return spill;
}

/** The state after a write on `state` added `adding` and removed `removing`. */
export function stateAfter(
  state: InlineState,
  adding: ReadonlyMap<string, PreparedEntry>,
  removing: Iterable<string>,
  baseDelta = 0,
): InlineState {
  const entries = new Map(state.entries);
  for (const id of removing) entries.delete(id);
  for (const [id, entry] of adding) {
    const shared = decodeInline(entry.text, id).runInput === true;
    entries.set(id, { text: entry.text, bytes: entry.bytes, terminal: isTerminal(entry.op.Status) && !shared });
  }
  return { ...state, entries, base: Math.max(0, state.base + baseDelta) };
}

/**
 * Adds entry changes to an update of the run item: SETs `adding`, REMOVEs `removing`, with the
 * conditions that keep the map exact: it exists (DynamoDB refuses a path into a missing map), and
 * it has room for the new ids. With `absent`, the map is created whole (conditioned on its absence).
 */
export function inlineUpdate(
  e: Expressions,
  conditions: string[],
  adding: ReadonlyMap<string, PreparedEntry>,
  removing: ReadonlySet<string>,
  absent: boolean,
  newIds: number,
  maxEntries: number,
): void {
  if (absent) {
    if (adding.size === 0 && removing.size === 0) return;
    conditions.push(`attribute_not_exists(${e.name(INFLIGHT)})`);
    if (adding.size > 0) e.setTo(INFLIGHT, Object.fromEntries([...adding].map(([id, p]) => [id, p.text])));
    return;
  }
  if (adding.size === 0 && removing.size === 0) return;
  // Named only when used: DynamoDB refuses unused names.
  const map = e.name(INFLIGHT);
  conditions.push(`attribute_exists(${map})`);
  for (const [id, entry] of adding) e.setEntry(INFLIGHT, id, entry.text);
  for (const id of removing) if (!adding.has(id)) e.removesEntry(INFLIGHT, id);
  // Counted before the write, with no credit for the entries it removes.
  if (newIds > 0 || adding.size > 0) conditions.push(`size(${map}) <= ${e.value(maxEntries - newIds)}`);
}

/**
 * What this store instance last knew of the entries of the runs it wrote, by run and fence (from
 * each lease, commit and refused write): it picks what goes inline and what moves out. Never
 * trusted otherwise: every write that relies on the map conditions on it, and a refused one learns
 * the map from the item returned with the refusal. Bounded: the least recently written runs go.
 */
export class InlineHints {
  private readonly runs = new Map<string, { fence: number; known: InlineState | 'absent' }>();

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
 * of `conditions`, or, when the batch writes operations, an update removing their entries (each
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
  inlineUpdate(e, conditions, new Map(), new Set(itemIds(batch)), absent, 0, 0);
  const update = e.update();
  const base = { TableName: table, Key: key, ConditionExpression: conditions.join(' AND '), ...e.attributes() };
  return update ? { Update: { ...base, UpdateExpression: update } } : { ConditionCheck: base };
}

/** The ids of operation items: the entries their write removes. */
export function itemIds(items: readonly Item[]): string[] {
  return items.map((item) => (item[OP] as Operation).Id);
}
