/**
 * Section "reconciler": the deployed reconciler recovering stranded runs and what it costs idle,
 * simulated on an explicit clock (bench/lib/reconciler-sim.ts: modelled Query, GetItem and Invoke
 * latencies, the SDK's 50 sockets per client, invoked every minute with the CDK's 60 s timeout).
 * The due index has the layout's `DUE_SHARDS` shards. N is 100,000 at full size (20,000 quick,
 * 2,000 smoke); the target is the issue's, 5 minutes for 100,000.
 */
import { DUE_SHARDS } from '@durable-lambda/aws';
import {
  LATENCY,
  type LatencyModel,
  RECONCILER_MEMORY_GB,
  type RecoveryResult,
  simulateIdleInvocation,
  simulateRecovery,
} from '../lib/reconciler-sim';
import { emitRows, type FigureRow, figure, progressLine, sizeArg } from './figure-rows';

const RUNS = { smoke: 2_000, quick: 20_000, full: 100_000 }[sizeArg()];
const TARGET_S = 300;

/** Prices (us-east-1, on demand). */
const PRICE = {
  /** $ per million read request units (https://aws.amazon.com/dynamodb/pricing/on-demand/). */
  rru: 0.125,
  /** $ per million Lambda requests (https://aws.amazon.com/lambda/pricing/). */
  lambdaRequest: 0.2,
  /** $ per GB-second of Lambda duration on Arm, the CDK's default (https://aws.amazon.com/lambda/pricing/). */
  lambdaArmGbSecond: 0.0000133334,
};
/** Reconciler invocations a month: every minute, 730 hours. */
const INVOCATIONS_A_MONTH = 730 * 60;
/** Time of the handler's own code in an idle invocation (building the summary, writing its line), ms. */
const HANDLER_MS = 5;

const scaled = (k: number): LatencyModel => ({
  query: { median: LATENCY.query.median * k, p99: LATENCY.query.p99 * k },
  getItem: { median: LATENCY.getItem.median * k, p99: LATENCY.getItem.p99 * k },
  invoke: { median: LATENCY.invoke.median * k, p99: LATENCY.invoke.p99 * k },
});
const minutes = (ms: number) => `${(ms / 60_000).toFixed(1)} min`;
const perInvocation = (r: RecoveryResult) =>
  r.invocations.map((i) => `${i.woken.toLocaleString('en-US')} (${i.passes} passes, ${i.stoppedBy})`).join(', ');

const n = RUNS.toLocaleString('en-US');
progressLine(`reconciler: ${n} stranded runs, ${DUE_SHARDS} shards, shipped`);
const shipped = await simulateRecovery({ runs: RUNS, shards: DUE_SHARDS, policy: 'shipped' });
progressLine('reconciler: the same, the reconciler before (merged passes, 25 a minute)');
const before = await simulateRecovery({ runs: RUNS, shards: DUE_SHARDS, policy: 'before' });
progressLine('reconciler: the same, every latency 3×');
const slow = await simulateRecovery({ runs: RUNS, shards: DUE_SHARDS, policy: 'shipped', latency: scaled(3) });
const idle = await simulateIdleInvocation(DUE_SHARDS);

const latencyText =
  `Query ${LATENCY.query.median}/${LATENCY.query.p99} ms, GetItem ${LATENCY.getItem.median}/${LATENCY.getItem.p99} ms, ` +
  `Invoke ${LATENCY.invoke.median}/${LATENCY.invoke.p99} ms (median/p99)`;

const billedMs = Math.ceil(idle.durationMs + HANDLER_MS);
const month = {
  requests: (INVOCATIONS_A_MONTH / 1e6) * PRICE.lambdaRequest,
  duration: INVOCATIONS_A_MONTH * (billedMs / 1000) * RECONCILER_MEMORY_GB * PRICE.lambdaArmGbSecond,
  reads: ((INVOCATIONS_A_MONTH * idle.counts.queryRru) / 1e6) * PRICE.rru,
};
const idleCost = month.requests + month.duration + month.reads;

const rows: FigureRow[] = [
  figure({
    section: 'reconciler',
    metric: `reconciler: ${n} stranded runs all woken (simulated)`,
    unit: 's',
    ours: shipped.allWokenMs / 1000,
    reference: before.allWokenMs / 1000,
    referenceName: 'the reconciler before: merged passes, at most 25 an invocation, 8 wake-ups at once',
    target: `≤ ${TARGET_S} s for 100,000`,
    met: (_r, ours) => ours <= TARGET_S,
    note:
      `Simulated clock: ${n} runs whose leases lapsed 10 min before, ${DUE_SHARDS} due-index shards, the reconciler ` +
      `invoked every minute with a 60 s timeout (first one cold, +0.5 s), a woken run leaving the index 1 s after its ` +
      `Invoke. Modelled ${latencyText}; at most 50 requests at once per SDK client. Woken per invocation: ` +
      `${perInvocation(shipped)}; ${shipped.counts.queries.toLocaleString('en-US')} index Queries ` +
      `(${shipped.counts.queryRru.toLocaleString('en-US')} RRU), ${shipped.counts.invokes.toLocaleString('en-US')} Invokes ` +
      `(${shipped.wokenTwice} runs woken twice), at most ${shipped.counts.maxWakeUpsInFlight} wake-ups and ` +
      `${shipped.maxPassesInFlight} shard pages in flight. Every latency 3×: ${minutes(slow.allWokenMs)} ` +
      `(${slow.invocations.length} invocations). Before: ${before.invocations.length} invocations, ` +
      `${before.counts.queries.toLocaleString('en-US')} Queries.`,
  }),
  figure({
    section: 'reconciler',
    metric: 'reconciler fixed cost per month, idle table (Lambda requests + GB-s + RRU)',
    unit: '$',
    ours: idleCost,
    reference: null,
    referenceName: '- (the target is for every fixed cost of a function and its table together)',
    target: '≤ $0.50 (all fixed costs of a function + table)',
    met: (_r, ours) => ours <= 0.5,
    note:
      `${INVOCATIONS_A_MONTH.toLocaleString('en-US')} invocations a month at 512 MB Arm, each one pass over an empty ` +
      `index: ${idle.counts.queries} Queries (one a shard, 0.5 RRU each, eventually consistent), simulated ` +
      `${idle.durationMs.toFixed(0)} ms + ${HANDLER_MS} ms of handler code, billed ${billedMs} ms (warm; no cold ` +
      `starts counted). Requests $${month.requests.toFixed(4)} + duration $${month.duration.toFixed(4)} + reads ` +
      `$${month.reads.toFixed(4)}; the free tiers not counted. Prices: RRU $0.125/M (aws.amazon.com/dynamodb/pricing/on-demand), ` +
      'Lambda $0.20/M requests and $0.0000133334/GB-s Arm (aws.amazon.com/lambda/pricing). Not included: its log ' +
      "line (~0.7 KB a minute) and the EMF metrics it publishes (CloudWatch's price per custom metric).",
  }),
];
emitRows(rows);
