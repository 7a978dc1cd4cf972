/**
 * The tag index of the DynamoDB table (TABLE.md, "Tag index"): one small item per (run, tag), in
 * the base table, no GSI. Partition key `TAG#<key>=<value>#<n>`, n a stable hash of the run id
 * modulo {@link TAG_SHARDS}, so the runs of one tag value (`region=eu` on every run) spread over
 * that many partition keys and no key takes every run; sort key `<createdAt, 15 digits>#<runId>`,
 * so each shard is in listing order and a search reads its shards newest first and merges them
 * (`tag-search.ts`).
 *
 * Written ahead of the run write that sets the tag (plain PutItems, 1 WRU each), removed after the
 * write that replaced it (DeleteItem, best effort): never in a transaction with the run item,
 * which would double the write units of a run item that holds the run's operations. So an entry
 * may name a run that does not carry its tag (a write that failed or was fenced after its entry,
 * a delete lost to a crash, an expired run's id created anew): the run item is the truth, and a
 * search reads each run and keeps only those that carry every tag of the query, with the
 * entry's `createdAt`. Entries live until the TTL ceiling (`itemTtl`: the run's retention is not
 * known while it runs), so a stale one costs a read until then, never a wrong answer.
 */
import type { RunTags } from '@durable-lambda/protocol';
import { DeleteCommand, PutCommand } from './commands';
import { fnv1a, PK, SK, TTL } from './layout';
import type { StoreContext } from './store-context';

/** Key prefix of tag index entries. */
export const TAG_PREFIX = 'TAG#';
/**
 * Partitions of one tag value. A run writes an entry once per tag it is given (and deletes one per
 * value replaced), so one tag value on every run takes ~16 x 1,000 = 16,000 run starts a second
 * before a shard reaches DynamoDB's ~1,000 writes a second per partition key; a search queries the
 * 16 in parallel (16 requests, 0.5 RRU each for a page of small entries).
 */
export const TAG_SHARDS = 16;
/** Digits of `createdAt` in an entry's sort key: epoch ms are 13 today; 15 sort right until year 33658. */
const CREATED_DIGITS = 15;

/** The partition of `runId`'s entry for `key=value`. */
export function tagPk(key: string, value: string, runId: string): string {
  return `${TAG_PREFIX}${key}=${value}#${fnv1a(runId) % TAG_SHARDS}`;
}

/** Every partition of `key=value`. */
export function tagPks(key: string, value: string): string[] {
  return Array.from({ length: TAG_SHARDS }, (_, n) => `${TAG_PREFIX}${key}=${value}#${n}`);
}

/** Where a run created at `createdAt` sorts in a tag's partitions. */
export function tagSk(createdAt: number, runId: string): string {
  return `${createdAtKey(createdAt)}#${runId}`;
}

/** `createdAt` as the sort key's fixed-width prefix (also a bound: no entry's key equals it). */
export function createdAtKey(createdAt: number): string {
  return String(Math.max(0, Math.trunc(createdAt))).padStart(CREATED_DIGITS, '0');
}

/** The tags of `next` that `before` did not have with that value: their entries are written. */
function added(before: Readonly<RunTags>, next: Readonly<RunTags>): Array<[string, string]> {
  return Object.entries(next).filter(([key, value]) => before[key] !== value);
}

/**
 * Writes the index entries of the run's tags that `before` did not hold (all of them for a new
 * run), ahead of the run write that stores the tags. One PutItem each, in parallel; idempotent.
 */
export async function writeTagEntries(
  ctx: StoreContext,
  run: { runId: string; createdAt: number; expiresAt?: number },
  next: Readonly<RunTags>,
  before: Readonly<RunTags> = {},
): Promise<void> {
  const now = ctx.clock.now();
  const ttl = ctx.itemTtl(now, run.expiresAt);
  await Promise.all(
    added(before, next).map(([key, value]) =>
      ctx.access.client.send(
        new PutCommand({
          TableName: ctx.table,
          Item: {
            [PK]: tagPk(key, value, run.runId),
            [SK]: tagSk(run.createdAt, run.runId),
            runId: run.runId,
            createdAt: run.createdAt,
            [TTL]: ttl,
          },
        }),
      ),
    ),
  );
}

/**
 * Deletes the entries of the values `next` replaced or dropped, once the run write that stored
 * `next` succeeded. Best effort: an entry left behind is skipped by every search (the run no longer
 * carries it) and expires at its TTL.
 */
export async function deleteReplacedTagEntries(
  ctx: StoreContext,
  run: { runId: string; createdAt: number },
  before: Readonly<RunTags>,
  next: Readonly<RunTags>,
): Promise<void> {
  await Promise.all(
    added(next, before).map(([key, value]) =>
      ctx.access.client
        .send(
          new DeleteCommand({
            TableName: ctx.table,
            Key: { [PK]: tagPk(key, value, run.runId), [SK]: tagSk(run.createdAt, run.runId) },
          }),
        )
        .catch(() => undefined),
    ),
  );
}
