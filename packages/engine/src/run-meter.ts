import { performance } from 'node:perf_hooks';
import { EngineError } from './engine-error';
import type { WakeRequest } from './ports';
import type { RunMeter, RunMeterIncrement, RunPatch, RunRecord } from './run-record';

export type { RunMeter, RunMeterIncrement } from './run-record';

/** Every field of a {@link RunMeter}, in display order. */
export const RUN_METER_FIELDS = [
  'invocations',
  'billedMs',
  'mbMs',
  'wru',
  'rru',
  'schedulerRequests',
  'schedulerInvocations',
  'sqsRequests',
  'lambdaInvokes',
] as const satisfies readonly (keyof RunMeter)[];

/** A field of a {@link RunMeter}. */
export type RunMeterField = (typeof RUN_METER_FIELDS)[number];

/** A meter increment that is not a finite, non-negative number per field. */
export class InvalidMeterError extends EngineError<'invalid_meter'> {
  /** Stable code. */
  readonly code = 'invalid_meter';
  constructor(
    readonly field: string,
    value: unknown,
  ) {
    super(`meter.${field} must be a finite number of at least 0, got ${JSON.stringify(value)}`);
    this.name = 'InvalidMeterError';
  }
}

/**
 * The increment's fields that add something, checked: each a finite number of at least 0; unknown
 * fields are refused (a typo would otherwise be dropped silently). Zero adds nothing and is left
 * out, so a figure nobody measured stays absent.
 */
export function meterEntries(increment: RunMeterIncrement): Array<[RunMeterField, number]> {
  const entries: Array<[RunMeterField, number]> = [];
  for (const [field, value] of Object.entries(increment)) {
    if (value === undefined) continue;
    if (!(RUN_METER_FIELDS as readonly string[]).includes(field)) throw new InvalidMeterError(field, value);
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new InvalidMeterError(field, value);
    if (value > 0) entries.push([field as RunMeterField, value]);
  }
  return entries;
}

/**
 * `meter` with `increment` added, field by field (a new object). A field absent from both stays
 * absent; `invocations` and `billedMs` are 0 when nothing added to them yet.
 */
export function addToMeter(meter: RunMeter | undefined, increment: RunMeterIncrement): RunMeter {
  const sum: RunMeter = { ...(meter ?? { invocations: 0, billedMs: 0 }) };
  sum.invocations ??= 0;
  sum.billedMs ??= 0;
  for (const [field, value] of meterEntries(increment)) sum[field] = (sum[field] ?? 0) + value;
  return sum;
}

/**
 * Measures one invocation for its run's {@link RunMeter}. The session asks it once, when it builds
 * the invocation's last write (the close, or the release after a fault), and that write adds the
 * answer to the run: an invocation's consumption is recorded with the write that ends it, at no
 * extra write.
 */
export interface InvocationMeter {
  /**
   * What the invocation consumed up to the last write, that write included as far as the host
   * can tell before sending it (its capacity is only known after: a host estimates it from
   * `last`, the run as the invocation holds it and the write's patch, and says how), and `wake`,
   * the wake-up the invocation asks for right after that write (a PENDING close that is due
   * again), which a host that knows its price counts now. Asked once.
   */
  settle(wake?: WakeRequest, last?: LastWrite): RunMeterIncrement;
}

/** The invocation's last write, as {@link InvocationMeter.settle} is told of it. */
export interface LastWrite {
  /** The run as the invocation holds it (its lease's record). */
  run: RunRecord;
  /** The write's patch of the run (its meter not yet in it). */
  patch: RunPatch;
}

/**
 * The meter of hosts with nothing else to measure (dev server, test runner, memory store): one
 * invocation, billed from its start (this call) to its last write in real time (never the test
 * runner's virtual clock), rounded up to the ms as Lambda bills.
 */
export function wallClockMeter(now: () => number = () => performance.now()): InvocationMeter {
  const startedAt = now();
  return { settle: () => ({ invocations: 1, billedMs: Math.max(1, Math.ceil(now() - startedAt)) }) };
}
