/**
 * The run's meter (`RunRecord.meter`, see the engine's `run-meter.ts`) on the run item: one
 * top-level number attribute per figure, added to by `ADD` in the same UpdateItem as the rest of
 * the write (a commit, a revision), so increments that race never lose a count and a refused
 * write adds nothing.
 *
 * Why top-level attributes and not one map: `ADD m.w :x` fails on an item without the map `m`
 * ("the document path provided in the update expression is invalid"), which every run item
 * written before the meter existed is, and `SET m = if_not_exists(...)` cannot share an update
 * with `ADD m.w` (overlapping paths). `ADD` on a missing top-level number starts it from 0.
 * The names are two or three characters (item bytes are write units) and none is projected into
 * an index (indexes project keys and `expiresAt` only), so a metered write costs no index write.
 *
 * A write retried by the SDK after a lost response whose first attempt had in fact been applied
 * adds the increment twice: the fence condition holds for both attempts. That is the one case of
 * double counting, as rare as lost responses; a condition to tell the two apart would cost a
 * refusal path in every commit. A write refused by its condition (fence, inline map) writes
 * nothing, and the commit's next attempt adds the increment once.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  applyPatch,
  meterEntries,
  type RunMeter,
  type RunMeterField,
  type RunMeterIncrement,
  type RunPatch,
  type RunRecord,
} from '@durable-lambda/engine';
import type { Expressions } from './expressions';
import { runItem } from './items';
import { durableTableDefinition } from './table';

/** The run item's attribute of each meter figure. */
export const METER_ATTRIBUTES: Readonly<Record<RunMeterField, string>> = {
  invocations: 'mI',
  billedMs: 'mMs',
  mbMs: 'mMb',
  wru: 'mW',
  rru: 'mR',
  schedulerRequests: 'mS',
  schedulerInvocations: 'mSi',
  sqsRequests: 'mQ',
  lambdaInvokes: 'mL',
};

/**
 * Adds `increment` to the update `e` of the run item (`ADD` per figure that adds something).
 * Throws `InvalidMeterError` (code `invalid_meter`) for a figure that is not a finite number of at
 * least 0, before anything is sent.
 */
export function addRunMeter(e: Expressions, increment: RunMeterIncrement): void {
  for (const [field, value] of meterEntries(increment)) e.adds(METER_ATTRIBUTES[field], value);
}

/** The {@link RunMeter} a run item holds, or undefined when no figure was ever added. */
export function runMeterFromItem(item: Record<string, unknown>): RunMeter | undefined {
  let meter: RunMeter | undefined;
  for (const [field, attribute] of Object.entries(METER_ATTRIBUTES) as Array<[RunMeterField, string]>) {
    const value = item[attribute];
    if (typeof value !== 'number') continue;
    meter ??= { invocations: 0, billedMs: 0 };
    meter[field] = value;
  }
  return meter;
}

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
