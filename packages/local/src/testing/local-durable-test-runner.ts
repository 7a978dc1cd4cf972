import { isForeignDurableHandler, type SignalReceipt } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import { type DurableLambdaHandler, getDurableEntry } from '@durable-lambda/sdk';
import type { FaultOptions } from '../faults/fault-plan';
import { TestDriver } from './driver';
import { runHistory } from './history';
import type { CallbackHolds } from './next-wake';
import { DurableOperation, type OperationSource } from './operation-view';
import type { PlainHandler } from './plain-function';
import { type RecordedRun, recordedRunOf } from './recorded-run';
import { type ReplayOptions, type ReplayReport, replayRecordedRun } from './replay-recorded';
import type { DriverHandler } from './run-handler';
import type { DurableTestRunner, RunOptions } from './runner-types';
import {
  environmentSkipsTime,
  type LocalDurableTestRunnerSetupParameters,
  setupEnvironment,
  teardownEnvironment,
} from './test-environment';
import { DurableTestResult } from './test-result';

/** Options of a {@link LocalDurableTestRunner} (AWS's `LocalDurableTestRunnerParameters`, plus ours). */
export interface LocalDurableTestRunnerOptions<TResult = unknown> {
  /**
   * A handler wrapped with `withDurableExecution`: ours (whose result type the runner takes for
   * `getResult()`), or AWS's (`@aws/durable-execution-sdk-js`), which runs unchanged on this
   * runner through the same engine.
   */
  handlerFunction: DurableLambdaHandler<TResult> | DriverHandler;
  /** The function name runs are recorded under. Default `handler`. */
  functionName?: string;
  /** Virtual start time, epoch ms. Default: the real time at each `run`. */
  startTime?: number;
  /** A run taking more invocations than this (children included) is stopped as a runaway. Default 10,000. */
  maxInvocations?: number;
  /**
   * Log lines also reach the handler's own sink (its `logSink`; by default AWS-shaped JSON lines,
   * info and debug on stdout, warnings and errors on stderr, filtered by `AWS_LAMBDA_LOG_LEVEL`),
   * as on Lambda and as AWS's runner shows them. They are always kept on the result too. `false`
   * keeps them on the result only. Default true.
   */
  printLogs?: boolean;
  /**
   * Skip time (virtual clock: waits and backoffs take no real time) or not (they elapse on the
   * real clock, as AWS's runner does with `skipTime: false`). Default: what
   * `setupTestEnvironment({ skipTime })` set; when it was never called, true.
   */
  skipTime?: boolean;
  /**
   * How a callback's deadlines (its `timeout` and `heartbeatTimeout`) pass while time is skipped
   * (waits and backoffs are skipped in every mode; with `skipTime: false` all time is real).
   * - `'held'` (default): the deadlines of a callback the test holds (it called `waitForData` on
   *   it, or sent it a heartbeat through the runner) follow real time, so the test's heartbeat or
   *   completion arrives first; any other callback's deadline is jumped to once the run waits for
   *   nothing else, so a test of a 3-day timeout takes no time.
   * - `'real'`: every callback deadline follows real time, as on AWS's runner (its checkpoint
   *   server's timers): for tests that heartbeat or complete callbacks by id from outside, with
   *   real delays (a 10 s heartbeat timeout waits up to 10 s).
   * - `'skip'`: every callback deadline is jumped to, held or not: a test of a timed-out callback
   *   it also watches with `waitForData`.
   */
  callbackDeadlines?: CallbackDeadlines;
  /**
   * The longest real time a run may wait on one thing before `run()` fails with a
   * `TestRunStoppedError` (`run_stuck`) instead of hanging: a wait or backoff further away than
   * this with `skipTime: false` fails at once; waiting for the test to complete or heartbeat a
   * callback (nothing else due, or a held callback's deadline) fails once this much real time
   * passed with nothing from the test. Default 60,000.
   */
  maxRealWaitMs?: number;
  /**
   * Injects faults AWS documents as normal, decided by a seed, to prove the handler's runs
   * finish anyway: wake-ups late, twice or dropped; invoke events twice or dropped; callback
   * completions sent twice; invocations killed before a step body, after it before its
   * checkpoint, or during a checkpoint; two invocations of a run racing; store writes that
   * succeed but report failure; throttled Scheduler and Lambda calls (see `FAULT_KINDS`).
   *
   * `{ seed: 42 }` gives every kind a 3% chance at each place it can happen; name a kind to set
   * its own chance (`{ seed: 42, wakeDropped: 0.5 }`), and `defaultProbability: 0` for the named
   * kinds only. The same seed replays the same faults. `result.getFaults()` lists them.
   *
   * With faults the runner is driven by events alone, as on Lambda: wake-ups fire from a queue in
   * virtual time, and when nothing is queued the engine's reconciler runs, once a virtual minute,
   * as deployed. A run that cannot finish fails the run with a `TestRunStoppedError`
   * (`run_stranded` or `run_runaway`) naming the seed and the faults. Faults always use the
   * virtual clock. Default: no faults, and none of this machinery (the default path is unchanged).
   */
  faults?: FaultOptions;
}

