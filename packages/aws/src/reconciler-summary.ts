import type { ReconcileReport } from '@durable-lambda/engine';

/** Why the reconciler stopped its passes for this invocation. */
export type ReconcilerStop =
  /** The last pass found fewer due runs than its limit. */
  | 'done'
  /** More runs may be due, but the invocation had too little time left for another pass. */
  | 'time'
  /** The pass limit was reached. */
  | 'passes'
  /** A pass failed as a whole (the due index could not be read); the invocation fails. */
  | 'error';

/** What one reconciler invocation did, summed over its passes (one structured log line). */
export interface ReconcilerSummary {
  passes: number;
  /** Due-index entries looked at. */
  examined: number;
  /** Runs woken again (wake-ups sent), each counted once. */
  woken: number;
  /** Ended child runs whose parent was told. */
  parentsNotified: number;
  /** Runs past their execution deadline that this invocation ended `TIMED_OUT`. */
  timedOut: number;
  /** Ended runs whose child runs it ended (a timeout or tree cancel cut short before). */
  treesEnded: number;
  /** Stale index entries removed. */
  repaired: number;
  /** Runs that could not be handled by any pass (the next invocation finds them again). */
  failed: number;
  /** Due runs of functions another stack's reconciler serves (left to it). */
  notServed: number;
  stoppedBy: ReconcilerStop;
  durationMs: number;
  /** The first failures, with their errors (at most {@link MAX_LISTED}). */
  failures: ReconcileReport['failed'];
  /** The error that stopped the invocation, when `stoppedBy` is `error`. */
  error?: string;
}

/** Failures listed by name in the log line; the count covers them all. */
export const MAX_LISTED = 20;

/** The namespace of every metric durable-lambda publishes (as the CDK constructs' alarms read it). */
export const RECONCILER_METRICS_NAMESPACE = 'DurableLambda';

/** The reconciler's metrics, dimension `FunctionName` (the reconciler function's name). */
export const RECONCILER_METRIC = {
  runsExamined: 'RunsExamined',
  runsWoken: 'RunsWoken',
  parentsNotified: 'ParentsNotified',
  failed: 'Failed',
} as const;

/**
 * Adds up the passes of one invocation. Runs are counted once each, however many passes met them
 * (a run woken by one pass may still be in the index at the next, until its invocation takes the
 * lease); `examined` counts every entry every pass read.
 */
export class SummaryBuilder {
  private passes = 0;
  private examined = 0;
  private readonly woken = new Set<string>();
  private readonly parentsNotified = new Set<string>();
  private readonly timedOut = new Set<string>();
  private readonly treesEnded = new Set<string>();
  private readonly repaired = new Set<string>();
  private readonly failed = new Map<string, string>();
  private readonly notServed = new Set<string>();

  /** The runs acted on so far (woken, told, repaired, failed or passed over). */
  private readonly touched = new Set<string>();

  /**
   * Adds one pass; `notServed` are the runs it left to another reconciler (reported apart from
   * `woken`). Returns how many of the runs it acted on no earlier pass had.
   */
  add(report: ReconcileReport, notServed: ReadonlySet<string>): number {
    this.passes += 1;
    this.examined += report.examined;
    const before = this.touched.size;
    for (const { runId } of report.woken) {
      if (notServed.has(runId)) continue;
      this.woken.add(runId);
      this.failed.delete(runId);
    }
    for (const runId of notServed) this.notServed.add(runId);
    for (const runId of report.parentsNotified) this.parentsNotified.add(runId);
    for (const runId of report.timedOut) {
      this.timedOut.add(runId);
      this.failed.delete(runId);
    }
    for (const runId of report.treesEnded) this.treesEnded.add(runId);
    for (const runId of report.repaired) this.repaired.add(runId);
    for (const { runId, error } of report.failed) {
      if (!this.woken.has(runId) && !this.timedOut.has(runId)) this.failed.set(runId, error);
    }
    const acted = [
      ...report.woken.map((w) => w.runId),
      ...report.parentsNotified,
      ...report.timedOut,
      ...report.treesEnded,
      ...report.repaired,
      ...report.failed.map((f) => f.runId),
    ];
    for (const runId of acted) this.touched.add(runId);
    return this.touched.size - before;
  }

  /** The summary so far. */
  summary(stoppedBy: ReconcilerStop, durationMs: number, error?: string): ReconcilerSummary {
    return {
      passes: this.passes,
      examined: this.examined,
      woken: this.woken.size,
      parentsNotified: this.parentsNotified.size,
      timedOut: this.timedOut.size,
      treesEnded: this.treesEnded.size,
      repaired: this.repaired.size,
      failed: this.failed.size,
      notServed: this.notServed.size,
      stoppedBy,
      durationMs,
      failures: [...this.failed].slice(0, MAX_LISTED).map(([runId, message]) => ({ runId, error: message })),
      ...(error === undefined ? {} : { error }),
    };
  }
}

/**
 * The summary as one CloudWatch embedded-metric-format line: the metrics `RunsExamined`,
 * `RunsWoken`, `ParentsNotified` and `Failed` (namespace `DurableLambda`, dimension
 * `FunctionName`), and the rest of the summary as plain fields for Logs Insights.
 */
export function summaryLine(functionName: string, summary: ReconcilerSummary, timestamp: number): string {
  const metrics: Array<[string, number]> = [
    [RECONCILER_METRIC.runsExamined, summary.examined],
    [RECONCILER_METRIC.runsWoken, summary.woken],
    [RECONCILER_METRIC.parentsNotified, summary.parentsNotified],
    [RECONCILER_METRIC.failed, summary.failed],
  ];
  return JSON.stringify({
    _aws: {
      Timestamp: timestamp,
      CloudWatchMetrics: [
        {
          Namespace: RECONCILER_METRICS_NAMESPACE,
          Dimensions: [['FunctionName']],
          Metrics: metrics.map(([name]) => ({ Name: name, Unit: 'Count' })),
        },
      ],
    },
    FunctionName: functionName,
    message: 'durable-lambda reconciler',
    ...Object.fromEntries(metrics),
    ...summary,
  });
}
