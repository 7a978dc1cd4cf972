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
