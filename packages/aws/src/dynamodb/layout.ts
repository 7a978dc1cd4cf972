/**
 * Keys and attribute names of the single-table layout described in `packages/aws/TABLE.md`.
 * Everything that knows how an item is keyed lives here.
 */
import { createHash } from 'node:crypto';
import { functionBaseName } from '@durable-lambda/engine';

/** Partition key attribute (S). */
export const PK = 'pk';
/** Sort key attribute (S). */
export const SK = 'sk';
/** DynamoDB's TTL attribute: epoch seconds. */
export const TTL = 'ttl';
/**
 * The index listing runs (layout 2): partition key {@link LIST_KEY} (`<function base name>#<n>`,
 * {@link LIST_SHARDS} shards per function, so the run starts and ends of one function spread over
 * that many partition keys), sort key (`createdAt`, `runId`), projecting `status`, `functionName`
 * and `expiresAt`: a run enters it once (its creation) and is written again only when a projected
 * attribute changes (its status, once, at its end; its name, once, when pinned). No partition key
 * holds every run of the table or of a status.
 */
export const LIST_INDEX = 'byFunctionTime';
/** The listing index's partition key attribute, on layout-2 run items. */
export const LIST_KEY = 'listKey';
/**
 * Shards of a function in the listing index. A run writes its shard twice (start, end), so one
 * function takes ~32 x 1,000 / 2 = 16,000 run starts and ends a second before a shard reaches
 * DynamoDB's ~1,000 writes a second per partition key; a listing queries its 32 shards in parallel.
 */
export const LIST_SHARDS = 32;
/** Partition key of the registry of function base names (`sk` = the name), for listings with no function. */
export const FUNCTIONS_PK = 'FUNCTIONS';

/** The listing-index partition of a run: its function's base name and a stable shard of its id. */
export function listKeyOf(functionName: string, runId: string): string {
  return `${functionBaseName(functionName)}#${fnv1a(runId) % LIST_SHARDS}`;
}

/** Every listing-index partition of a function (by its base name). */
export function listKeys(functionBase: string): string[] {
  return Array.from({ length: LIST_SHARDS }, (_, n) => `${functionBase}#${n}`);
}

/**
 * Legacy (layout 1) listing index: partition key `functionName`, sort key (`status`,
 * `createdAt`, `runId`). Tables made before layout 2 have it (with the two below); new tables do
 * not. Every status change moved a run's entry in it, and all runs of a function shared its
 * partition key: see TABLE.md, "Moving a table to layout 2".
 */
export const BY_FUNCTION_INDEX = 'byFunction';
/** Legacy (layout 1): runs of a function recorded under a qualified name, by `functionBase`. */
export const BY_FUNCTION_BASE_INDEX = 'byFunctionBase';
/**
 * On run items whose `functionName` is qualified only: the name without its qualifier
 * (`orders:7` → `orders`), the partition key of {@link BY_FUNCTION_BASE_INDEX}. Written by layout 1
 * and, for tables that keep the legacy indexes, by layout 2 too.
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
/** Legacy (layout 1): runs of every function by status: `status`, then (`createdAt`, `runId`). */
export const BY_STATUS_INDEX = 'byStatus';
/**
 * The due index (sparse): partition key {@link DUE_SHARD} (`due#<n>`), sort key `dueAt` (N). Only
 * run items whose `dueAt` is set carry the two, so ended runs drop out of it by themselves.
 */
export const DUE_INDEX = 'due';
/** The due index's partition key attribute, on run items only while `dueAt` is set. */
export const DUE_SHARD = 'dueShard';
/**
 * Partitions of the due index. A run writes the index ~4 times (enters at its start, moves when it
 * waits, leaves at its end; a lease keeps its entry), so at 10,000 starts and 10,000 wake-ups a
 * second the table writes ~40,000 entries a second: 64 shards keep each under ~650 a second, below
 * DynamoDB's ~1,000 per partition key. A reader queries all 64 (in parallel) and merges; the
 * reconciler can work them shard by shard. Runs written with 16 shards (layout 1) sit in
 * `due#0`…`due#15`, which are among the 64: every reader finds them, and their next write of
 * `dueAt` moves them to their 64-shard key.
 */
export const DUE_SHARDS = 64;
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
  return `due#${fnv1a(runId) % DUE_SHARDS}`;
}

/** FNV-1a (32 bits) of a string's UTF-16 code units: a stable, cheap spread of run ids. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** Every shard of the due index, `due#0` to `due#63`. */
export function dueShards(): string[] {
  return Array.from({ length: DUE_SHARDS }, (_, n) => `due#${n}`);
}

/** DynamoDB's largest partition key value, bytes (UTF-8). */
export const MAX_PARTITION_KEY_BYTES = 2048;
/** DynamoDB's largest sort key value, bytes (UTF-8). */
export const MAX_SORT_KEY_BYTES = 1024;

/**
 * Whether an item with this key can exist: DynamoDB refuses a request naming a longer key (a
 * `ValidationException`), so a read of a run id or operation id longer than any a run has is
 * answered as "none" instead of sent.
 */
export function keyFits(pk: string, sk?: string): boolean {
  return (
    Buffer.byteLength(pk, 'utf8') <= MAX_PARTITION_KEY_BYTES &&
    (sk === undefined || Buffer.byteLength(sk, 'utf8') <= MAX_SORT_KEY_BYTES)
  );
}

/**
 * The partition of an idempotency record: `IDEM#<key>`, or for a key that would not fit (the
 * control API's record key holds the request's path) `IDEM##<sha256 of the key>`, which no
 * key's own form can be (record keys never start with `#`).
 */
export function idempotencyPk(key: string): string {
  const pk = `IDEM#${key}`;
  return keyFits(pk) ? pk : `IDEM##${createHash('sha256').update(key, 'utf8').digest('hex')}`;
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
