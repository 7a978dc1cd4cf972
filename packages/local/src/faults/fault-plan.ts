import { InvalidArgumentError } from '@durable-lambda/sdk';
import { keyedRandom } from './seeded-random';

/**
 * The faults the test runner can inject, each a fault AWS documents as normal:
 * - `wakeLate`: a scheduled wake-up fires late (EventBridge Scheduler fires up to a minute late).
 * - `wakeTwice`: a scheduled wake-up fires twice.
 * - `wakeDropped`: a scheduled wake-up never fires (Scheduler drops an event after its retries).
 * - `eventTwice`: an asynchronous invoke event (a child run's start) is delivered twice.
 * - `eventDropped`: an asynchronous invoke event is never delivered.
 * - `callbackTwice`: the test's completion of a callback is sent twice (the second must be refused).
 * - `killBeforeStep`: the invocation dies once a step's START is durable, before its body runs.
 * - `killAfterStep`: the invocation dies after a step's body, before its SUCCEED/FAIL/RETRY is written.
 * - `killInCheckpoint`: a checkpoint is written, then the invocation dies before hearing back.
 * - `race`: the invocation pauses at a checkpoint past its lease; a second invocation takes the
 *   run over and runs; then the first resumes and must be fenced out.
 * - `storeLostResponse`: a store write succeeds, then reports failure (its response was lost).
 * - `throttleWaker`: a wake-up request (Scheduler) is throttled before doing anything.
 * - `throttleInvoker`: an invoke call (Lambda) is throttled before doing anything.
 */
export const FAULT_KINDS = [
  'wakeLate',
  'wakeTwice',
  'wakeDropped',
  'eventTwice',
  'eventDropped',
  'callbackTwice',
  'killBeforeStep',
  'killAfterStep',
  'killInCheckpoint',
  'race',
  'storeLostResponse',
  'throttleWaker',
  'throttleInvoker',
] as const;

/** One of {@link FAULT_KINDS}. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** The chance of each kind of fault at each place it can happen (0 to 1). */
export type FaultProbabilities = { [K in FaultKind]?: number };

/**
 * Seeded fault injection (see {@link FAULT_KINDS}). The same seed, handler and test code inject
 * the same faults at the same places, so a failing seed replays.
 */
export interface FaultOptions extends FaultProbabilities {
  /** Seeds every decision. A whole number (from 0 to 2^32 - 1). */
  seed: number;
  /** The chance of every kind not named. Default 0.03. Use 0 to inject only the kinds named. */
  defaultProbability?: number;
  /** At most this many faults per run of the runner, then none. Default: no limit. */
  maxFaults?: number;
  /** A late wake-up fires up to this many ms late. Default 90,000 (Scheduler: up to 60 s). */
  maxLateMs?: number;
}

/** Where a fault was injected. */
export interface FaultSite {
  /** The run's id. */
  runId: string;
  /**
   * The run's stable name within the test: `main` for the run under test, then
   * `<parent>/<operationId>` for a child run started by an invoke. The same in every replay.
   */
  run: string;
  /** The 0-based invocation of that run the fault hit; -1 outside any invocation. */
  invocation: number;
  /** The operation it hit, when one did. */
  operationId?: string;
  /** What exactly, e.g. `commit`, `wakeAt lease`, `START`. */
  detail?: string;
}

/** One injected fault. */
export interface FaultRecord extends FaultSite {
  kind: FaultKind;
  /** 1-based order of injection. */
  seq: number;
  /** Virtual time it was injected at, epoch ms. */
  at: number;
}

/** Probability every kind gets unless set. */
export const DEFAULT_FAULT_PROBABILITY = 0.03;
const DEFAULT_MAX_LATE_MS = 90_000;
const OPTION_KEYS = new Set<string>(['seed', 'defaultProbability', 'maxFaults', 'maxLateMs', ...FAULT_KINDS]);

/**
 * Decides, from a seed, which faults happen where, and records each one injected. Each decision
 * is keyed by its place (`roll(kind, key)`), so it does not depend on the order of decisions.
 */
export class FaultPlan {
  readonly seed: number;
  readonly maxLateMs: number;
  private readonly probabilities: Record<FaultKind, number>;
  private readonly maxFaults: number;
  private readonly records: FaultRecord[] = [];
  /** How often each key was rolled: the same place reached twice gets a fresh decision. */
  private readonly occurrences = new Map<string, number>();