/** How callback deadlines pass under a skipping clock; see `LocalDurableTestRunnerOptions.callbackDeadlines`. */
export type CallbackDeadlines = 'held' | 'real' | 'skip';

/** AWS's name of {@link LocalDurableTestRunnerOptions}. */
export type LocalDurableTestRunnerParameters<TResult = unknown> = LocalDurableTestRunnerOptions<TResult>;

export type { InvokeRequest, RunOptions } from './runner-types';

const FUNCTION_NAME = 'handler';

/**
 * Runs a durable handler locally on the real engine. By default with a virtual clock: waits and
 * backoffs are skipped, yet every one really ends its invocation and the next replays, as on
 * Lambda. Nothing global is touched (no fake timers), so it works under any test framework.
 * AWS's `LocalDurableTestRunner` surface, method for method.
 */
export class LocalDurableTestRunner<TResult = unknown> implements DurableTestRunner<DurableOperation, TResult> {
  private readonly options: LocalDurableTestRunnerOptions<TResult>;
  private readonly functions = new Map<string, DriverHandler>();
  private readonly plainFunctions = new Map<string, PlainHandler>();
  private driver: TestDriver | undefined;
  private runId: string | undefined;
  private lastOperations: readonly Operation[] = [];
  private readonly listeners = new Set<() => void>();
  private holds: Array<() => Operation | undefined> = [];
  private readonly source: OperationSource;

  constructor(options: LocalDurableTestRunnerOptions<TResult>) {
    checkHandler(options?.handlerFunction);
    this.options = options;
    this.functions.set(options.functionName ?? FUNCTION_NAME, options.handlerFunction);
    this.source = {
      operations: () => (this.driver && this.runId ? this.driver.operations(this.runId) : this.lastOperations),
      subscribe: (listener) => {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
      },
      ended: () => {
        const run = this.driver && this.runId ? this.driver.memoryStore?.peekRun(this.runId) : undefined;
        return run !== undefined && run.status !== 'RUNNING';
      },
      events: (operationId) => this.liveHistory().of(operationId),
      hold: (find) => {
        this.holds.push(find);
      },
      sendCallbackSuccess: (id, result) => this.current().sendCallbackSuccess(id, result),
      sendCallbackFailure: (id, error) => this.current().sendCallbackFailure(id, error),
      sendCallbackHeartbeat: (id) => this.current().sendCallbackHeartbeat(id),
    };
  }

  /**
   * AWS's setup: with `skipTime: true` runners use our virtual clock; with `skipTime` false or
   * omitted (AWS's default) waits and backoffs elapse in real time. Nothing global is touched.
   * Without this call runners use the virtual clock. Each runner's own `skipTime` option wins.
   */
  static async setupTestEnvironment(params?: LocalDurableTestRunnerSetupParameters): Promise<void> {
    setupEnvironment(params);
  }

