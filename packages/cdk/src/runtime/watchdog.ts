import { emfLine, type LineWriter, METRIC, stdoutWriter } from './metrics';

/** The environment variables of the run watchdog's Lambda (set by the `DurableFunction` construct). */
export const WATCHDOG_ENV = {
  tableName: 'DURABLE_TABLE_NAME',
  /** JSON array of `{ name, thresholdMs }`: each function watched and its expected run duration. */
  functions: 'DURABLE_WATCHDOG_FUNCTIONS',
} as const;

/** One watched function. */
export interface WatchedFunction {
  name: string;
  /** A run still RUNNING this long after it started is stuck. */
  thresholdMs: number;
}

/** Counts the RUNNING runs of a function created before `createdBefore` (epoch ms). */
export type CountRunning = (functionName: string, createdBefore: number) => Promise<number>;

/** The aliases and published versions of a function (`$LATEST` excluded). */
export type ListQualifiers = (functionName: string) => Promise<string[]>;

/** How many counting queries of one function run at once. */
const COUNT_CONCURRENCY = 8;

/** Reads the watched functions from the environment; throws naming what is wrong. */
export function readWatchedFunctions(env: Readonly<Record<string, string | undefined>>): WatchedFunction[] {
  const raw = env[WATCHDOG_ENV.functions];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw ?? '');
  } catch {
    parsed = undefined;
  }
  const valid =
    Array.isArray(parsed) &&
    parsed.every(
      (f) =>
        typeof f?.name === 'string' &&
        f.name.length > 0 &&
        typeof f.thresholdMs === 'number' &&
        Number.isFinite(f.thresholdMs) &&
        f.thresholdMs > 0,
    );
  if (!valid)
    throw new Error(`durable-lambda watchdog: ${WATCHDOG_ENV.functions} must be a JSON array of {name, thresholdMs}`);
  return parsed as WatchedFunction[];
}

/**
 * Publishes `StuckRuns` for each watched function: its RUNNING runs older than its threshold
 * (0 when none, so the alarm sees data), those recorded under `name` and under `name:qualifier`
 * for each of its aliases and versions (`listQualifiers`). A listing that fails is reported
 * (`warn`) and the unqualified runs are still counted. Returns the counts.
 */
export async function checkStuckRuns(
  functions: readonly WatchedFunction[],
  countRunning: CountRunning,
  options: { now?: number; write?: LineWriter; listQualifiers?: ListQualifiers; warn?: LineWriter } = {},
): Promise<Record<string, number>> {
  const now = options.now ?? Date.now();
  const write = options.write ?? stdoutWriter;
  const warn = options.warn ?? ((line: string) => console.warn(line));
  const counts: Record<string, number> = {};
  await Promise.all(
    functions.map(async ({ name, thresholdMs }) => {
      let qualifiers: string[] = [];
      try {
        qualifiers = (await options.listQualifiers?.(name)) ?? [];
      } catch (error) {
        warn(`durable-lambda watchdog: cannot list the aliases and versions of ${name}: ${String(error)}`);
      }
      // Runs are recorded under `name` ($LATEST) or `name:qualifier` (an alias or a version).
      const recorded = [name, ...[...new Set(qualifiers)].filter((q) => q !== '$LATEST').map((q) => `${name}:${q}`)];
      let count = 0;
      for (let i = 0; i < recorded.length; i += COUNT_CONCURRENCY) {
        const batch = recorded.slice(i, i + COUNT_CONCURRENCY);
        for (const n of await Promise.all(batch.map((recordedName) => countRunning(recordedName, now - thresholdMs)))) {
          count += n;
        }
      }
      counts[name] = count;
      write(emfLine(name, { [METRIC.stuckRuns]: [count, 'Count'] }, now));
    }),
  );
  return counts;
}