  /** @throws InvalidArgumentError (code `invalid_argument`) naming the bad field. */
  constructor(
    options: FaultOptions,
    private readonly clock: { now(): number },
  ) {
    if (options === null || typeof options !== 'object') {
      throw new InvalidArgumentError('faults', 'must be an object like { seed: 42 }');
    }
    for (const key of Object.keys(options)) {
      if (!OPTION_KEYS.has(key)) {
        throw new InvalidArgumentError(`faults.${key}`, `unknown option (allowed: ${[...OPTION_KEYS].join(', ')})`);
      }
    }
    if (!Number.isInteger(options.seed) || options.seed < 0 || options.seed > 0xffffffff) {
      throw new InvalidArgumentError('faults.seed', `must be a whole number from 0 to 4294967295, got ${options.seed}`);
    }
    this.seed = options.seed;
    const fallback = probability(options.defaultProbability, 'faults.defaultProbability', DEFAULT_FAULT_PROBABILITY);
    this.probabilities = Object.fromEntries(
      FAULT_KINDS.map((kind) => [kind, probability(options[kind], `faults.${kind}`, fallback)]),
    ) as Record<FaultKind, number>;
    this.maxFaults = count(options.maxFaults, 'faults.maxFaults', Number.POSITIVE_INFINITY);
    this.maxLateMs = count(options.maxLateMs, 'faults.maxLateMs', DEFAULT_MAX_LATE_MS);
  }

  /** The chance of `kind` at each place. */
  probability(kind: FaultKind): number {
    return this.probabilities[kind];
  }

  /**
   * Whether a fault of `kind` happens at the place `key` names; when it does, it is recorded
   * with `site`. The n-th roll of one key is its own decision.
   */
  roll(kind: FaultKind, key: string, site: FaultSite): boolean {
    const p = this.probabilities[kind];
    if (p <= 0 || this.records.length >= this.maxFaults) return false;
    const place = `${kind}|${key}`;
    const n = (this.occurrences.get(place) ?? 0) + 1;
    this.occurrences.set(place, n);
    if (keyedRandom(this.seed, `${place}|${n}`) >= p) return false;
    this.records.push({ kind, seq: this.records.length + 1, at: this.clock.now(), ...site });
    return true;
  }

  /** A whole number from `min` to `max` drawn for `key` (e.g. how late a wake-up is); the n-th draw of a key is its own. */
  amount(key: string, min: number, max: number): number {
    const place = `amount|${key}`;
    const n = (this.occurrences.get(place) ?? 0) + 1;
    this.occurrences.set(place, n);
    return min + Math.floor(keyedRandom(this.seed, `${place}|${n}`) * (max - min + 1));
  }

  /** Every fault injected so far, in order. */
  get log(): readonly FaultRecord[] {
    return this.records;
  }

  /** How many faults of each kind were injected. */
  counts(): Record<FaultKind, number> {
    const counts = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<FaultKind, number>;
    for (const r of this.records) counts[r.kind] += 1;
    return counts;
  }

  /** A readable account of the seed and every fault, for failure messages. */
  describe(): string {
    return describeFaults(this.seed, this.records);
  }
}

/** `seed 42, 2 faults: #1 wakeDropped run main invocation 0 (wakeAt lease) ...`, one fault a line. */
export function describeFaults(seed: number, records: readonly FaultRecord[]): string {
  const lines = records.map(
    (r) =>
      `  #${r.seq} ${r.kind} run ${r.run} invocation ${r.invocation}` +
      `${r.operationId === undefined ? '' : ` operation ${r.operationId}`}` +
      `${r.detail === undefined ? '' : ` (${r.detail})`} at ${new Date(r.at).toISOString()}`,
  );
  return [`seed ${seed}, ${records.length} fault(s) injected${records.length ? ':' : ''}`, ...lines].join('\n');
}

function probability(value: unknown, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) {
    throw new InvalidArgumentError(field, `must be a probability from 0 to 1, got ${String(value)}`);
  }
  return value;
}

function count(value: unknown, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new InvalidArgumentError(field, `must be a whole number 0 or more, got ${String(value)}`);
  }
  return value;
}
