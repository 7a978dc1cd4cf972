import type { RunRecord } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import {
  approximateSize,
  type ChunkItem,
  type ChunkPool,
  type ChunkRef,
  checkPayload,
  chunkItems,
  splitField,
} from './chunks';
import { decodeInvocations, encodeInvocations, HISTORY_INVOCATIONS, HISTORY_SEQ } from './history-attributes';
import {
  DUE_SHARD,
  dueShard,
  FUNCTION_BASE,
  functionBaseOf,
  LIST_KEY,
  listKeyOf,
  operationSk,
  PK,
  RUN_SK,
  runPk,
  SK,
  TTL,
  ttlSeconds,
} from './layout';
import { runMeterFromItem } from './run-meter';

/** The attributes of a run item that are fields of the {@link RunRecord}. */
const RUN_FIELDS = [
  'runId',
  'functionName',
  'runKey',
  'incarnation',
  'status',
  'input',
  'result',
  'error',
  'createdAt',
  'updatedAt',
  'endedAt',
  'fence',
  'leaseExpiresAt',
  'nextWakeAt',
  'invocations',
  'lostInvocations',
  'expiresAt',
  'eventSeq',
  'handledEventSeq',
  'parent',
  'parentNotified',
  'leaseToken',
  'dueAt',
  'deadlineAt',
  'executionTimeoutMs',
  'childrenOpen',
  'actions',
  'concurrencyKey',
  'queuedAt',
  'queuePriority',
  'slotHeld',
  'flow',
  'published',
  'outbox',
  'tags',
  'signalSeq',
  'signalCursor',
] as const satisfies readonly (keyof RunRecord)[];

/**
 * Counters left out of the run item while they are 0 (read back as 0): every checkpoint rewrites
 * the whole item and pays a write unit per kilobyte, and most runs never lose an invocation or
 * get an outside event. `ADD` creates them when they first count.
 */
const ZERO_WHEN_ABSENT = [
  'lostInvocations',
  'eventSeq',
  'handledEventSeq',
] as const satisfies readonly (keyof RunRecord)[];

/** Run fields that may be large: each moves into chunks on its own when over the inline budget. */
export const LARGE_RUN_FIELDS = ['input', 'result', 'error'] as const;
export type LargeRunField = (typeof LARGE_RUN_FIELDS)[number];

/** The attribute holding the chunk reference of a large run field moved out. */
export function refAttribute(field: LargeRunField): string {
  return `${field}Ref`;
}

/**
 * The fence at which this incarnation of the run was created. Operation items carry the fence
 * that wrote them (`f`); a run re-created over an expired one starts above the old fences, so the
 * old incarnation's operations, until TTL deletes them, are ignored by every read.
 */
export const EPOCH = 'epoch';
/**
 * On run items, written by every lease: the lease it replaced (`leaseExpiresAt` before, 0 when
 * there was none), so a lease recognised after a lost response knows whether it took over from a
 * lost invocation.
 */
export const LEASE_PREVIOUS = 'leasePrev';
/** On run items: the fence whose lost invocation is counted, so it is counted once, retries or not. */
export const LOST_COUNTED = 'lostCounted';
/** On run items: the id of the last revision (`reviseRun`), so a retried revision knows its own write. */
export const REVISION = 'revision';
/**
 * On run items: the inline STARTs, a map from operation id to the operation (a step's fresh
 * attempt, STARTED), kept in the run item that every checkpoint writes anyway instead of in an
 * operation item of their own (see `inline-starts.ts`). Every run item has it from its creation
 * (a run item written before it existed gets it at its next lease).
 */
export const INFLIGHT = 'inflight';
/** On operation items: the fence of the write (see {@link EPOCH}). */
export const OP_FENCE = 'f';
/** On operation items: the operation, with large fields moved out. */
export const OP = 'op';
/** On operation items: chunk references of fields moved out, by dotted path. */
export const OP_REFS = 'refs';

/** How large items may grow, and how long items without a run's retention live. */
export interface ItemLimits {
  /** Largest item the store writes, bytes (DynamoDB's limit is 400 KB). */
  maxItemBytes: number;
  /**
   * With a payload bucket: values of this many bytes or more go there instead of into their item
   * or chunk items (`payload-objects.ts`). Undefined: no bucket.
   */
  objectBytes?: number;
}

/** Items to write for a value: the item and the chunk items it references (written first). */
export interface Prepared<T> {
  item: T;
  chunks: ChunkItem[];
  /** The item's estimated size, bytes. */
  size: number;
}

