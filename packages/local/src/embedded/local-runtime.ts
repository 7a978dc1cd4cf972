import { randomUUID } from 'node:crypto';
import { clearTimeout, setImmediate, setTimeout } from 'node:timers';
import {
  type AwsDurableLambdaHandler,
  type Clock,
  Engine,
  EngineInputError,
  isForeignDurableHandler,
  isWakeEvent,
  MemoryOutbox,
  type ReconcileAllOptions,
  type RunRecord,
  reconcileAll,
  runAwsDurableHandler,
  systemClock,
} from '@durable-lambda/engine';
import { type DurableLambdaHandler, finishOpened, getDurableEntry, type RuntimeOverrides } from '@durable-lambda/sdk';
import { FaultPlan } from '../faults/fault-plan';
import { FaultScope } from '../faults/fault-scope';
import { FaultyInvoker, FaultyWaker } from '../faults/faulty-delivery';
import { FaultyInvocation } from '../faults/faulty-invocation';
import { FaultyStore } from '../faults/faulty-store';
import { InProcessInvoker, unregisteredFunction } from './in-process-invoker';
import type { LocalRuntimeOptions, LocalRuntimeStore } from './local-runtime-options';
import { ReconcileLoop } from './reconcile-loop';
import { TimerWaker } from './timer-waker';

export type { LocalRuntimeOptions, LocalRuntimeStore } from './local-runtime-options';

const DEFAULT_INVOCATION_MS = 15 * 60_000;
const DEFAULT_RECONCILE_EVERY_MS = 5_000;
/** Local timers fire on time: a run due for a second has lost its wake-up. */
const LOCAL_RECONCILE_GRACE_MS = 1_000;
/**
 * Runs one reconcile pass looks at. The runs a pass wakes start together before the next pass (a
 * timer each, fired in one turn of the event loop), and each start (a lease, a replay, a write or
 * more) costs a few ms: small passes keep that turn short, so the dev server's HTTP requests are
 * served between them while a restart takes up a thousand runs at once.
 */
const PASS_LIMIT = 10;
/** Reconcile passes in a row at most, so a start always ends (10,000 runs; the next loop goes on). */
const MAX_PASSES = 1_000;

interface Active {
  /** Another wake-up came while an invocation ran: invoke once more after it. */
  again: boolean;
  /** Settles when the invocations end, or when they are given up (see `deadline`). */
  done: Promise<void>;
  release(): void;
  /**
   * When the invocation under way passes its timeout (`invocationMs`), where Lambda would end
   * it; infinite between invocations. Past it, the invocation is given up: it cannot be stopped,
   * but its writes are fenced once another takes the run, so a step that never returns strands
   * the run no longer than its lease.
   */
  deadline: number;
  abandoned: boolean;
}

/**
 * The embedded durable runtime on the real clock, which the dev server runs: an {@link Engine}
 * on the given store, a persisted {@link TimerWaker}, and an {@link InProcessInvoker}. Each
 * wake-up (a timer, an invoke, a started run) runs one invocation like Lambda would: it opens
 * the run, executes the handler with a real remaining-time budget (short waits sleep in-process,
 * longer ones suspend), and closes it. Invocations of one run never overlap; failures are
 * reported, never thrown. Stopped and started again (even after a crash), it resumes every run.
 *
 * It reconciles at start and every few seconds (see {@link LocalRuntimeOptions.reconcileEveryMs}),
 * the backstop for any wake-up lost after a durable write. At start it first reclaims the
 * leases of its own dead process (see {@link LocalRuntimeStore.reclaimLeases}): it assumes the
 * store belongs to one runtime at a time, which the `SqliteStore` enforces with a lock.
 */
