/**
 * `durable cost`'s arithmetic: what a function's runs cost on average, from their meters (see
 * `RunMeterWire`), and a month of them at list prices (`list-prices.ts`), with the monthly run
 * count observed from the runs' own rate unless given.
 */
import { type CostEstimateErrorCode, DurableClientError } from '../client/client-errors';
import type { RunMeterWire, RunWire } from '../wire';
import { LIST_PRICES, type ListPrice, NOT_COUNTED } from './list-prices';

/** A month, as AWS's pricing calculator counts one: 730 hours. */
export const MONTH_MS = 730 * 3_600_000;
/** The memory assumed when no run measured it and none is given: `DurableFunction`'s default. */
export const DEFAULT_MEMORY_MB = 1024;

/** Why no estimate could be made; `code` is stable. */
export class CostEstimateError extends DurableClientError<CostEstimateErrorCode> {
  constructor(
    /** `invalid_option` (a bad value, named by `option`), `unknown_function`, `no_metered_runs`. */
    readonly code: CostEstimateErrorCode,
    message: string,
    /** The option whose value was refused, with `invalid_option`. */
    readonly option?: string,
  ) {
    super(message);
    this.name = 'CostEstimateError';
  }
}

/** What an estimate is made from besides the runs. */
export interface CostOptions {
  /** Now, epoch ms: the observed rate runs to it. */
  now: number;
  /** The runs were read from this time on (epoch ms); default: the oldest run read. */
  since?: number;
  /** Price duration at this memory (MB) instead of what the runs measured. */
  memoryMb?: number;
  /** Runs a month, instead of the observed rate. */
  runsPerMonth?: number;
}

/** One line of the bill. */
export interface CostItem {
  item: string;
  /** The quantity one run uses on average, in `price.unit`s; null when no run measured it. */
  perRun: number | null;
  price: ListPrice;
  /** US dollars per run (0 when not measured). */
  perRunUsd: number;
  /** US dollars a month. */
  monthlyUsd: number;
}

/** `durable cost`'s answer (its `--json` output). */
export interface CostEstimate {
  function: string;
  /** Runs read (every status), and the ended runs with a meter that the averages are over. */
  runsRead: number;
  runsAveraged: number;
  /** The window the runs were read over, ISO times, and the run rate it gives. */
  window: { from: string; to: string };
  runsPerMonth: number;
  runsPerMonthSource: 'observed' | 'given';
  memoryMb: number | null;
  /** `measured` (the runs' meters), `given` (`--memory`), `assumed` (DEFAULT_MEMORY_MB). */
  memorySource: 'measured' | 'given' | 'assumed';
  /** False when no run was metered on AWS (the dev server): DynamoDB, Scheduler and SQS are absent. */
  awsMeasured: boolean;
  items: CostItem[];
  perRunUsd: number;
  monthlyUsd: number;
  per1MRunsUsd: number;
  notCounted: readonly string[];
}

const average = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

/**
 * The estimate for `functionName` from `runs` (read newest first over the window: every status
 * counts toward the rate, the ended ones with a meter toward the averages, since a running run's
 * meter is not complete). A meter with `wru` was measured on AWS, where an absent figure is zero;
 * one without (dev server, test runner) measured invocations and duration only.
 */
export function estimateCost(functionName: string, runs: readonly RunWire[], options: CostOptions): CostEstimate {
  const metered = runs.filter(
    (run): run is RunWire & { meter: RunMeterWire } => run.status !== 'RUNNING' && run.meter !== undefined,
  );
  if (metered.length === 0) {
    throw new CostEstimateError(
      'no_metered_runs',
      `no ended run of ${JSON.stringify(functionName)} with a meter among the ${runs.length} read; let some finish, or widen --since`,
    );
  }
  const meters = metered.map((run) => run.meter);
  const aws = meters.filter((meter) => meter.wru !== undefined);
  const from = options.since ?? Math.min(...runs.map((run) => Date.parse(run.createdAt)));
  const windowMs = Math.max(1_000, options.now - from);
  const runsPerMonth = options.runsPerMonth ?? (runs.length / windowMs) * MONTH_MS;
  const measuredMemory = meters.every((meter) => meter.mbMs !== undefined && meter.billedMs > 0);
  const memoryMb = options.memoryMb ?? (measuredMemory ? null : DEFAULT_MEMORY_MB);
  const gbSeconds = average(
    meters.map((meter) =>
      memoryMb === null ? (meter.mbMs ?? 0) / 1024 / 1000 : (meter.billedMs * memoryMb) / 1024 / 1000,
    ),
  );
  const onAws = (field: 'wru' | 'rru' | 'schedulerInvocations' | 'sqsRequests') =>
    aws.length === 0 ? null : average(aws.map((meter) => meter[field] ?? 0));
  const line = (item: string, perRun: number | null, price: ListPrice): CostItem => {
    const perRunUsd = (perRun ?? 0) * price.usd;
    return { item, perRun, price, perRunUsd, monthlyUsd: perRunUsd * runsPerMonth };
  };
  const items = [
    line('Lambda requests', average(meters.map((meter) => meter.invocations)), LIST_PRICES.lambdaRequest),
    line('Lambda duration (Arm)', gbSeconds, LIST_PRICES.lambdaArmGbSecond),
    line('DynamoDB writes', onAws('wru'), LIST_PRICES.dynamodbWrite),
    line('DynamoDB reads', onAws('rru'), LIST_PRICES.dynamodbRead),
    line('EventBridge Scheduler', onAws('schedulerInvocations'), LIST_PRICES.schedulerInvocation),
    line('SQS', onAws('sqsRequests'), LIST_PRICES.sqsRequest),
  ];
  const perRunUsd = items.reduce((sum, item) => sum + item.perRunUsd, 0);
  // The measured memory, for the answer: the runs' MB·ms over their billed ms.
  const billed = meters.reduce((sum, meter) => sum + meter.billedMs, 0);
  const shownMemory = memoryMb ?? Math.round(meters.reduce((sum, m) => sum + (m.mbMs ?? 0), 0) / billed);
  return {
    function: functionName,
    runsRead: runs.length,
    runsAveraged: metered.length,
    window: { from: new Date(from).toISOString(), to: new Date(options.now).toISOString() },
    runsPerMonth,
    runsPerMonthSource: options.runsPerMonth === undefined ? 'observed' : 'given',
    memoryMb: shownMemory,
    memorySource: options.memoryMb !== undefined ? 'given' : memoryMb === null ? 'measured' : 'assumed',
    awsMeasured: aws.length > 0,
    items,
    perRunUsd,
    monthlyUsd: perRunUsd * runsPerMonth,
    per1MRunsUsd: perRunUsd * 1e6,
    notCounted: NOT_COUNTED,
  };
}
