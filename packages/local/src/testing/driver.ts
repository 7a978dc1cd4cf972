import { setImmediate } from 'node:timers';
import {
  Engine,
  isForeignDurableHandler,
  MemoryOutbox,
  MemoryStore,
  type OutboxPublisher,
  type RunRecord,
  runIdFor,
  type SendSignalOptions,
  type SignalReceipt,
  type Store,
  type WakeEvent,
} from '@durable-lambda/engine';
import type { ErrorObject, Operation } from '@durable-lambda/protocol';
import { getDurableEntry, type LogEntry } from '@durable-lambda/sdk';
import type { FaultRecord } from '../faults/fault-plan';
import { isInjectedFault } from '../faults/injected-errors';
import { VirtualClock } from '../virtual-clock';
import { Activity } from './activity';
import { type CallbackCompletions, CallbackSender } from './callback-sender';
import { DriverInvocations } from './driver-invocations';
import type { DriverStartOptions, TestDriverOptions } from './driver-options';
import { FaultRig } from './fault-rig';
import type { TestInvocation } from './invocations';
import { invokeWithOthersBeside } from './invocations-beside';
import { dueRun, skipToWakeBeside } from './memory-due-runs';
import { nextWake } from './next-wake';
import type { PlainHandler } from './plain-function';
import { DEFAULT_MAX_REAL_WAIT_MS, sleepOrStop, waitOrStop } from './real-time-guard';
import type { DriverHandler } from './run-handler';

export type { DriverStartOptions, TestDriverOptions } from './driver-options';
export type { DriverHandler } from './run-handler';

import { type InvocationFailure, QueuedLoop } from './queued-loop';

/** Turns of the event loop given to test code (sending callbacks) before time skips ahead. */
const IDLE_TURNS = 3;

/**
 * Drives every run of one test on the engine with a virtual clock: the run under test and the
 * child runs its `invoke`s start.
 *
 * On the default in-memory store without faults it invokes whatever the store says is due and,
 * when nothing is, lets the test's own code act (complete a callback), then jumps the clock to
 * the next due time. With faults (or another store) it is driven by events alone, as Lambda is:
 * wake-ups asked of the waker and asynchronous invokes wait in a queue in virtual time and invoke
 * their run when they fire; when nothing is queued, the clock moves on by the reconcile interval
 * and the engine's reconciler runs, as the deployed one does every minute. So a lost wake-up is
 * proven to be recovered by the reconciler, never by the driver looking for due runs itself.
 */
export class TestDriver {
  readonly clock: VirtualClock;
  readonly store: Store;
  readonly engine: Engine;
  readonly logs: LogEntry[] = [];
  /** The invocations of each run, in the order they started. */
  readonly invocations = new Map<string, TestInvocation[]>();
  /** The in-memory store when the driver built one (read synchronously by the test runner). */
  readonly memoryStore: MemoryStore | undefined;
  /** Where the events steps emit are published (`options.outbox`, else an in-process sink). */
  readonly outbox: OutboxPublisher;
  private readonly known = new Set<string>();
  private readonly functions: ReadonlyMap<string, DriverHandler>;
  private readonly plain: ReadonlyMap<string, PlainHandler>;
  private readonly realTime: boolean;
  private readonly maxInvocations: number;
  private readonly rig: FaultRig | undefined;
  private readonly loop: QueuedLoop | undefined;
  private readonly callbacks: CallbackSender;
  private readonly activity = new Activity();
  /** Invokes runs' handlers and records each invocation (`driver-invocations.ts`). */
  private readonly runs: DriverInvocations;
  private total = 0;
  private mainRuns = 0;