export class LocalRuntime {
  /** The engine, for the control API (start, cancel, retry, callbacks, listing). */
  readonly engine: Engine;
  readonly store: LocalRuntimeStore;
  readonly waker: TimerWaker;
  readonly invoker: InProcessInvoker;
  readonly functions: ReadonlyMap<string, DurableLambdaHandler | AwsDurableLambdaHandler>;
  private readonly clock: Clock;
  private readonly invocationMs: number;
  private readonly overrides: RuntimeOverrides;
  private readonly onError: (error: unknown, where: { runId?: string; functionName?: string }) => void;
  private readonly active = new Map<string, Active>();
  private readonly reconciler: ReconcileLoop;
  /** Runs of functions this process lacks, reported once (the reconciler finds them again and again). */
  private readonly unknownReported = new Set<string>();
  private started = false;
  private starting: Promise<void> | undefined;
  /** With `faults`: the plan, whose records say what was injected. */
  readonly faultPlan: FaultPlan | undefined;
  private readonly faultScope: FaultScope | undefined;

  /**
   * The events steps emitted (`context.emit`) as this runtime delivered them, in process (unless
   * `options.engine.outbox` publishes elsewhere): every delivery, repeats included.
   */
  readonly outbox: MemoryOutbox;

  constructor(options: LocalRuntimeOptions) {
    this.store = options.store;
    this.functions = options.functions;
    this.clock = options.clock ?? systemClock;
    this.invocationMs = options.invocationMs ?? DEFAULT_INVOCATION_MS;
    this.overrides = options.overrides ?? {};
    this.onError =
      options.onError ??
      ((error, where) =>
        console.error(
          `durable-lambda: ${where.runId ? `run ${where.runId}` : (where.functionName ?? 'runtime')}`,
          error,
        ));
    this.waker = new TimerWaker({
      wakeUps: this.store.wakeUps,
      clock: this.clock,
      fire: (request) => this.resume(request.runId),
      onError: (error, request) => this.report(error, { runId: request.runId }),
    });
    this.invoker = new InProcessInvoker({
      // With `dispatch` given, the invoker only looks names up: AWS-wrapped handlers are dispatched by us.
      functions: this.functions as ReadonlyMap<string, DurableLambdaHandler>,
      dispatch: (name, event) => this.dispatch(name, event),
      onError: (error, functionName) => this.report(error, { functionName }),
    });
    const everyMs = options.reconcileEveryMs ?? DEFAULT_RECONCILE_EVERY_MS;
    if (typeof everyMs !== 'number' || !Number.isFinite(everyMs) || everyMs <= 0) {
      throw new EngineInputError('reconcileEveryMs', 'must be a number of ms, more than 0');
    }
    this.reconciler = new ReconcileLoop(everyMs, () => this.reconcileAll());
    if (options.faults) {
      if (options.faults.race !== undefined && options.faults.race !== 0) {
        throw new EngineInputError('faults.race', 'is not injected by the local runtime (set it to 0)');
      }
      this.faultPlan = new FaultPlan({ ...options.faults, race: 0 }, this.clock);
      this.faultScope = new FaultScope(this.faultPlan);
    }
    const scope = this.faultScope;
    // Events steps emit (`context.emit`) are delivered in process, kept for the dev server to show.
    this.outbox = new MemoryOutbox(this.clock, undefined, options.onOutboxDelivery);
    this.engine = new Engine({
      reconcileGraceMs: LOCAL_RECONCILE_GRACE_MS,
      outbox: this.outbox,
      ...options.engine,
      store: scope ? new FaultyStore(this.store, scope) : this.store,
      waker: scope ? new FaultyWaker(this.waker, scope) : this.waker,
      invoker: scope ? new FaultyInvoker(this.invoker, scope) : this.invoker,
      clock: this.clock,
    });
  }

  /** Whether the runtime is started. */
  get running(): boolean {
    return this.started;
  }

