/**
 * Keys and attribute names of the single-table layout described in `packages/aws/TABLE.md`.
 * Everything that knows how an item is keyed lives here.
 */
import { functionBaseName } from '@durable-lambda/engine';

/** Partition key attribute (S). */
export const PK = 'pk';
/** Sort key attribute (S). */
export const SK = 'sk';
/** DynamoDB's TTL attribute: epoch seconds. */
export const TTL = 'ttl';
/**
 * The index listing runs of one function: partition key `functionName`, sort key
 * (`status`, `createdAt`, `runId`), using DynamoDB's multi-attribute index keys, so it follows
 * the run item's own attributes and nothing derived has to be kept current.
 */
export const BY_FUNCTION_INDEX = 'byFunction';
/**
 * The index listing the runs of a function recorded under a qualified name (`orders:7`,
 * `orders:live`, `orders:$LATEST`): partition key {@link FUNCTION_BASE} (`orders`), sort key
 * (`status`, `createdAt`, `runId`). Sparse: only qualified runs carry the attribute, so runs
 * recorded under the bare name (every run written before version pinning among them) stay in
 * `byFunction` alone, and listing `orders` merges the two without reading anything twice.
 */
export const BY_FUNCTION_BASE_INDEX = 'byFunctionBase';
/**
 * On run items whose `functionName` is qualified only: the name without its qualifier
 * (`orders:7` → `orders`), the partition key of {@link BY_FUNCTION_BASE_INDEX}. Every write of
 * `functionName` writes it too (`runItem`, the pinning store's rename).
 */
export const FUNCTION_BASE = 'functionBase';

/**
 * The {@link FUNCTION_BASE} of a run recorded under `functionName`: the bare name when the name
 * is qualified, else undefined (the item then carries no such attribute).
 */
export function functionBaseOf(functionName: string): string | undefined {
  const base = functionBaseName(functionName);
  return base === functionName ? undefined : base;
}
/** The index listing runs of every function by status: `status`, then (`createdAt`, `runId`). */
export const BY_STATUS_INDEX = 'byStatus';
/**
 * The due index (sparse): partition key {@link DUE_SHARD} (`due#<n>`), sort key `dueAt` (N). Only
 * run items whose `dueAt` is set carry the two, so ended runs drop out of it by themselves.
 */
export const DUE_INDEX = 'due';
/** The due index's partition key attribute, on run items only while `dueAt` is set. */
export const DUE_SHARD = 'dueShard';
/**
 * Partitions of the due index. Every run write that moves `dueAt` writes the index, so one
 * partition key would take the writes of every run in the table (~1,000 writes/s per partition
 * key); 16 shards spread them, and a reader queries all 16 (in parallel) and merges. Changing it
 * moves every run's shard: a table's runs must all be written by code with the same count.
 */
export const DUE_SHARDS = 16;
/** Key prefix (and sort key) of idempotency records: `pk=IDEM#<key>`, `sk=IDEM`. */
export const IDEMPOTENCY_SK = 'IDEM';

/** Sort key of the run item. */
export const RUN_SK = 'RUN';
/** Prefix of operation items' sort keys. */
export const OP_PREFIX = 'OP#';
/** Prefix of chunk items' sort keys. */
export const CHUNK_PREFIX = 'CHUNK#';

/** The partition of a run: its run item, operation items and chunk items. */
export function runPk(runId: string): string {
  return `RUN#${runId}`;
}

/**
 * The due-index shard of a run: `due#<n>`, n a stable hash (FNV-1a, 32 bits) of the run id modulo
 * {@link DUE_SHARDS}, so every write of one run lands on the same shard.
 */
export function dueShard(runId: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < runId.length; i++) {
    hash ^= runId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `due#${hash % DUE_SHARDS}`;
}

/** Every shard of the due index, `due#0` to `due#15`. */
export function dueShards(): string[] {
  return Array.from({ length: DUE_SHARDS }, (_, n) => `due#${n}`);
}

/** The partition of an idempotency record. */
export function idempotencyPk(key: string): string {
  return `IDEM#${key}`;
}

const POSITIONAL = /^(0|[1-9][0-9]*)(-(0|[1-9][0-9]*))*$/;
const MAX_SEGMENT_DIGITS = 40;

/**
 * The sort key of an operation item. Positional ids ("0", "3", "3-1", "10") become a key that
 * sorts in tree order: parents before their children, siblings by number ("2" before "10"). Each
 * segment is its digit count as one character, then the digits, segments joined by "."; the
 * encoding is prefix-free, so a parent's key is a prefix of its children's and sorts first. Other
 * ids (not made by our SDK) sort after every positional id, by their string.
 */
export function operationSk(operationId: string): string {
  if (POSITIONAL.test(operationId)) {
    const segments = operationId.split('-');
    if (segments.every((s) => s.length <= MAX_SEGMENT_DIGITS)) {
      return OP_PREFIX + segments.map((s) => String.fromCharCode(0x30 + s.length) + s).join('.');
    }
  }
  return `${OP_PREFIX}~${operationId}`;
}

/** The sort key of chunk `index` of the chunk set `hash`. */
export function chunkSk(hash: string, index: number): string {
  return `${chunkSetPrefix(hash)}${String(index).padStart(4, '0')}`;
}

/** The prefix shared by every chunk of a set. */
export function chunkSetPrefix(hash: string): string {
  return `${CHUNK_PREFIX}${hash}#`;
}

/** Epoch seconds DynamoDB's TTL expects, never earlier than the epoch-ms time given. */
export function ttlSeconds(epochMs: number): number {
  return Math.ceil(epochMs / 1000);
}

/** Whether an item's `ttl` (epoch seconds) has passed at `now` (epoch ms). */
export function ttlPassed(ttl: unknown, now: number): boolean {
  return typeof ttl === 'number' && ttl * 1000 <= now;
}
