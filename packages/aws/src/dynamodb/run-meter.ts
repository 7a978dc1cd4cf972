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
import { meterEntries, type RunMeter, type RunMeterField, type RunMeterIncrement } from '@durable-lambda/engine';
import type { Expressions } from './expressions';

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