  /**
   * Starts: reclaims the leases of a dead process on this store and releases its idempotency
   * claims, arms the stored wake-ups (past-due ones run at once), and begins to reconcile (every
   * run due now gets a wake-up: a crash may have come between a write and its wake-up), then every
   * `reconcileEveryMs` from the end of each pass. Resolves once the wake-ups are armed: the start's
   * passes go on after it (the runs they wake start between passes; a dev server listens
   * meanwhile), and `stop()` waits for them. Rejects, started or not, only when the store refuses
   * to be taken (another runtime has it).
   */
  async start(): Promise<void> {
    if (this.started) return this.starting;
    this.started = true;
    this.starting = (async () => {
      try {
        await this.store.reclaimLeases?.(this.clock.now());
        await this.store.releaseClaims?.();
      } catch (error) {
        this.started = false;
        throw error;
      }
      // The waker first: the runs the start's passes wake begin between passes, not all at once after.
      this.waker.start();
      // No grace at start: nothing of this process is in flight yet, so what is due is stranded.
      this.reconciler.start(() => this.reconcileAll({ graceMs: 0 }));
    })();
    await this.starting;
  }

  /** Stops the timers and waits for the invocations under way to end. Stored wake-ups remain. */
  async stop(): Promise<void> {
    this.started = false;
    await this.starting?.catch(() => {});
    await this.reconciler.stop();
    this.waker.stop();
    while (this.active.size > 0) await Promise.allSettled([...this.active.values()].map((a) => a.done));
    await this.invoker.idle();
    // A turn for the waker to forget the wake-ups those invocations answered.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }

  /**
   * Starts a run of a registered function with `input` (any JSON value) and wakes it (at once
   * when started, else at the next start). With a `runKey`, the same key names the same run.
   * Rejects only when the run could not be stored.
   */
  async startRun(functionName: string, input?: unknown, options: { runKey?: string } = {}): Promise<RunRecord> {
    if (!this.functions.has(functionName)) throw unregisteredFunction(functionName);
    const serialized = input === undefined ? undefined : JSON.stringify(input);
    const { run } = await this.engine.startRun({
      functionName,
      ...(serialized === undefined ? {} : { input: serialized }),
      ...(options.runKey === undefined ? {} : { runKey: options.runKey }),
    });
    // The run is stored and due now: a wake-up that fails is reported and left to the reconciler.
    if (run.status === 'RUNNING') await this.wakeNow(run).catch((error) => this.report(error, { runId: run.runId }));
    return run;
  }

  /**
   * Resolves with the run once it is no longer RUNNING; rejects when it is unknown, or after
   * `timeoutMs` (default: never).
   */
  waitForRun(runId: string, options: { timeoutMs?: number } = {}): Promise<RunRecord> {
    return new Promise((resolve, reject) => {
      let settled = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        unsubscribe();
        if (timer) clearTimeout(timer);
        outcome();
      };
      const check = async () => {
        try {
          const run = await this.store.getRun(runId);
          if (!run) finish(() => reject(new Error(`run ${runId} not found`)));
          else if (run.status !== 'RUNNING') finish(() => resolve(run));
        } catch (error) {
          finish(() => reject(error));
        }
      };
      const unsubscribe = this.store.subscribe(() => void check());
      if (options.timeoutMs !== undefined) {
        timer = setTimeout(
          () => finish(() => reject(new Error(`run ${runId} still running after ${options.timeoutMs} ms`))),
          options.timeoutMs,
        );
      }
      void check();
    });
  }

  /** Runs invocations of `runId` until none is asked for; one at a time per run. */
  private resume(runId: string): Promise<void> {
    if (!this.started) return Promise.resolve();
    const current = this.active.get(runId);
    if (current && this.clock.now() < current.deadline) {
      current.again = true;
      return current.done;
    }
    if (current) {
      current.abandoned = true;
      this.active.delete(runId);
      current.release();
      this.report(
        new Error(`an invocation ran past its ${this.invocationMs} ms timeout; given up, the run is resumed anew`),
        { runId },
      );
    }
    let release = () => {};
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    const entry: Active = { again: true, done, release, deadline: Number.POSITIVE_INFINITY, abandoned: false };
    this.active.set(runId, entry);
    void (async () => {
      // A turn first: a wake-up never runs inside the stack that asked for it.
      await Promise.resolve();
      try {
        while (entry.again && this.started && !entry.abandoned) {
          entry.again = false;
          await this.invokeOnce(runId, entry);
          entry.deadline = Number.POSITIVE_INFINITY;
        }
      } finally {
        if (this.active.get(runId) === entry) this.active.delete(runId);
        entry.release();
      }
    })();
    return entry.done;
  }