  constructor(
    functions: ReadonlyMap<string, DriverHandler> | Readonly<Record<string, DriverHandler>>,
    private readonly options: TestDriverOptions = {},
  ) {
    this.functions = functions instanceof Map ? functions : new Map(Object.entries(functions));
    for (const handler of this.functions.values()) if (!isForeignDurableHandler(handler)) getDurableEntry(handler);
    this.plain = options.plainFunctions ?? new Map();
    this.maxInvocations = options.maxInvocations ?? 10_000;
    this.clock = new VirtualClock(options.startTime ?? Date.now());
    this.outbox = options.outbox ?? new MemoryOutbox(this.clock);
    const raw = options.store ? options.store(this.clock) : new MemoryStore(this.clock);
    this.memoryStore = options.store ? undefined : (raw as MemoryStore);
    for (const [name, schema] of Object.entries(options.tables ?? {})) this.memoryStore?.defineTable(name, schema);
    const queued = options.faults !== undefined || options.store !== undefined;
    this.realTime = (options.realTime ?? false) && !queued;
    if (this.realTime) this.clock.follow();
    this.rig = options.faults ? new FaultRig(options.faults, this.clock, () => this.wakeUp()) : undefined;
    const knows = (name: string) => this.functions.has(name) || this.plain.has(name);
    if (!queued) {
      this.store = raw;
      this.engine = new Engine({
        store: raw,
        clock: this.clock,
        outbox: this.outbox,
        ...(options.retentionMs === undefined ? {} : { retentionMs: options.retentionMs }),
        waker: { wakeAt: async () => this.wakeUp() },
        invoker: {
          knows,
          invoke: async (_name, event) => {
            this.known.add((event as WakeEvent).durableLambda.runId);
            this.wakeUp();
          },
        },
      });
      this.runs = this.invocationsOf();
      this.callbacks = this.callbackSender();
      return;
    }
    const loop = new QueuedLoop({
      clock: this.clock,
      intervalMs: options.reconcileIntervalMs ?? 60_000,
      graceMs: options.reconcileGraceMs ?? 120_000,
      known: this.known,
      wakeUp: () => this.wakeUp(),
    });
    this.store = this.rig ? this.rig.store(raw, (runId) => this.known.add(runId)) : raw;
    const waker = loop.waker(this.store);
    const invoker = loop.invoker(knows);
    this.engine = new Engine({
      store: this.store,
      clock: this.clock,
      outbox: this.outbox,
      waker: this.rig ? this.rig.waker(waker) : waker,
      invoker: this.rig ? this.rig.invoker(invoker) : invoker,
      reconcileGraceMs: options.reconcileGraceMs ?? 120_000,
      ...(options.retentionMs === undefined ? {} : { retentionMs: options.retentionMs }),
    });
    loop.attach(this.engine, this.store, (runId, race) => this.runs.queued(runId, race));
    this.loop = loop;
    this.runs = this.invocationsOf();
    this.callbacks = this.callbackSender();
  }

  private invocationsOf(): DriverInvocations {
    return new DriverInvocations({
      engine: this.engine,
      store: this.store,
      clock: this.clock,
      rig: this.rig,
      functions: this.functions,
      plain: this.plain,
      realTime: this.realTime,
      printLogs: this.options.printLogs ?? false,
      logs: this.logs,
      invocations: this.invocations,
      count: () => ++this.total <= this.maxInvocations,
    });
  }

  private callbackSender(): CallbackSender {
    return new CallbackSender(
      this.engine,
      (callbackId) => this.rig?.callbackTwice(callbackId) ?? false,
      () => this.describeFaults(),
      () => this.wakeUp(),
    );
  }

  /** Every fault injected so far, in order (empty without faults). */
  get faults(): readonly FaultRecord[] {
    return this.rig?.plan.log ?? [];
  }

  /** A readable account of the seed and the faults injected, or undefined without faults. */
  describeFaults(): string | undefined {
    return this.rig?.plan.describe();
  }

  /** Invocations that threw, with faults or another store (Lambda retried their events twice). */
  get invocationFailures(): readonly InvocationFailure[] {
    return this.loop?.failures ?? [];
  }

  /** Passes of the reconciler the driver ran, and how many runs they woke (0 on the default path). */
  get reconcileStats(): { passes: number; woken: number } {
    return { passes: this.loop?.reconcilePasses ?? 0, woken: this.loop?.reconcileWoken ?? 0 };
  }

  /** The ids of every run of this test (the runs started and their child runs). */
  runIds(): string[] {
    return [...this.known];
  }

  /** Starts a run of a registered function. */
  async start(functionName: string, payload: unknown, options: DriverStartOptions = {}): Promise<RunRecord> {
    if (!this.functions.has(functionName)) {
      throw new Error(`no durable function registered as ${JSON.stringify(functionName)}`);
    }
    const input = payload === undefined ? undefined : JSON.stringify(payload);
    const name = this.mainRuns++ === 0 ? 'main' : `main${this.mainRuns}`;
    // With faults the start is keyed, so a retry after a lost response finds the same run, and
    // the run id (and with it every fault record) is the same in a replay of the seed.
    const runKey =
      options.runKey ?? (this.rig ? `test-driver:${this.rig.plan.seed}:${name}:${this.clock.now()}` : undefined);
    if (runKey !== undefined) this.rig?.scope.name(runIdFor(runKey), name);
    const timeout = options.executionTimeoutSeconds;
    const request = {
      functionName,
      ...(input === undefined ? {} : { input }),
      ...(runKey ? { runKey } : {}),
      ...(timeout === undefined ? {} : { executionTimeoutSeconds: timeout }),
      ...(options.tags === undefined ? {} : { tags: options.tags }),
    };
    let started: RunRecord | undefined;
    for (let attempt = 1; !started; attempt++) {
      try {
        started = (await this.engine.startRun(request)).run;
      } catch (error) {
        if (!isInjectedFault(error) || attempt >= 10) throw error;
      }
    }
    this.known.add(started.runId);
    await this.loop?.started(started);
    return started;
  }

