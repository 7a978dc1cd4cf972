/**
 * The write units an update of the run item costs, estimated before it is sent from what it
 * changes (the run meter's estimate of an invocation's last write, whose own consumed capacity comes
 * back only with its answer; see `invocation-meter.ts`). Apart from `run-meter.ts` because it builds
 * the run item (`items.ts`), which itself reads the meter back from an item.
 */
import { isDeepStrictEqual } from 'node:util';
import { applyPatch, type RunPatch, type RunRecord } from '@durable-lambda/engine';
import { runItem } from './items';
import { durableTableDefinition } from './table';

/** An index of the table as the estimate sees it: its key attributes and its projected ones. */
interface IndexShape {
  keys: readonly string[];
  projected: readonly string[];
}

/** The table's global secondary indexes, from its definition (so the estimate follows the layout). */
const INDEXES: readonly IndexShape[] = (durableTableDefinition('table').GlobalSecondaryIndexes ?? []).map((index) => ({
  keys: (index.KeySchema ?? []).map((key) => key.AttributeName ?? ''),
  projected: index.Projection?.NonKeyAttributes ?? [],
}));

/**
 * The attributes the run item has for `run`, as the store writes it (`runItem`: the derived index
 * keys included, so the estimate follows the layout).
 */
function itemAttributes(run: RunRecord): Record<string, unknown> {
  return runItem(run, 0, { maxItemBytes: 400 * 1024 }, 0).item;
}

/**
 * The write units DynamoDB charges for an update of the run item from `before` by `patch`, known
 * before it is sent (the run meter's estimate of an invocation's last write, whose own capacity
 * comes back only with its answer). DynamoDB's rules
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html, "Provisioned
 * throughput considerations"): the base table, the item's size in KB rounded up (`itemUnits`, as
 * the item's previous update measured it); each global secondary index, 2 when the update changes
 * one of its key attributes (the old entry deleted, the new one put), 1 when it puts the item in
 * (its keys added) or takes it out (removed), 1 when it changes a projected attribute only, else
 * none. Index entries hold keys and `expiresAt`: 1 unit each.
 */
export function estimateRunUpdateUnits(before: RunRecord, patch: RunPatch, itemUnits: number): number {
  const after = { ...before };
  applyPatch(after, { ...patch, meter: undefined });
  const was = itemAttributes(before);
  const is = itemAttributes(after);
  let units = Math.max(1, itemUnits);
  for (const index of INDEXES) {
    const inBefore = index.keys.every((key) => was[key] !== undefined);
    const inAfter = index.keys.every((key) => is[key] !== undefined);
    const changed = (name: string) => !isDeepStrictEqual(was[name], is[name]);
    if (inBefore && inAfter) {
      if (index.keys.some(changed)) units += 2;
      else if (index.projected.some(changed)) units += 1;
    } else if (inBefore !== inAfter) units += 1;
  }
  return units;
}
