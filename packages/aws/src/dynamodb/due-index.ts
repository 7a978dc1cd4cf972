import { type DueRun, dueAfter, EngineInputError } from '@durable-lambda/engine';
import { Expressions } from './expressions';
import { DUE_INDEX, DUE_SHARD, DUE_SHARDS, dueShards, PK } from './layout';
import type { TableAccess } from './table-access';

/** Most entries one {@link findDueRuns} returns. */
export const MAX_DUE_RUNS = 1_000;

const RUN_PREFIX = 'RUN#';

/**
 * The partitions of the due index (`Store.duePartitions`): its shards, `DUE_SHARDS` of the layout.
 * Partition `n` is the shard `due#<n>`.
 */
export function duePartitions(): number {
  return DUE_SHARDS;
}

/**
 * The due index, earliest first: runs whose `dueAt` is at or before `before`, at most `limit`.
 * One Query per shard of the sparse `due` index (all in parallel), each ascending on `dueAt` and
 * stopped once it has `limit` live entries; the shards' entries are merged, ties broken by run id.
 * With `partition`, the one shard `due#<partition>` alone (one Query, more pages only past
 * expired entries or 1 MB): the reconciler pages shards side by side when it is behind.
 * Entries carry keys and `expiresAt`, so a run past its retention (which DynamoDB deletes only
 * eventually) is skipped here and can never hold back the runs behind it. The index is eventually
 * consistent: a run made due a moment ago may show late, one moved on may still show; callers
 * read each run before acting. With `after`, only entries after it in (`dueAt`, run id) order:
 * each shard's Query starts at its `dueAt` (ties there are told apart by run id).
 */
export async function findDueRuns(
  access: TableAccess,
  before: number,
  limit: number,
  now: number,
  after?: DueRun,
  partition?: number,
): Promise<DueRun[]> {
  if (!Number.isFinite(before)) throw new EngineInputError('before', 'must be a time (epoch ms)');
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_DUE_RUNS) {
    throw new EngineInputError('limit', `must be a whole number from 1 to ${MAX_DUE_RUNS}`);
  }
  const shards = dueShards();
  if (partition !== undefined && (!Number.isInteger(partition) || partition < 0 || partition >= shards.length)) {
    throw new EngineInputError('partition', `must be a whole number from 0 to ${shards.length - 1}`);
  }
  const perShard = await Promise.all(
    (partition === undefined ? shards : [shards[partition] as string]).map(async (shard) => {
      const e = new Expressions();
      const found: DueRun[] = [];
      const range = after
        ? `${e.name('dueAt')} BETWEEN ${e.value(after.dueAt)} AND ${e.value(before)}`
        : `${e.name('dueAt')} <= ${e.value(before)}`;
      if (after && after.dueAt > before) return found;
      const pages = access.queryPages({
        IndexName: DUE_INDEX,
        KeyConditionExpression: `${e.name(DUE_SHARD)} = ${e.value(shard)} AND ${range}`,
        ScanIndexForward: true,
        Limit: limit,
        ...e.attributes(),
      });
      for await (const page of pages) {
        for (const item of page) {
          if (typeof item.expiresAt === 'number' && item.expiresAt <= now) continue;
          const pk = String(item[PK]);
          if (!pk.startsWith(RUN_PREFIX)) continue;
          const entry = { runId: pk.slice(RUN_PREFIX.length), dueAt: Number(item.dueAt) };
          if (!after || dueAfter(entry, after)) found.push(entry);
          if (found.length >= limit) return found;
        }
      }
      return found;
    }),
  );
  return perShard
    .flat()
    .sort((a, b) => a.dueAt - b.dueAt || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0))
    .slice(0, limit);
}
