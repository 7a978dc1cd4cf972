/**
 * CloudWatch embedded metric format (EMF): one JSON line on stdout per data point, turned into
 * metrics by CloudWatch Logs. No `cloudwatch:PutMetricData` permission, no extra request.
 */

/** The namespace of every metric durable-lambda publishes. */
export const METRICS_NAMESPACE = 'DurableLambda';

/** The metrics the constructs alarm on (dimension `FunctionName`, the unqualified Lambda name). */
export const METRIC = {
  /** A run ended SUCCEEDED. */
  runsSucceeded: 'RunsSucceeded',
  /** A run ended FAILED. */
  runsFailed: 'RunsFailed',
  /** Milliseconds from a run's start to its end, at its end. */
  runDuration: 'RunDuration',
  /** RUNNING runs older than the function's expected run duration (the watchdog counts them). */
  stuckRuns: 'StuckRuns',
} as const;

/** Writes a line to stdout; the Lambda runtime's console is bypassed so the line stays plain JSON. */
export type LineWriter = (line: string) => void;

export const stdoutWriter: LineWriter = (line) => {
  process.stdout.write(`${line}\n`);
};

/** One EMF line with the given metrics (name: [value, unit]) for one function. */
export function emfLine(
  functionName: string,
  metrics: Record<string, readonly [number, 'Count' | 'Milliseconds']>,
  timestamp: number,
): string {
  const values: Record<string, number> = {};
  for (const [name, [value]] of Object.entries(metrics)) values[name] = value;
  return JSON.stringify({
    _aws: {
      Timestamp: timestamp,
      CloudWatchMetrics: [
        {
          Namespace: METRICS_NAMESPACE,
          Dimensions: [['FunctionName']],
          Metrics: Object.entries(metrics).map(([name, [, unit]]) => ({ Name: name, Unit: unit })),
        },
      ],
    },
    FunctionName: functionName,
    ...values,
  });
}

/**
 * Whether a function publishes its custom metrics: `on` when its construct was asked for them
 * (`metrics` of `DurableFunction`; for the reconciler, when a function it serves was). Custom
 * metrics are billed per metric and month (CloudWatch, $0.30 each), so they are opt-in.
 */
export const METRICS_ENV = 'DURABLE_CUSTOM_METRICS';

/** True when the environment turns custom metrics on ({@link METRICS_ENV} is `on`). */
export function customMetricsOn(env: Readonly<Record<string, string | undefined>>): boolean {
  return env[METRICS_ENV] === 'on';
}

/**
 * The line without its embedded-metric-format directive (`_aws`): the same JSON fields, searchable
 * in Logs Insights, but no metric is made of it (so none is billed). A line that is not a JSON
 * object is returned as it is.
 */
export function withoutEmf(line: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return line;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !('_aws' in parsed)) return line;
  const { _aws: _directive, ...fields } = parsed as Record<string, unknown>;
  return JSON.stringify(fields);
}
