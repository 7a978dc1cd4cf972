/**
 * The bench's cost model: AWS list prices (us-east-1, on demand, no free tier, each with the page it
 * was read from; docs/performance.md cites them row by row), what a `DurableFunction` deploys by
 * default (read from the CDK package, not copied), and how what a run was measured to do becomes
 * dollars, ours and the managed service's side by side.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULTS } from '../../packages/cdk/src/service-function';

/** Prices in $ (per million where the name says so), us-east-1, on demand, before any free tier. */
export const PRICE = {
  /** DynamoDB on-demand, $ per million write request units (after the November 2024 cut). */
  writeUnitPerM: 0.625,
  /** DynamoDB on-demand, $ per million read request units. */
  readUnitPerM: 0.125,
  /** DynamoDB Standard table class, $ per GB-month stored (items, index entries, 100 B overhead each). */
  storageGbMonth: 0.25,
  /** EventBridge Scheduler, $ per million invocations (schedules that fire; API calls are not billed). */
  schedulerInvocationPerM: 1.0,
  /** SQS standard queue, $ per million requests (each 64 KB chunk of a request is one). */
  sqsRequestPerM: 0.4,
  /** Lambda, $ per million requests. */
  lambdaRequestPerM: 0.2,
  /** Lambda duration, $ per GB-second, first tier, by architecture. */
  lambdaGbSecond: { arm64: 0.0000133334, x86_64: 0.0000166667 } as Record<Architecture, number>,
  /** CloudWatch Logs, Lambda (vended) logs, Standard class: $ per GB ingested, first 10 TB tier. */
  logsIngestedGb: 0.5,
  /** CloudWatch Logs archive storage, $ per GB-month. */
  logsStoredGbMonth: 0.03,
  /** Lambda durable functions (the managed service): $ per million durable operations. */
  managedOperationPerM: 8.0,
  /** Lambda durable functions: $ per GB of data written (checkpoints). */
  managedWrittenGb: 0.25,
  /** Lambda durable functions: $ per GB-month of data retained. */
  managedRetainedGbMonth: 0.15,
} as const;

/** Where each price was read (docs/performance.md's price table repeats them). */
export const PRICE_SOURCE: Record<keyof typeof PRICE, string> = {
  writeUnitPerM: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  readUnitPerM: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  storageGbMonth: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  schedulerInvocationPerM: 'https://aws.amazon.com/eventbridge/pricing/',
  sqsRequestPerM: 'https://aws.amazon.com/sqs/pricing/',
  lambdaRequestPerM: 'https://aws.amazon.com/lambda/pricing/',
  lambdaGbSecond: 'https://aws.amazon.com/lambda/pricing/',
  logsIngestedGb: 'https://aws.amazon.com/cloudwatch/pricing/',
  logsStoredGbMonth: 'https://aws.amazon.com/cloudwatch/pricing/',
  managedOperationPerM: 'https://aws.amazon.com/lambda/pricing/',
  managedWrittenGb: 'https://aws.amazon.com/lambda/pricing/',
  managedRetainedGbMonth: 'https://aws.amazon.com/lambda/pricing/',
};

/** A Lambda architecture, as CDK's `Architecture.name` spells it. */
export type Architecture = 'arm64' | 'x86_64';

/** The memory and architecture a function is billed at. */
export interface LambdaSize {
  memoryMb: number;
  architecture: Architecture;
}

/** What a `DurableFunction` deploys when its props say nothing (packages/cdk/src/service-function.ts). */
export const CDK_FUNCTION: LambdaSize & { logRetentionDays: number } = {
  memoryMb: DEFAULTS.memorySize,
  architecture: DEFAULTS.architecture.name as Architecture,
  logRetentionDays: DEFAULTS.logRetention,
};

/**
 * The control API's default memory (`DurableApi`, packages/cdk/src/durable-api.ts: `props.memorySize
 * ?? 512`, not exported): a callback sent through it is one invocation of it.
 */
export const CDK_API_FUNCTION: LambdaSize = { memoryMb: 512, architecture: CDK_FUNCTION.architecture };

/** How long a finished run is kept by default (`DurableFunction`'s `retention`: 30 days). */
export const CDK_RETENTION_DAYS = 30;

/**
 * Real time of one AWS API call from a Lambda function in the same Region, ms, for every call an
 * invocation makes one after the other (DynamoDB, SQS, Scheduler, Lambda Invoke; the managed side's
 * CheckpointDurableExecution the same). DynamoDB's own figure is "single-digit millisecond" average
 * latency for GetItem and PutItem (AWS re:Post knowledge center, dynamodb-high-latency); the rest
 * is the in-region round trip and the SDK's marshalling. 10 ms is the round upper end, so our
 * side (which makes more calls) is not flattered.
 */
export const MS_PER_AWS_CALL = 10;

/**
 * CPU a function gets at a memory size, as a share of one vCPU: "at 1,769 MB, a function has the
 * equivalent of one vCPU" (Lambda developer guide, configuration-memory), in proportion below it.
 * Code measured as CPU time on the bench machine takes 1 / this share as long on Lambda.
 */