  /** AWS's teardown: runners go back to our default, the virtual clock. */
  static async teardownTestEnvironment(): Promise<void> {
    teardownEnvironment();
  }

  /** Makes a durable `handler` reachable by `context.invoke(name, ...)` from the handler under test. */
  registerDurableFunction(name: string, handler: DriverHandler): this {
    checkHandler(handler);
    checkName('registerDurableFunction', name);
    this.functions.set(name, handler);
    return this;
  }

  /**
   * Makes a plain (non-durable) Lambda `handler` reachable by `context.invoke(name, ...)`: it gets
   * the payload (`{}` when none) and its result (or error) is the invoke's.
   */
  registerFunction(name: string, handler: PlainHandler): this {
    checkName('registerFunction', name);
    if (typeof handler !== 'function') throw new Error('registerFunction: handler must be a function');
    this.plainFunctions.set(name, handler);
    return this;
  }

  /**
   * Runs the handler until its run ends. While it runs, a test may complete callbacks through
   * `getOperation(name).waitForData()` and `sendCallbackSuccess(...)`.
   */
  async run(options: RunOptions = {}): Promise<DurableTestResult<TResult>> {
    const skipTime = this.options.skipTime ?? environmentSkipsTime();
    const driver = new TestDriver(this.functions, {
      startTime: this.options.startTime ?? Date.now(),
      maxInvocations: this.options.maxInvocations ?? 10_000,
      printLogs: this.options.printLogs ?? true,
      realTime: !skipTime,
      holds: this.callbackHolds(),
      ...(this.options.maxRealWaitMs === undefined ? {} : { maxRealWaitMs: this.options.maxRealWaitMs }),
      plainFunctions: this.plainFunctions,
      ...(this.options.faults === undefined ? {} : { faults: this.options.faults }),
    });
    this.driver = driver;
    this.runId = undefined;
    this.holds = [];
    const unsubscribe = driver.memoryStore?.subscribe(() => this.notify()) ?? (() => {});
    try {
      // AWS's runner hands the handler `{}` when the run is given no payload.
      const payload = options.payload === undefined ? {} : options.payload;
      const started = await driver.start(this.options.functionName ?? FUNCTION_NAME, payload);
      this.runId = started.runId;
      const run = await driver.runUntilDone(started.runId);
      const operations = await driver.engine.getOperations(run.runId);
      this.lastOperations = operations;
      const invocations = driver.invocations.get(run.runId) ?? [];
      return new DurableTestResult<TResult>(
        run,
        operations,
        invocations,
        driver.logs,
        driver.faults,
        runHistory(() => ({ operations, invocations, run }), true),
      );
    } finally {
      unsubscribe();
      // Waiters still pending see the run has ended and reject, as AWS's do.
      this.notify();
    }
  }

  /**
   * Replays the handler against a recorded run (an exported-run file from `durable export` or
   * {@link exportRun}: its JSON text or parsed value) without executing anything: a finished run
   * to its end, a run in flight up to where it stands. The report says `clean`, or
   * `non_deterministic` naming the recorded operation and the one the code asked for instead.
   * Ours (AWS's runner has no replay); it does not touch the runner's current run.
   */
  replay(recorded: RecordedRun | string | unknown, options: ReplayOptions = {}): Promise<ReplayReport> {
    return replayRecordedRun(this.options.handlerFunction, recorded, options);
  }

  /**
   * The current (or last) run as an exported-run file, as it stands now: call it while the run
   * waits (e.g. after `waitForData()`) to record a run in flight. Ours.
   */
  async exportRun(): Promise<RecordedRun> {
    const driver = this.current();
    const run = this.runId ? await driver.store.getRun(this.runId) : undefined;
    if (!run || !this.runId) throw new Error('exportRun: no run yet: call run() first');
    return recordedRunOf(run, await driver.store.loadOperations(this.runId), 'runner');
  }

