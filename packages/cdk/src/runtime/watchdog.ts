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
 * (0 when none, so the alarm sees data). Returns the counts.
 */
export async function checkStuckRuns(
  functions: readonly WatchedFunction[],
  countRunning: CountRunning,
  options: { now?: number; write?: LineWriter } = {},
): Promise<Record<string, number>> {
  const now = options.now ?? Date.now();
  const write = options.write ?? stdoutWriter;
  const counts: Record<string, number> = {};
  await Promise.all(
    functions.map(async ({ name, thresholdMs }) => {
      const count = await countRunning(name, now - thresholdMs);
      counts[name] = count;
      write(emfLine(name, { [METRIC.stuckRuns]: [count, 'Count'] }, now));
    }),
  );
  return counts;
}
