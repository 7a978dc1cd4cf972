import {
  type ReconcileAllStop,
  type ReconcileReport,
  type ReconcileTarget,
  reconcileAll,
} from '@durable-lambda/engine';

/**
 * Wake-ups in flight at once, over every shard, while the reconciler is behind (a pass filled its
 * limit; 8 otherwise, the engine's default). Each is a strongly consistent GetItem of the run and
 * an asynchronous Lambda Invoke, ~40 ms together, so 48 at once is ~1,200 wake-ups a second
 * (100,000 stranded runs in under 2 minutes, bench section "reconciler"):
 * - Lambda accepts 10 × the account's concurrency quota (1,000 by default: 10,000 requests a
 *   second) of asynchronous Invoke requests from non-AWS sources per Region
 *   (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html); the reconciler
 *   takes about an eighth of it, leaving the rest to the functions themselves;
 * - a new on-demand DynamoDB table serves 12,000 read request units a second at once, each
 *   partition 3,000 (https://repost.aws/knowledge-center/on-demand-table-throttling-dynamodb):
 *   ~1,200 reads of 1 RRU spread over the runs' own partitions, plus a few index Queries, are well
 *   within;
 * - the AWS SDK opens at most 50 sockets per client by default
 *   (https://docs.aws.amazon.com/sdk-for-javascript/v3/developer-guide/node-configuring-maxsockets.html):
 *   more in flight would only queue in the client.
 * The woken invocations draw on the functions' own concurrency; Lambda queues the asynchronous
 * events it cannot run yet and retries them for up to 6 hours, and the runs stay due meanwhile.
 */
export const WAKE_UPS_IN_FLIGHT_WHEN_BEHIND = 48;

/** Shards of the due index paged side by side while behind (wake-ups split evenly among them). */
export const SHARDS_AT_ONCE = 8;

/** Options of {@link reconcileInvocation}. */
export interface ReconcileInvocationOptions {
  /** Due runs per pass (1-1000). */
  limit: number;
  /** As `ReconcileOptions.graceMs`; default the engine's. */
  graceMs?: number;
  /** Time kept in hand at the end of the invocation, ms, beyond twice the slowest pass so far. */
  marginMs: number;
  /** Pause between passes, ms (0: one turn of the event loop). */
  pauseMs: number;
  /** Most passes (due-index pages, each of one shard or of the whole index). */
  maxPasses: number;
  /** The invocation's remaining time, ms. */
  remaining(): number;
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Told of each pass as it ends. */
  onPass?(report: ReconcileReport): void;
}

/** What {@link reconcileInvocation} did. */
export interface ReconcileInvocationResult {
  passes: number;
  stoppedBy: ReconcileAllStop;
  /** The slowest pass, ms. */
  slowestPassMs: number;
}

/**
 * The passes of one reconciler invocation (`reconcileAll`): a first pass over the whole due index
 * (on an idle table, one Query per shard and nothing else); when it fills its limit the reconciler
 * is behind, and it pages the shards side by side ({@link SHARDS_AT_ONCE} at a time, each from the
 * first pass's cursor) with {@link WAKE_UPS_IN_FLIGHT_WHEN_BEHIND} wake-ups in flight, pass after
 * pass, as long as the invocation keeps twice its slowest pass plus `marginMs` in hand. The
 * deployed reconciler runs it every minute; the bench's reconciler simulation runs it on a
 * simulated clock.
 */
export async function reconcileInvocation(
  engine: ReconcileTarget,
  options: ReconcileInvocationOptions,
): Promise<ReconcileInvocationResult> {
  let slowestPassMs = 0;
  const timed: ReconcileTarget = {
    reconcile: async (passOptions) => {
      const started = options.now();
      try {
        return await engine.reconcile(passOptions);
      } finally {
        slowestPassMs = Math.max(slowestPassMs, options.now() - started);
      }
    },
    ...(engine.duePartitions ? { duePartitions: () => engine.duePartitions?.() ?? 1 } : {}),
  };
  const { passes, stoppedBy } = await reconcileAll(timed, {
    limit: options.limit,
    ...(options.graceMs === undefined ? {} : { graceMs: options.graceMs }),
    concurrencyWhenBehind: WAKE_UPS_IN_FLIGHT_WHEN_BEHIND,
    partitionsAtOnce: SHARDS_AT_ONCE,
    maxPasses: options.maxPasses,
    canContinue: () => options.remaining() >= options.pauseMs + 2 * slowestPassMs + options.marginMs,
    ...(options.pauseMs > 0 ? { between: () => options.sleep(options.pauseMs) } : {}),
    ...(options.onPass ? { onPass: options.onPass } : {}),
  });
  return { passes, stoppedBy, slowestPassMs };
}