/** The bytes a chunk holds: an item's budget less room for keys and attributes. */
export function chunkBytes(limits: ItemLimits): number {
  return Math.max(1024, limits.maxItemBytes - 1024);
}

/** The inline budget of one large run field: a quarter of an item, so all three fit together. */
export function runFieldBudget(limits: ItemLimits): number {
  return Math.floor(limits.maxItemBytes / 4);
}

/** A large run field's value as it is stored: inline, or a reference plus chunks. */
export function prepareRunField(
  pk: string,
  field: LargeRunField,
  value: unknown,
  limits: ItemLimits,
  chunkTtl: number,
): { inline?: unknown; ref?: ChunkRef; chunks: ChunkItem[] } {
  checkPayload(field, value);
  const size = typeof value === 'string' ? Buffer.byteLength(value, 'utf8') : approximateSize(value);
  const toBucket = limits.objectBytes !== undefined && size >= limits.objectBytes;
  if (size <= runFieldBudget(limits) && !toBucket) return { inline: value, chunks: [] };
  const split = splitField(value, chunkBytes(limits), limits.objectBytes);
  return { ref: split.ref, chunks: chunkItems(pk, split, chunkTtl) };
}

/** The run item for a new run. */
export function runItem(
  run: RunRecord,
  epoch: number,
  limits: ItemLimits,
  chunkTtl: number,
): Prepared<Record<string, unknown>> {
  const pk = runPk(run.runId);
  const item: Record<string, unknown> = {
    [PK]: pk,
    [SK]: RUN_SK,
    [EPOCH]: epoch,
    [INFLIGHT]: {},
  };
  const chunks: ChunkItem[] = [];
  for (const field of RUN_FIELDS) {
    const value = run[field];
    if (value === undefined) continue;
    if (value === 0 && (ZERO_WHEN_ABSENT as readonly string[]).includes(field)) continue;
    if ((LARGE_RUN_FIELDS as readonly string[]).includes(field)) {
      const stored = prepareRunField(pk, field as LargeRunField, value, limits, chunkTtl);
      if (stored.ref) item[refAttribute(field as LargeRunField)] = stored.ref;
      else item[field] = stored.inline;
      chunks.push(...stored.chunks);
    } else {
      item[field] = value;
    }
  }
  if (run.expiresAt !== undefined) item[TTL] = ttlSeconds(run.expiresAt);
  if (run.dueAt !== undefined) item[DUE_SHARD] = dueShard(run.runId);
  if (run.historySeq !== undefined) item[HISTORY_SEQ] = run.historySeq;
  if (run.historyInvocations !== undefined) item[HISTORY_INVOCATIONS] = encodeInvocations(run.historyInvocations);
  item[LIST_KEY] = listKeyOf(run.functionName, run.runId);
  const base = functionBaseOf(run.functionName);
  if (base !== undefined) item[FUNCTION_BASE] = base;
  return { item, chunks, size: approximateSize(item) };
}

/** The chunk references of a run item, by field. */
export function runRefs(item: Record<string, unknown>): Array<[LargeRunField, ChunkRef]> {
  const refs: Array<[LargeRunField, ChunkRef]> = [];
  for (const field of LARGE_RUN_FIELDS) {
    const ref = item[refAttribute(field)] as ChunkRef | undefined;
    if (ref) refs.push([field, ref]);
  }
  return refs;
}

/** The {@link RunRecord} of a run item, its chunked fields joined from `pool`. */
export function runFromItem(item: Record<string, unknown>, pool: ChunkPool | undefined): RunRecord {
  const run: Record<string, unknown> = {};
  for (const field of RUN_FIELDS) {
    if (item[field] !== undefined) run[field] = item[field];
  }
  // A layout-2 run item leaves these out while they are 0.
  for (const field of ZERO_WHEN_ABSENT) run[field] ??= 0;
  for (const [field, ref] of runRefs(item)) {
    if (!pool) throw new Error(`chunks of ${String(item[PK])} were not read`);
    run[field] = pool.join(String(item[PK]), ref);
  }
  // Run meter hook: its attributes, read back as `meter` (see run-meter.ts).
  const meter = runMeterFromItem(item);
  if (meter) run.meter = meter;
  // The history's order, under short names (history-attributes.ts).
  if (typeof item[HISTORY_SEQ] === 'number') run.historySeq = item[HISTORY_SEQ];
  const invocations = decodeInvocations(item[HISTORY_INVOCATIONS]);
  if (invocations) run.historyInvocations = invocations;
  return run as unknown as RunRecord;
}