  /** One invocation of a run, as Lambda would run it; failures are reported. */
  private async invokeOnce(runId: string, entry: Active): Promise<void> {
    let functionName: string | undefined;
    try {
      const run = await this.engine.getRun(runId);
      if (run?.status !== 'RUNNING') return;
      functionName = run.functionName;
      const handler = this.functions.get(functionName);
      if (!handler) {
        if (this.unknownReported.has(runId)) return;
        this.unknownReported.add(runId);
        throw unregisteredFunction(functionName);
      }
      const deadline = this.clock.now() + this.invocationMs;
      entry.deadline = deadline;
      const remainingTimeMs = () => Math.max(0, deadline - this.clock.now());
      const session = await this.engine.openRun(runId, { remainingTimeMs });
      if (!session) return;
      // The lease is taken (the reconciler no longer finds the run due): the replay waits its turn,
      // so a restart taking up hundreds of runs at once leaves the event loop to its HTTP requests.
      const turn = this.store.takeTurn?.();
      if (turn) await turn;
      const scope = this.faultScope;
      const opened = scope ? new FaultyInvocation(session, scope, scope.invocationStarted(runId)) : session;
      const lambda = { functionName, awsRequestId: randomUUID(), getRemainingTimeInMillis: remainingTimeMs };
      // A handler wrapped by AWS's own withDurableExecution runs unchanged, on our transport.
      const result = isForeignDurableHandler(handler)
        ? await runAwsDurableHandler(handler, opened.invocation, lambda)
        : await getDurableEntry(handler).execute(opened.invocation, lambda, this.overrides);
      // A killed invocation is never closed: its lease lapses, as a dead process's would.
      await finishOpened(opened, result);
    } catch (error) {
      this.report(error, { runId, ...(functionName === undefined ? {} : { functionName }) });
    }
  }

  /** An in-process invoke: a wake-up event resumes its run, any other event starts a run. */
  private async dispatch(functionName: string, event: unknown): Promise<void> {
    if (isWakeEvent(event)) {
      await this.resume(event.durableLambda.runId);
      return;
    }
    await this.startRun(functionName, event);
  }

  /**
   * Reconciles until no due run is left (`reconcileAll`: each pass pages on from the last, and the
   * runs a pass woke start before the next), at most {@link MAX_PASSES} passes while started.
   * Failures are reported, never thrown.
   */
  private async reconcileAll(options: Pick<ReconcileAllOptions, 'graceMs'> = {}): Promise<void> {
    try {
      await reconcileAll(this.engine, {
        ...options,
        limit: PASS_LIMIT,
        maxPasses: MAX_PASSES,
        canContinue: () => this.started,
        onPass: (report) => {
          for (const failure of report.failed) {
            this.report(new Error(`reconcile: ${failure.error}`), { runId: failure.runId });
          }
        },
      });
    } catch (error) {
      this.report(error, {});
    }
  }

  private wakeNow(run: RunRecord): Promise<void> {
    return this.waker.wakeAt({
      runId: run.runId,
      functionName: run.functionName,
      at: this.clock.now(),
      reason: 'event',
    });
  }

  private report(error: unknown, where: { runId?: string; functionName?: string }): void {
    try {
      this.onError(error, where);
    } catch (failure) {
      console.error('durable-lambda: an onError handler failed', failure, error);
    }
  }
}
