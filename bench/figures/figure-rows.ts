/**
 * The one shape every figure of `npm run bench` takes, and how a section hands its rows to the
 * table (bench/figures.bench.ts). Every metric is lower-is-better (time, bytes, units, dollars,
 * lateness), so `ratio` is always reference / ours: above 1, ours is that many times smaller.
 */
import { writeFileSync } from 'node:fs';

/** How big a run of the bench is: `smoke` (CI test), `quick` (`--quick`), `full` (default). */
export type BenchSize = 'smoke' | 'quick' | 'full';

/** One row of the table and of bench/results/latest.json. */
export interface FigureRow {
  /** The section that measured it: steps, replay, dynamodb, cost, lateness, bundle, memory. */
  section: string;
  metric: string;
  /** Unit of `ours` and `reference`: µs, ms, items, RRU, WRU, B, KB, MB, $, s. */
  unit: string;
  ours: number;
  /** The reference measured or modelled in the same run; null when none exists (`referenceName` says why). */
  reference: number | null;
  /** What the reference is. */
  referenceName: string;
  /** reference / ours; null without a reference. */
  ratio: number | null;
  /** The target, in words, e.g. "ratio ≥ 1000" or "≤ 1 s". */
  target: string;
  /** Whether the target is met; null when the row has no target. */
  met: boolean | null;
  /** Where a target is missed: by how much, why, what would close it; else how it was measured. */
  note: string;
}

/** Builds a row, computing the ratio. */
export function figure(
  r: Omit<FigureRow, 'ratio' | 'met' | 'target'> & {
    target?: string;
    met?: (ratio: number | null, ours: number) => boolean;
  },
): FigureRow {
  const ratio = r.reference === null || !(r.ours > 0) ? null : r.reference / r.ours;
  const { met, target, ...rest } = r;
  return { ...rest, ratio, target: target ?? '-', met: met ? met(ratio, r.ours) : null };
}

/** The size this section was asked for (`--size smoke|quick|full`). */
export function sizeArg(argv = process.argv): BenchSize {
  const i = argv.indexOf('--size');
  const v = i >= 0 ? argv[i + 1] : 'full';
  if (v !== 'smoke' && v !== 'quick' && v !== 'full') throw new Error(`--size must be smoke, quick or full, got ${v}`);
  return v;
}

/** Hands the rows to the table: writes them to `--out <file>` as JSON, or prints them. */
export function emitRows(rows: FigureRow[], argv = process.argv): void {
  const i = argv.indexOf('--out');
  const json = JSON.stringify(rows, null, 2);
  if (i >= 0 && argv[i + 1]) writeFileSync(argv[i + 1]!, json);
  else console.log(json);
}

/** Median of a non-empty list (NaN when empty). */
export function medianOf(xs: number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Progress lines go to stderr, so stdout stays the table. */
export const progressLine = (s: string): void => {
  process.stderr.write(`  ${s}\n`);
};