/** A dotted path of a large operation field: `StepDetails.Result`. */
type FieldPath = `${string}.${string}`;

/** The fields of an operation that may be large: every string or object inside a `*Details`. */
export function largeOperationFields(op: Operation): Array<{ path: FieldPath; value: unknown; size: number }> {
  const fields: Array<{ path: FieldPath; value: unknown; size: number }> = [];
  for (const [key, details] of Object.entries(op)) {
    if (!key.endsWith('Details') || details === null || typeof details !== 'object') continue;
    for (const [name, value] of Object.entries(details as Record<string, unknown>)) {
      if (typeof value === 'string') fields.push({ path: `${key}.${name}`, value, size: Buffer.byteLength(value) });
      else if (value !== null && typeof value === 'object') {
        fields.push({ path: `${key}.${name}`, value, size: approximateSize(value) });
      }
    }
  }
  return fields;
}

/** Room the keys and small attributes of an operation item take. */
const OP_ITEM_OVERHEAD = 512;

/**
 * The item of an operation. Fields are checked against the payload limit; while the item would be
 * over the budget, its largest field moves out into chunk items (referenced from `refs`).
 */
export function operationItem(
  runId: string,
  op: Operation,
  fence: number,
  ttl: number,
  limits: ItemLimits,
): Prepared<Record<string, unknown>> {
  const fields = largeOperationFields(op);
  for (const field of fields) checkPayload(`operation ${op.Id} ${field.path}`, field.value);
  const pk = runPk(runId);
  let stored: Operation = op;
  let size = approximateSize(op) + OP_ITEM_OVERHEAD;
  const refs: Record<string, ChunkRef> = {};
  const chunks: ChunkItem[] = [];
  const toBucket = (field: { size: number }) => limits.objectBytes !== undefined && field.size >= limits.objectBytes;
  if (size > limits.maxItemBytes || fields.some(toBucket)) {
    stored = { ...op };
    fields.sort((a, b) => b.size - a.size);
    for (const field of fields) {
      if (size <= limits.maxItemBytes && !toBucket(field)) break;
      const [detailsKey, name] = field.path.split('.') as [keyof Operation, string];
      const details = { ...(stored[detailsKey] as Record<string, unknown>) };
      delete details[name];
      (stored as unknown as Record<string, unknown>)[detailsKey] = details;
      const split = splitField(field.value, chunkBytes(limits), limits.objectBytes);
      refs[field.path] = split.ref;
      chunks.push(...chunkItems(pk, split, ttl));
      size -= field.size;
      size += approximateSize(split.ref) + field.path.length;
    }
  }
  const item: Record<string, unknown> = {
    [PK]: pk,
    [SK]: operationSk(op.Id),
    [OP]: stored,
    [OP_FENCE]: fence,
    [TTL]: ttl,
  };
  if (chunks.length > 0) item[OP_REFS] = refs;
  return { item, chunks, size };
}

/** The {@link Operation} of an operation item, its chunked fields joined from `pool`. */
export function operationFromItem(item: Record<string, unknown>, pool: ChunkPool | undefined): Operation {
  const op = item[OP] as Operation;
  const refs = item[OP_REFS] as Record<string, ChunkRef> | undefined;
  if (!refs) return op;
  for (const [path, ref] of Object.entries(refs)) {
    if (!pool) throw new Error(`chunks of ${String(item[PK])} were not read`);
    const [detailsKey, name] = path.split('.') as [string, string];
    const record = op as unknown as Record<string, Record<string, unknown>>;
    record[detailsKey] = { ...(record[detailsKey] ?? {}), [name]: pool.join(String(item[PK]), ref) };
  }
  return op;
}

/** The chunk references an item (run or operation) holds. */
export function itemRefs(item: Record<string, unknown>): ChunkRef[] {
  if (item[SK] === RUN_SK) return runRefs(item).map(([, ref]) => ref);
  return Object.values((item[OP_REFS] as Record<string, ChunkRef> | undefined) ?? {});
}

/** Operation items to write, the last of each id only, checked against the payload limit. */
export function operationItems(
  runId: string,
  operations: readonly Operation[],
  fence: number,
  ttl: number,
  limits: ItemLimits,
): Array<Prepared<Record<string, unknown>>> {
  const latest = new Map<string, Operation>();
  for (const op of operations) latest.set(op.Id, op);
  return [...latest.values()].map((op) => operationItem(runId, op, fence, ttl, limits));
}
