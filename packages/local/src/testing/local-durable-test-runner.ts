import { isForeignDurableHandler } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import { getDurableEntry } from '@durable-lambda/sdk';
import type { FaultOptions } from '../faults/fault-plan';
import { type DriverHandler, TestDriver } from './driver';
import { DurableOperation, type OperationSource } from './operation-view';
import { DurableTestResult } from './test-result';

/** Options of a {@link LocalDurableTestRunner}. */
export interface LocalDurableTestRunnerOptions {
  /**
   * A handler wrapped with `withDurableExecution`: ours, or AWS's (`@aws/durable-execution-sdk-js`),
   * which runs unchanged on this runner through the same engine.
   */
  handlerFunction: DriverHandler;
  /** The function name runs are recorded under. Default `handler`. */
  functionName?: string;
  /** Virtual start time, epoch ms. Default: the real time at each `run`. */
  startTime?: number;
  /** A run taking more invocations than this (children included) is stopped as a runaway. Default 10,000. */
  maxInvocations?: number;
  /** Also print log entries (they are always kept on the result). Default false. */
  printLogs?: boolean;
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
   * (`run_stranded` or `run_runaway`) naming the seed and the faults. Default: no faults, and
   * none of this machinery (the default path is unchanged).
   */
  faults?: FaultOptions;
}

/** What to run. */
export interface RunOptions {
  /** The event the handler receives. */
  payload?: unknown;
}

const FUNCTION_NAME = 'handler';

/**
 * Runs a durable handler locally on the real engine with a virtual clock: waits and backoffs
 * are skipped, yet every one really ends its invocation and the next replays, as on Lambda.
 * Nothing global is touched (no fake timers), so it works under any test framework.
 */
export class LocalDurableTestRunner<TResult = unknown> {
  private readonly options: LocalDurableTestRunnerOptions;
  private readonly functions = new Map<string, DriverHandler>();
  private driver: TestDriver | undefined;
  private runId: string | undefined;
  private lastOperations: readonly Operation[] = [];
  private readonly source: OperationSource;

  constructor(options: LocalDurableTestRunnerOptions) {
    checkHandler(options?.handlerFunction);
    this.options = options;
    this.functions.set(options.functionName ?? FUNCTION_NAME, options.handlerFunction);
    this.source = {
      operations: () => (this.driver && this.runId ? this.driver.operations(this.runId) : this.lastOperations),
      subscribe: (listener) => this.driver?.memoryStore?.subscribe(listener) ?? (() => {}),
      ended: () => {
        const run = this.driver && this.runId ? this.driver.memoryStore?.peekRun(this.runId) : undefined;
        return run !== undefined && run.status !== 'RUNNING';
      },
      sendCallbackSuccess: (id, result) => this.current().sendCallbackSuccess(id, result),
      sendCallbackFailure: (id, error) => this.current().sendCallbackFailure(id, error),
      sendCallbackHeartbeat: (id) => this.current().sendCallbackHeartbeat(id),
    };
  }

  /** Compat with AWS's testing package; nothing to set up, since no timers are faked. */
  static async setupTestEnvironment(_options?: { skipTime?: boolean }): Promise<void> {}

  /** Compat with AWS's testing package. */
  static async teardownTestEnvironment(): Promise<void> {}

  /** Makes `handler` reachable by `context.invoke(name, ...)` from the handler under test. */
  registerDurableFunction(name: string, handler: DriverHandler): this {
    checkHandler(handler);
    if (typeof name !== 'string' || name.length === 0)
      throw new Error('registerDurableFunction: name must be a non-empty string');
    this.functions.set(name, handler);
    return this;
  }

  /**
   * Runs the handler until its run ends. While it runs, a test may complete callbacks through
   * `getOperation(name).waitForData()` and `sendCallbackSuccess(...)`.
   */
  async run(options: RunOptions = {}): Promise<DurableTestResult<TResult>> {
    const driver = new TestDriver(this.functions, {
      startTime: this.options.startTime ?? Date.now(),
      maxInvocations: this.options.maxInvocations ?? 10_000,
      printLogs: this.options.printLogs ?? false,
      ...(this.options.faults === undefined ? {} : { faults: this.options.faults }),
    });
    this.driver = driver;
    const started = await driver.start(this.options.functionName ?? FUNCTION_NAME, options.payload);
    this.runId = started.runId;
    const run = await driver.runUntilDone(started.runId);
    this.lastOperations = await driver.engine.getOperations(run.runId);
    return new DurableTestResult<TResult>(
      run,
      this.lastOperations,
      driver.invocations.get(run.runId) ?? [],
      driver.logs,
      driver.faults,
    );
  }

  /** The operation with this name in the current or last run (the `index`-th of that name, 0-based). */
  getOperation(name: string, index = 0): DurableOperation {
    return new DurableOperation(
      (all) => all.filter((op) => op.Name === name && op.Type !== 'EXECUTION')[index],
      this.source,
      `named ${JSON.stringify(name)}${index ? ` #${index}` : ''}`,
    );
  }

  /** The `index`-th operation of the current or last run, in creation order (the execution excluded). */
  getOperationByIndex(index: number): DurableOperation {
    return new DurableOperation(
      (all) => all.filter((op) => op.Type !== 'EXECUTION')[index],
      this.source,
      `at index ${index}`,
    );
  }

  /** The operation with this id in the current or last run. */
  getOperationById(id: string): DurableOperation {
    return new DurableOperation((all) => all.find((op) => op.Id === id), this.source, `id ${id}`);
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
