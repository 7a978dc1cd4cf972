import { randomUUID } from 'node:crypto';
import { clearTimeout, setImmediate, setTimeout } from 'node:timers';
import {
  type Clock,
  Engine,
  type EngineOptions,
  isWakeEvent,
  type RunRecord,
  type Store,
  systemClock,
  type WakeRequest,
} from '@durable-lambda/engine';
import { type DurableLambdaHandler, finishOpened, getDurableEntry, type RuntimeOverrides } from '@durable-lambda/sdk';
import { FunctionNotFoundError, InProcessInvoker } from './in-process-invoker';
import type { WakeUpTable } from './sqlite-wake-ups';
import { TimerWaker } from './timer-waker';

/** What a {@link LocalRuntime} needs of its store: a `Store` that keeps wake-ups and reports writes. */
export type LocalRuntimeStore = Store & {
  /** Where the timer waker persists its wake-ups. */
  readonly wakeUps: WakeUpTable;
  /** Calls `listener` after every write of a run; returns a function that stops it. */
  subscribe(listener: () => void): () => void;
};

/** Options of a {@link LocalRuntime}. */
export interface LocalRuntimeOptions {
  /** Where runs live, usually a `SqliteStore`. */
  store: LocalRuntimeStore;
  /** The durable functions this process runs, by name. */
  functions: ReadonlyMap<string, DurableLambdaHandler>;
  /** The engine's clock. Default: system time. */
  clock?: Clock;
  /** Real time one invocation may take, ms, as a Lambda timeout. Default 15 minutes. */
  invocationMs?: number;
  /** Further engine settings (retention, lease grace, fault retry delay, payload limit). */
  engine?: Omit<EngineOptions, 'store' | 'waker' | 'invoker' | 'clock'>;
  /** SDK settings applied to every invocation (e.g. `logSink`); left out, each function's own apply. */
  overrides?: RuntimeOverrides;
  /** Where failures go (an invocation that threw, a wake-up that failed). Default: `console.error`. */
  onError?(error: unknown, where: { runId?: string; functionName?: string }): void;
}

const DEFAULT_INVOCATION_MS = 15 * 60_000;

interface Active {
  /** Another wake-up came while an invocation ran: invoke once more after it. */
  again: boolean;
  done: Promise<void>;
}

/**
 * The embedded durable runtime on the real clock, which the dev server runs: an {@link Engine}
 * on the given store, a persisted {@link TimerWaker}, and an {@link InProcessInvoker}. Each
 * wake-up (a timer, an invoke, a started run) runs one invocation like Lambda would: it opens
 * the run, executes the handler with a real remaining-time budget (short waits sleep in-process,
 * longer ones suspend), and closes it. Invocations of one run never overlap; failures are
 * reported, never thrown. Stopped and started again (even after a crash), it resumes every run.
 */
export class LocalRuntime {
  /** The engine, for the control API (start, cancel, retry, callbacks, listing). */
  readonly engine: Engine;
  readonly store: LocalRuntimeStore;
  readonly waker: TimerWaker;
  readonly invoker: InProcessInvoker;
  readonly functions: ReadonlyMap<string, DurableLambdaHandler>;
  private readonly clock: Clock;
  private readonly invocationMs: number;
  private readonly overrides: RuntimeOverrides;
  private readonly onError: (error: unknown, where: { runId?: string; functionName?: string }) => void;
  private readonly active = new Map<string, Active>();
  private started = false;

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
      functions: this.functions,
      dispatch: (name, event) => this.dispatch(name, event),
      onError: (error, functionName) => this.report(error, { functionName }),
    });
    this.engine = new Engine({
      ...options.engine,
      store: this.store,
      waker: this.waker,
      invoker: this.invoker,
      clock: this.clock,
    });
  }

  /** Whether the runtime is started. */
  get running(): boolean {
    return this.started;
  }

  /**
   * Starts: makes sure every unfinished run has a wake-up (a crash may have come between a
   * write and its wake-up), then arms the stored wake-ups; past-due ones run at once.
   */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.reconcile();
    if (this.started) this.waker.start();
  }

  /** Stops the timers and waits for the invocations under way to end. Stored wake-ups remain. */
  async stop(): Promise<void> {
    this.started = false;
    this.waker.stop();
    while (this.active.size > 0) await Promise.allSettled([...this.active.values()].map((a) => a.done));
    await this.invoker.idle();
    // A turn for the waker to forget the wake-ups those invocations answered.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }

  /**
   * Starts a run of a registered function with `input` (any JSON value) and wakes it (at once
   * when started, else at the next start). With a `runKey`, the same key names the same run.
   */
  async startRun(functionName: string, input?: unknown, options: { runKey?: string } = {}): Promise<RunRecord> {
    if (!this.functions.has(functionName)) throw new FunctionNotFoundError(functionName);
    const serialized = input === undefined ? undefined : JSON.stringify(input);
    const { run } = await this.engine.startRun({
      functionName,
      ...(serialized === undefined ? {} : { input: serialized }),
      ...(options.runKey === undefined ? {} : { runKey: options.runKey }),
    });
    if (run.status === 'RUNNING') await this.wakeNow(run);
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
    if (current) {
      current.again = true;
      return current.done;
    }
    const entry: Active = { again: true, done: Promise.resolve() };
    this.active.set(runId, entry);
    entry.done = (async () => {
      // A turn first: a wake-up never runs inside the stack that asked for it.
      await Promise.resolve();
      try {
        while (entry.again && this.started) {
          entry.again = false;
          await this.invokeOnce(runId);
        }
      } finally {
        this.active.delete(runId);
      }
    })();
    return entry.done;
  }

  /** One invocation of a run, as Lambda would run it; failures are reported. */
  private async invokeOnce(runId: string): Promise<void> {
    let functionName: string | undefined;
    try {
      const run = await this.engine.getRun(runId);
      if (run?.status !== 'RUNNING') return;
      functionName = run.functionName;
      const handler = this.functions.get(functionName);
      if (!handler) throw new FunctionNotFoundError(functionName);
      const deadline = this.clock.now() + this.invocationMs;
      const remainingTimeMs = () => Math.max(0, deadline - this.clock.now());
      const session = await this.engine.openRun(runId, { remainingTimeMs });
      if (!session) return;
      const result = await getDurableEntry(handler).execute(
        session,
        { functionName, awsRequestId: randomUUID(), getRemainingTimeInMillis: remainingTimeMs },
        this.overrides,
      );
      await finishOpened(session, result);
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

  /** Makes sure every unfinished run of a known function will be woken. */
  private async reconcile(): Promise<void> {
    let cursor: string | undefined;
    do {
      const page = await this.store.listRuns({ status: 'RUNNING', limit: 100, ...(cursor ? { cursor } : {}) });
      for (const run of page.runs) {
        if (!this.functions.has(run.functionName)) continue;
        const target = { runId: run.runId, functionName: run.functionName };
        const wakeUps: WakeRequest[] = [];
        if (run.leaseExpiresAt !== undefined) wakeUps.push({ ...target, at: run.leaseExpiresAt, reason: 'lease' });
        if (run.nextWakeAt !== undefined) wakeUps.push({ ...target, at: run.nextWakeAt, reason: 'due' });
        if (run.eventSeq > run.handledEventSeq) wakeUps.push({ ...target, at: this.clock.now(), reason: 'event' });
        for (const request of wakeUps) await this.waker.wakeAt(request);
      }
      cursor = page.cursor;
    } while (cursor !== undefined);
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