  /**
   * Ours: sends signal `name` (with `payload`, sent as JSON) to the current run, as
   * `POST /v1/runs/{id}/signals/{name}` would: a `ctx.waitForSignal(name)` takes it, now or when
   * it comes to wait. Call it while the run runs (e.g. after `getOperation(name).waitForData()`,
   * or any operation's). With `idempotencyKey`, a second send with the same key is stored once.
   * Rejects like the route: `invalid_argument` (name), `payload_too_large`, `run_ended`.
   */
  async sendSignal(name: string, payload?: unknown, options: { idempotencyKey?: string } = {}): Promise<SignalReceipt> {
    const driver = this.current();
    if (!this.runId) throw new Error('sendSignal: the run has not started yet: wait for one of its operations first');
    const key = options.idempotencyKey;
    return driver.sendSignal(this.runId, name, payload, key === undefined ? {} : { dedupeKey: key });
  }

  /**
   * Forgets the last run (its operations, pending holds), as AWS's `reset()`; call it between
   * tests that share a runner. Registered functions stay.
   */
  reset(): void {
    this.driver = undefined;
    this.runId = undefined;
    this.lastOperations = [];
    this.holds = [];
  }

  /** The operation with this name in the current or last run (the `index`-th of that name, 0-based). */
  getOperation<TOperationResult = unknown>(name: string, index = 0): DurableOperation<TOperationResult> {
    return new DurableOperation<TOperationResult>(
      (all) => all.filter((op) => op.Name === name && op.Type !== 'EXECUTION')[index],
      this.source,
      `named ${JSON.stringify(name)}${index ? ` #${index}` : ''}`,
    );
  }

  /** The `index`-th operation named `name` (0-based), as AWS's `getOperationByNameAndIndex`. */
  getOperationByNameAndIndex<TOperationResult = unknown>(
    name: string,
    index: number,
  ): DurableOperation<TOperationResult> {
    return this.getOperation<TOperationResult>(name, index);
  }

  /** The `index`-th operation of the current or last run, in creation order (the execution excluded). */
  getOperationByIndex<TOperationResult = unknown>(index: number): DurableOperation<TOperationResult> {
    return new DurableOperation<TOperationResult>(
      (all) => all.filter((op) => op.Type !== 'EXECUTION')[index],
      this.source,
      `at index ${index}`,
    );
  }

  /** The operation with this id in the current or last run. */
  getOperationById<TOperationResult = unknown>(id: string): DurableOperation<TOperationResult> {
    return new DurableOperation<TOperationResult>((all) => all.find((op) => op.Id === id), this.source, `id ${id}`);
  }

  /** The history of the current (or last) run as it stands now. */
  private liveHistory() {
    return runHistory(
      () => ({
        operations: this.source.operations(),
        invocations: (this.runId && this.driver?.invocations.get(this.runId)) || [],
        run: this.runId ? this.driver?.memoryStore?.peekRun(this.runId) : undefined,
      }),
      false,
    );
  }

  private callbackHolds(): CallbackHolds {
    const mode = this.options.callbackDeadlines ?? 'held';
    if (mode === 'real') return { any: () => true, has: () => true };
    if (mode === 'skip') return { any: () => false, has: () => false };
    return {
      any: () => this.holds.length > 0,
      has: (runId, callback) =>
        runId === this.runId &&
        this.holds.some((find) => {
          const op = find();
          return op !== undefined && (op.Id === callback.Id || op.Id === callback.ParentId);
        }),
    };
  }

  private notify(): void {
    // Called at every store write (each checkpoint): nothing to copy when no test code listens.
    if (this.listeners.size === 0) return;
    for (const listener of [...this.listeners]) listener();
  }

  private current(): TestDriver {
    if (!this.driver) throw new Error('no run in progress: call run() first');
    return this.driver;
  }
}

/** Ours must carry its entry (a clear error otherwise); a plain function is run as AWS's SDK's. */
function checkHandler(handler: unknown): void {
  if (!isForeignDurableHandler(handler)) getDurableEntry(handler);
}

function checkName(method: string, name: unknown): void {
  if (typeof name !== 'string' || name.length === 0) throw new Error(`${method}: name must be a non-empty string`);
}