  /** Runs everything until `runId` ends. */
  async runUntilDone(runId: string): Promise<RunRecord> {
    if (this.loop) {
      return this.loop.runUntilDone(runId, {
        maxInvocations: this.maxInvocations,
        count: () => ++this.total,
        describeFaults: () => this.describeFaults(),
        activity: () => this.activity.count,
        waitForActivity: (since) => (this.activity.count === since ? this.waitForKick() : Promise.resolve()),
      });
    }
    const store = this.memoryStore as MemoryStore;
    for (;;) {
      const main = store.peekRun(runId);
      if (main?.status !== 'RUNNING') return main ?? (await this.missing(runId));
      const due = dueRun(store, this.known, this.clock.now(), main);
      if (due) {
        if (++this.total > this.maxInvocations) {
          throw new Error(`run ${runId} took more than ${this.maxInvocations} invocations; stopped as a runaway`);
        }
        await invokeWithOthersBeside(
          this.runs.direct(due),
          () => dueRun(store, this.known, this.clock.now()) ?? this.skipBeside(store, due.runId),
          (other) => {
            if (++this.total > this.maxInvocations) {
              throw new Error(`run ${runId} took more than ${this.maxInvocations} invocations; stopped as a runaway`);
            }
            return this.runs.direct(other);
          },
        );
        continue;
      }
      if (await this.idle(store)) continue;
      const next = nextWake(store, this.known, this.options.holds);
      const limit = this.options.maxRealWaitMs ?? DEFAULT_MAX_REAL_WAIT_MS;
      if (next === undefined) {
        // Nothing will happen on its own: wait for the test to complete a callback.
        await waitOrStop(this.activity, runId, limit);
      } else if (this.realTime) {
        await sleepOrStop(this.activity, this.clock, runId, next.at, limit, next.real);
      } else if (next.real) {
        // Only a deadline of a callback the test holds is ahead: let it come in real time.
        this.clock.follow();
        try {
          await sleepOrStop(this.activity, this.clock, runId, next.at, limit, true);
        } finally {
          this.clock.hold();
        }
      } else {
        this.clock.advanceTo(next.at);
      }
    }
  }

  /** The operations of a run as stored now, read synchronously (in-memory store only). */
  operations(runId: string): Operation[] {
    if (!this.memoryStore) throw new Error('operations(): only the in-memory store can be read synchronously');
    return this.memoryStore.peekOperations(runId);
  }

  /**
   * Completes a callback as outside code would, through the engine. With faults, the completion
   * may be sent twice (`callbackTwice`): the second must be refused. An injected fault that loses
   * the first completion's response is absorbed: its write happened, and the reconciler finds the
   * run if its wake-up was lost with it.
   */
  sendCallbackSuccess(callbackId: string, result?: string): Promise<void> {
    return this.callbacks.success(callbackId, result);
  }

  /** Fails a callback as outside code would (see {@link sendCallbackSuccess}). */
  sendCallbackFailure(callbackId: string, error: ErrorObject): Promise<void> {
    return this.callbacks.failure(callbackId, error);
  }

  /** Sends a callback heartbeat as outside code would. */
  sendCallbackHeartbeat(callbackId: string): Promise<void> {
    return this.callbacks.heartbeat(callbackId);
  }

  /**
   * Sends signal `name` to a run as outside code would (the control API's route), through the
   * engine; `payload` is sent as JSON. Wakes the driver: the run may be waiting for it.
   */
  async sendSignal(
    runId: string,
    name: string,
    payload?: unknown,
    options: SendSignalOptions = {},
  ): Promise<SignalReceipt> {
    try {
      return await this.engine.sendSignal(
        runId,
        name,
        payload === undefined ? undefined : JSON.stringify(payload),
        options,
      );
    } finally {
      this.wakeUp();
    }
  }

  /** The completions sent through {@link sendCallbackSuccess} and friends, by callback id. */
  get callbackCompletions(): ReadonlyMap<string, CallbackCompletions> {
    return this.callbacks.completions;
  }

  /** See {@link skipToWakeBeside} (never in real time: time does not skip). */
  private skipBeside(store: MemoryStore, busyId: string): RunRecord | undefined {
    return this.realTime ? undefined : skipToWakeBeside(store, this.known, this.clock, busyId, this.options.holds);
  }

  /** Lets test code run for a few turns; true if it made something due. */
  private async idle(store: MemoryStore): Promise<boolean> {
    for (let i = 0; i < IDLE_TURNS; i++) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (dueRun(store, this.known, this.clock.now())) return true;
    }
    return false;
  }

  private waitForKick(): Promise<void> {
    return this.activity.next();
  }

  private wakeUp(): void {
    this.activity.signal();
  }

  private async missing(runId: string): Promise<never> {
    throw new Error(`run ${runId} disappeared`);
  }
}
