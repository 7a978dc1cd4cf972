/**
 * `durable cost <function> [--runs N] [--since WHEN] [--memory MB] [--runs-per-month N]`: what a
 * month of the function's runs costs at list prices, from the meters of its recent runs.
 */
import type { DurableClient, RunWire } from '@durable-lambda/api';
import { type CostEstimate, CostEstimateError, estimateCost } from '@durable-lambda/api';
import { type CommandLine, positionals, stringOption } from './args';
import { table } from './format';
import type { CliIo } from './io';

/** Runs read by default, and at most. */
export const DEFAULT_COST_RUNS = 100;
export const MAX_COST_RUNS = 1000;

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

function invalid(option: string, message: string): CostEstimateError {
  return new CostEstimateError('invalid_option', `--${option}: ${message}`, option);
}

/** A number option within bounds (`whole`: an integer). */
function numberOption(
  line: CommandLine,
  name: 'runs' | 'memory' | 'runs-per-month',
  bounds: { min: number; max: number; whole: boolean; what: string },
): number | undefined {
  const text = stringOption(line, name);
  if (text === undefined) return undefined;
  const value = text.trim() === '' ? Number.NaN : Number(text);
  if (
    !Number.isFinite(value) ||
    value < bounds.min ||
    value > bounds.max ||
    (bounds.whole && !Number.isInteger(value))
  ) {
    throw invalid(name, `must be ${bounds.what}, got ${JSON.stringify(text)}`);
  }
  return value;
}

/** `--since`: an ISO time, or how long ago (`30m`, `12h`, `7d`, `2w`); epoch ms, in the past. */
export function parseSince(text: string, now: number): number {
  const ago = /^(\d+)([mhdw])$/.exec(text.trim());
  const at = ago ? now - Number(ago[1]) * (UNITS[ago[2] as string] as number) : Date.parse(text);
  if (!Number.isFinite(at) || at >= now) {
    throw invalid('since', `must be a past ISO time or a duration like 12h, 7d, 2w; got ${JSON.stringify(text)}`);
  }
  return at;
}

/** The function's newest `limit` runs (any status) created at or after `since`, newest first. */
async function readRuns(client: DurableClient, fn: string, limit: number, since: number | undefined) {
  const runs: RunWire[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listRuns({
      function: fn,
      limit: Math.min(100, limit - runs.length),
      ...(since === undefined ? {} : { createdAfter: new Date(since) }),
      ...(cursor === undefined ? {} : { cursor }),
    });
    runs.push(...page.runs);
    cursor = page.nextCursor;
  } while (cursor !== undefined && runs.length < limit);
  return runs;
}

const usd = (value: number) =>
  value >= 0.01 || value === 0 ? `$${value.toFixed(2)}` : `$${value.toPrecision(3).replace(/0+$/, '')}`;
const quantity = (value: number) => value.toLocaleString('en-US', { maximumFractionDigits: 3 });

/** The estimate for people. */
export function formatCost(estimate: CostEstimate): string {
  const rate =
    estimate.runsPerMonthSource === 'given'
      ? `${quantity(estimate.runsPerMonth)} (given)`
      : `${quantity(Math.round(estimate.runsPerMonth))} (observed: ${estimate.runsRead} runs from ${estimate.window.from} to ${estimate.window.to})`;
  const memory =
    estimate.memorySource === 'assumed'
      ? `${estimate.memoryMb} MB (assumed, DurableFunction's default: no run measured it; --memory to set)`
      : `${estimate.memoryMb} MB (${estimate.memorySource})`;
  const rows = estimate.items.map((item) => [
    item.item,
    item.perRun === null ? 'not measured' : `${quantity(item.perRun)} ${item.price.unit}s`,
    `${usd(item.price.usd * 1e6)} per 1M ${item.price.unit}s`,
    item.perRun === null ? '-' : usd(item.monthlyUsd),
  ]);
  return [
    `Cost of ${estimate.function}: US East list prices, no free tier, averaged over ${estimate.runsAveraged} ended run${estimate.runsAveraged === 1 ? '' : 's'}`,
    `Runs a month: ${rate}`,
    `Memory: ${memory}`,
    '',
    table(['ITEM', 'PER RUN', 'PRICE', 'A MONTH'], rows),
    '',
    `Total: ${usd(estimate.perRunUsd)} a run, ${usd(estimate.monthlyUsd)} a month, ${usd(estimate.per1MRunsUsd)} per 1M runs`,
    ...(estimate.awsMeasured
      ? []
      : [
          'DynamoDB, Scheduler and SQS were not measured (runs of the dev server or test runner): run on AWS for them.',
        ]),
    `Not counted: ${estimate.notCounted.join('; ')}.`,
    `Prices: ${[...new Set(estimate.items.map((item) => item.price.source))].join(' ')}`,
  ].join('\n');
}

/** Runs `durable cost`; resolves to the exit code (2 for a bad option, 1 for nothing to estimate from). */
export async function runCostCommand(
  client: DurableClient,
  line: CommandLine,
  io: CliIo,
  now: () => number = Date.now,
): Promise<number> {
  try {
    const [fn] = positionals(line, ['function']) as [string];
    const runs =
      numberOption(line, 'runs', {
        min: 1,
        max: MAX_COST_RUNS,
        whole: true,
        what: `a whole number from 1 to ${MAX_COST_RUNS}`,
      }) ?? DEFAULT_COST_RUNS;
    const memoryMb = numberOption(line, 'memory', {
      min: 128,
      max: 10_240,
      whole: true,
      what: 'a whole number of MB from 128 to 10240',
    });
    const runsPerMonth = numberOption(line, 'runs-per-month', {
      min: 0,
      max: Number.MAX_SAFE_INTEGER,
      whole: false,
      what: 'a number of at least 0',
    });
    const at = now();
    const sinceText = stringOption(line, 'since');
    const since = sinceText === undefined ? undefined : parseSince(sinceText, at);
    const read = await readRuns(client, fn, runs, since);
    if (read.length === 0 && (await client.listRuns({ function: fn, limit: 1 })).runs.length === 0) {
      throw new CostEstimateError('unknown_function', `no runs of a function named ${JSON.stringify(fn)}`);
    }
    const estimate = estimateCost(fn, read, {
      now: at,
      ...(since === undefined ? {} : { since }),
      ...(memoryMb === undefined ? {} : { memoryMb }),
      ...(runsPerMonth === undefined ? {} : { runsPerMonth }),
    });
    io.out(line.options.json ? JSON.stringify(estimate, null, 2) : formatCost(estimate));
    return 0;
  } catch (error) {
    if (!(error instanceof CostEstimateError)) throw error;
    io.err(`durable cost: ${error.message} [${error.code}]`);
    return error.code === 'invalid_option' ? 2 : 1;
  }
}
