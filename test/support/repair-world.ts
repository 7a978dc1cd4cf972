import {
  Engine,
  type EngineOptions,
  type ReconcileReport,
  type RunRecord,
  type Store,
  type WakeEvent,
} from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import { type DurableLambdaHandler, finishOpened, getDurableEntry } from '@durable-lambda/sdk';

/** A wake-up or invoke the world has queued. */
interface Delivery {
  at: number;
  runId: string;
}

/**
 * Runs durable functions on any Store the way the deployed system does: an invocation happens
 * only when a wake-up fires or an invoke is delivered, and the reconciler runs every minute of
 * virtual time when nothing is queued. A test may also start an invocation and leave it running
 * (`invokeInBackground`), to act on its run meanwhile. `dropWakeUps` loses every timed wake-up,
 * so only the due index (the reconciler) can find a run.
 */
export class RepairWorld {
  readonly clock: VirtualClock;
  readonly store: Store;
  readonly engine: Engine;
  readonly reports: ReconcileReport[] = [];
  /** Invocations that ran user code, per function. */
  readonly invocations = new Map<string, number>();
  private readonly functions = new Map<string, DurableLambdaHandler>();
  private queue: Delivery[] = [];
  dropWakeUps = false;
  /** Errors of invocations that failed (counted as lost deliveries). */
  readonly failures: unknown[] = [];

  constructor(
    makeStore: (clock: VirtualClock) => Store,
    engineOptions: Partial<EngineOptions> = {},
    clock = new VirtualClock(Date.UTC(2026, 0, 1)),
  ) {
    this.clock = clock;
    this.store = makeStore(this.clock);
    this.engine = new Engine({
      store: this.store,
      clock: this.clock,
      reconcileGraceMs: 0,
      waker: {
        wakeAt: async (request) => {
          if (!this.dropWakeUps) this.queue.push({ at: request.at, runId: request.runId });
        },
      },
      invoker: {
        knows: (name) => this.functions.has(name),
        invoke: async (_name, event) => {
          this.queue.push({ at: this.clock.now(), runId: (event as WakeEvent).durableLambda.runId });
        },
      },
      ...engineOptions,
    });
  }

  /** A world on a store made asynchronously (a DynamoDB table), on the world's clock. */
  static async on(
    makeStore: (clock: VirtualClock) => Store | Promise<Store>,
    engineOptions: Partial<EngineOptions> = {},
  ): Promise<RepairWorld> {
    const clock = new VirtualClock(Date.UTC(2026, 0, 1));
    const store = await makeStore(clock);
    return new RepairWorld(() => store, engineOptions, clock);
  }

  register(name: string, handler: DurableLambdaHandler): this {
    this.functions.set(name, handler);
    return this;
  }

  async start(functionName: string, input?: unknown, executionTimeoutSeconds?: number): Promise<string> {
    const serialized = input === undefined ? undefined : JSON.stringify(input);
    const { run } = await this.engine.startRun({
      functionName,
      ...(serialized === undefined ? {} : { input: serialized }),
      ...(executionTimeoutSeconds === undefined ? {} : { executionTimeoutSeconds }),
    });
    this.queue.push({ at: this.clock.now(), runId: run.runId });
    return run.runId;
  }

  /**
   * Delivers what is queued, in time order, up to `until` (virtual ms; default: no limit),
   * running the reconciler for each idle minute, until `runId` has ended (with its tree) or
   * nothing at all is left to do. Returns the run as it stands.
   */
  async settle(runId: string, options: { until?: number; maxDeliveries?: number } = {}): Promise<RunRecord> {
    const max = options.maxDeliveries ?? 200;
    const limit = options.until ?? Number.POSITIVE_INFINITY;
    let deliveries = 0;
    let idle = 0;
    for (;;) {
      const run = await this.engine.getRun(runId);
      if (!run) throw new Error(`run ${runId} is gone`);
      if (run.status !== 'RUNNING' && run.dueAt === undefined) return run;
      this.queue.sort((a, b) => a.at - b.at);
      const next = this.queue[0];
      if (next && next.at <= limit) {
        this.queue.shift();
        if (next.at > this.clock.now()) this.clock.advanceTo(next.at);
        if (++deliveries > max) throw new Error(`runaway: more than ${max} deliveries`);
        // A failed invocation is a lost delivery (Lambda's retries gave up): the due index remains.
        await this.invoke(next.runId).catch((error: unknown) => this.failures.push(error));
        continue;
      }
      if (this.clock.now() >= limit || (options.until === undefined && ++idle > 3)) return run;
      this.clock.advanceTo(Math.min(this.clock.now() + 60_000, limit));
      this.reports.push(await this.engine.reconcile());
    }
  }

  /** One invocation of `runId`, if it has something to do; its result ('fenced', 'completed', ...). */
  /**
   * Runs one invocation of `runId`: what its SDK ended with (`completed`, `fault`), or `fenced`
   * when it was stopped as stale (a checkpoint of it, or the write recording its end, was fenced).
   */
  async invoke(runId: string): Promise<string | undefined> {
    const run = await this.engine.getRun(runId);
    const handler = run && this.functions.get(run.functionName);
    if (!run || !handler) return undefined;
    const session = await this.engine.openRun(runId, { remainingTimeMs: () => 15 * 60_000 });
    if (!session) return undefined;
    this.invocations.set(run.functionName, (this.invocations.get(run.functionName) ?? 0) + 1);
    const result = await getDurableEntry(handler).execute(
      session,
      { functionName: run.functionName },
      { inProcessWaitMs: 0, logSink: () => {} },
    );
    const closed = await finishOpened(session, result).catch(() => undefined);
    return (closed as { Status?: string } | undefined)?.Status === 'STOPPED' ? 'fenced' : result.type;
  }

  /** Forgets every queued wake-up and invoke (as if all were lost). */
  loseQueued(): void {
    this.queue = [];
  }

  /** Child runs of `runId` (started by its invokes), as stored now. */
  async children(runId: string): Promise<RunRecord[]> {
    const out: RunRecord[] = [];
    for (const op of await this.store.loadOperations(runId)) {
      const id = op.ChainedInvokeDetails?.ChildRunId;
      const child = id === undefined ? undefined : await this.store.getRun(id);
      if (child) out.push(child);
    }
    return out;
  }
}
