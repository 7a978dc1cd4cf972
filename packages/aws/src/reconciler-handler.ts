import type { LambdaContextLike } from '@durable-lambda/protocol';
import { ProductionBackend } from './production';
import type { ProductionEnvironment } from './production-config';
import { readReconcilerConfig } from './reconciler-config';
import { reconcileInvocation } from './reconciler-passes';
import { type ReconcilerStop, type ReconcilerSummary, SummaryBuilder, summaryLine } from './reconciler-summary';
import { ServedFunctions } from './served-functions';

/** Options of {@link createReconcilerHandler}. */
export interface ReconcilerHandlerOptions {
  /** Default: `process.env`, read at the first invocation. */
  env?: ProductionEnvironment;
  /** Where the summary line goes. Default: stdout (one plain JSON line, as EMF needs). */
  write?(line: string): void;
  /**
   * How long after a run became due it is looked at, ms. Default: the engine's
   * `reconcileGraceMs` (2 minutes: EventBridge Scheduler fires up to a minute late, so a run's own
   * wake-up gets time to arrive first).
   */
  graceMs?: number;
  /**
   * Time kept in hand at the end of the invocation, ms, beyond twice the slowest pass so far.
   * Default 5000.
   */
  marginMs?: number;
  /** Pause between passes, ms (each pass pages on from the last, so none is needed). Default 0. */
  pauseMs?: number;
  /**
   * Most passes per invocation (due-index pages, each of one shard or, the first, of the whole
   * index). Default 10,000: time, not this, ends an invocation that is behind.
   */
  maxPasses?: number;
  /** Default: a timer. */
  sleep?(ms: number): Promise<void>;
  /** Default `Date.now`. */
  now?(): number;
}

/** The reconciler's Lambda handler. */
export type ReconcilerHandler = (event: unknown, context: LambdaContextLike) => Promise<ReconcilerSummary>;

/**
 * The reconciler's Lambda handler (deployed by the `DurableFunction` construct, one per table, run
 * every minute). It builds the production backend from the environment, as a durable function
 * does (`readReconcilerConfig`: the table, its own schedule group and scheduler role, the
 * wake-ups' dead-letter queue, the functions it serves), then runs `reconcileInvocation`: a pass
 * over the whole due index and, while passes fill their limit and the invocation has time left,
 * more passes, the index's shards paged side by side with more wake-ups in flight: every RUNNING
 * run that is due and not held by a live lease is woken again (wake-ups go by asynchronous Lambda
 * invoke), and every ended child run whose parent was never told is told now. Each invocation
 * writes one summary line with the `RunsExamined`, `RunsWoken`, `ParentsNotified` and `Failed`
 * metrics (CloudWatch EMF). A pass that fails as a whole (the due index cannot be read) fails the
 * invocation, after the line is written; runs it could not handle one by one are counted in
 * `Failed`, and the next invocation finds them again.
 */
export function createReconcilerHandler(options: ReconcilerHandlerOptions = {}): ReconcilerHandler {
  const write = options.write ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const passOptions = options.graceMs === undefined ? {} : { graceMs: options.graceMs };
  const marginMs = options.marginMs ?? 5_000;
  const pauseMs = options.pauseMs ?? 0;
  const maxPasses = options.maxPasses ?? 10_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? Date.now;
  // Built at the first invocation, so a configuration error fails an invocation (and shows in its
  // log and Errors metric) instead of the container's start.
  let built: { backend: ProductionBackend; served: ServedFunctions; limit: number } | undefined;

  return async (_event, context) => {
    if (!built) {
      const config = readReconcilerConfig(options.env ?? process.env);
      const served = new ServedFunctions(config.functions);
      built = { backend: new ProductionBackend(config.production, served.wiring()), served, limit: config.limit };
    }
    const { backend, served, limit } = built;
    // Other functions are targeted in the reconciler's own partition, region and account.
    const own = backend.bindInvokedArn(context.invokedFunctionArn);
    const remaining = () => context.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY;
    const started = now();
    const passes = new SummaryBuilder();
    let summary: ReconcilerSummary;
    let stoppedBy: ReconcilerStop = 'done';
    let failure: string | undefined;
    try {
      // Runs left to another stack's reconciler, over the whole invocation: passes run side by
      // side, so what one drain returns may belong to a pass that reports later.
      served.drain();
      const notServed = new Set<string>();
      const result = await reconcileInvocation(backend.engine, {
        limit,
        ...passOptions,
        marginMs,
        pauseMs,
        maxPasses,
        remaining,
        now,
        sleep,
        onPass: (report) => {
          for (const runId of served.drain()) notServed.add(runId);
          passes.add(report, notServed);
        },
      });
      stoppedBy = result.stoppedBy;
    } catch (error) {
      stoppedBy = 'error';
      failure = error instanceof Error ? error.message : String(error);
      throw error;
    } finally {
      summary = passes.summary(stoppedBy, now() - started, failure);
      try {
        write(summaryLine(context.functionName ?? own.name, summary, now()));
      } catch {
        // The summary is for operators; it never changes what the invocation did.
      }
    }
    return summary;
  };
}
