import type { DueRun } from '@durable-lambda/engine';
import type { LambdaContextLike } from '@durable-lambda/protocol';
import { ProductionBackend } from './production';
import type { ProductionEnvironment } from './production-config';
import { readReconcilerConfig } from './reconciler-config';
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
  /** Most passes per invocation. Default 25. */
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
 * wake-ups' dead-letter queue, the functions it serves), then runs `engine.reconcile` pass after
 * pass while a pass says `more` runs are due and the invocation has time left: every RUNNING run
 * that is due and not held by a live lease is woken again (wake-ups go by asynchronous Lambda
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
  const maxPasses = options.maxPasses ?? 25;
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
    let slowestPass = 0;
    try {
      let after: DueRun | undefined;
      for (let pass = 1; ; pass++) {
        const passStarted = now();
        served.drain();
        const report = await backend.engine.reconcile({ limit, ...passOptions, ...(after ? { after } : {}) });
        slowestPass = Math.max(slowestPass, now() - passStarted);
        passes.add(report, served.drain());
        // Each pass pages on from the last: runs that could not be helped never block the rest.
        if (!report.more || !report.cursor) break;
        after = report.cursor;
        if (pass >= maxPasses) stoppedBy = 'passes';
        else if (remaining() < pauseMs + 2 * slowestPass + marginMs) stoppedBy = 'time';
        if (stoppedBy !== 'done') break;
        if (pauseMs > 0) await sleep(pauseMs);
      }
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