export const vcpuShare = (memoryMb: number): number => Math.min(1, memoryMb / 1769);

/** Months in a day (for $/GB-month prices). */
const MONTHS_PER_DAY = 12 / 365.25;
const GB = 2 ** 30;

/** $ of one Lambda invocation billed `ms` at `size` (duration rounded up to the ms; the request). */
export function lambdaDollars(ms: number, size: LambdaSize): number {
  const gbSeconds = (Math.ceil(ms) / 1000) * (size.memoryMb / 1024);
  return PRICE.lambdaRequestPerM / 1e6 + gbSeconds * PRICE.lambdaGbSecond[size.architecture];
}

/** $ of keeping `byteDays` (bytes × days until each item's TTL) in a DynamoDB Standard table. */
export const dynamoStorageDollars = (byteDays: number): number =>
  (byteDays / GB) * MONTHS_PER_DAY * PRICE.storageGbMonth;

/**
 * Bytes one log event costs to ingest: its UTF-8 message plus 26 bytes, the size CloudWatch Logs
 * counts per event (PutLogEvents, CloudWatch Logs API reference). Counting the 26 bytes is the
 * upper reading: the pricing page says only "data ingested".
 */
export const logEventBytes = (line: string): number => Buffer.byteLength(line, 'utf8') + 26;

/** A request id in Lambda's format (a UUID): the platform lines carry one each. */
const REQUEST_ID = '8f5c1b9e-3c6f-4b6e-9a51-0d3f2a7c9e41';

/**
 * Bytes the three lines Lambda's platform writes for every invocation cost to ingest (text log
 * format, the CDK's default; Node.js runtime, as in the Lambda developer guide's nodejs-logging
 * example): START with the published version the run is pinned to, END, and REPORT with the
 * billed duration, memory size and memory used (plus the init duration on a cold start).
 */
export function platformLogBytes(options: { ms: number; memoryMb: number; cold?: boolean }): number {
  const ms = options.ms.toFixed(2);
  const report =
    `REPORT RequestId: ${REQUEST_ID}\tDuration: ${ms} ms\tBilled Duration: ${Math.ceil(options.ms)} ms\t` +
    `Memory Size: ${options.memoryMb} MB\tMax Memory Used: 112 MB\t` +
    (options.cold ? 'Init Duration: 187.42 ms\t' : '');
  return [`START RequestId: ${REQUEST_ID} Version: 12`, `END RequestId: ${REQUEST_ID}`, report]
    .map(logEventBytes)
    .reduce((a, b) => a + b, 0);
}

/** $ of ingesting `bytes` of logs and keeping them `retentionDays` (uncompressed: an upper bound). */
export const logDollars = (bytes: number, retentionDays: number): number =>
  (bytes / GB) * (PRICE.logsIngestedGb + retentionDays * MONTHS_PER_DAY * PRICE.logsStoredGbMonth);

/**
 * The always-on part of one function and its table (metrics, alarms, the every-minute reconciler,
 * the watchdog, the wake-up queue's empty polls), a month, and the volume it is spread over.
 *
 * `monthlyUsd` is issue 21's measurement of main (~$3.7), used when no bench run has priced the
 * template yet: the "fixed-cost" section (bench/figures/fixed-cost-figures.ts) prices a synthesized
 * `DurableFunction` with @durable-lambda/cdk's `fixedMonthlyCost`, ~15 CPU-s, too much to repeat
 * here; its last figure is read from bench/results/latest.json.
 */
export const FIXED = {
  monthlyUsd: 3.7,
  source:
    "issue 21's measurement (8 custom metrics, ~9 alarms, the every-minute reconciler, the watchdog, queue polling)",
  /** The monthly volume the fixed part is spread over in the per-run rows (stated, not measured). */
  runsPerMonth: 1_000_000,
};

/** The metric of the fixed-cost section's row at the CDK's defaults. */
const FIXED_COST_METRIC = 'fixed monthly cost of one function and its table, defaults';

/** The fixed monthly cost: the fixed-cost section's last figure in `resultsFile`, else {@link FIXED}'s. */
export function fixedMonthly(resultsFile = fileURLToPath(new URL('../results/latest.json', import.meta.url))): {
  usd: number;
  source: string;
} {
  try {
    const report = JSON.parse(readFileSync(resultsFile, 'utf8')) as {
      generatedAt?: string;
      rows?: Array<{ section?: string; metric?: string; ours?: unknown }>;
    };
    const row = report.rows?.find((r) => r.section === 'fixed-cost' && r.metric === FIXED_COST_METRIC);
    if (typeof row?.ours === 'number' && Number.isFinite(row.ours)) {
      return {
        usd: row.ours,
        source: `the fixed-cost section's figure in bench/results/latest.json, ${report.generatedAt}`,
      };
    }
  } catch {
    // No results yet: the measurement stands in.
  }
  return { usd: FIXED.monthlyUsd, source: FIXED.source };
}
