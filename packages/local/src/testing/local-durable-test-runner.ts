import { Engine, MemoryStore, type RunRecord, type WakeRequest } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import {
  type DurableLambdaHandler,
  finishOpened,
  getDurableEntry,
  type LogEntry,
  type RuntimeOverrides,
} from '@durable-lambda/sdk';
import { VirtualClock } from '../virtual-clock';
import { DurableOperation } from './operation-view';
import { DurableTestResult, type TestInvocation } from './test-result';

/** Options of a {@link LocalDurableTestRunner}. */
export interface LocalDurableTestRunnerOptions {
  /** A handler wrapped with `withDurableExecution`. */
  handlerFunction: DurableLambdaHandler;
  /** The function name runs are recorded under. Default `handler`. */
  functionName?: string;
  /** Virtual start time, epoch ms. Default: the real time at each `run`. */
  startTime?: number;
  /** A run taking more invocations than this is stopped as a runaway. Default 10,000. */
  maxInvocations?: number;
  /** Also print log entries (they are always kept on the result). Default false. */
  printLogs?: boolean;
}

/** What to run. */
export interface RunOptions {
  /** The event the handler receives. */
  payload?: unknown;
}

const FUNCTION_NAME = 'handler';
const INVOCATION_MS = 15 * 60_000;

/**
 * Runs a durable handler locally on the real engine with a virtual clock: waits and backoffs
 * are skipped, yet every one really ends its invocation and the next replays, as on Lambda.
 * Nothing global is touched (no fake timers), so it works under any test framework.
 */
export class LocalDurableTestRunner<TResult = unknown> {
  private readonly options: LocalDurableTestRunnerOptions;
  private lastOperations: readonly Operation[] = [];

  constructor(options: LocalDurableTestRunnerOptions) {
    getDurableEntry(options?.handlerFunction);
    this.options = options;
  }

  /** Compat with AWS's testing package; nothing to set up, since no timers are faked. */
  static async setupTestEnvironment(_options?: { skipTime?: boolean }): Promise<void> {}

  /** Compat with AWS's testing package. */
  static async teardownTestEnvironment(): Promise<void> {}

  /** Runs the handler to its end (or until it waits for an outside event). */
  async run(options: RunOptions = {}): Promise<DurableTestResult<TResult>> {
    const entry = getDurableEntry(this.options.handlerFunction);
    const clock = new VirtualClock(this.options.startTime ?? Date.now());
    const store = new MemoryStore(clock);
    const wakeUps: WakeRequest[] = [];
    const engine = new Engine({ store, clock, waker: { wakeAt: async (w) => void wakeUps.push(w) } });
    const functionName = this.options.functionName ?? FUNCTION_NAME;
    const logs: LogEntry[] = [];
    const overrides: RuntimeOverrides = {
      // Every wait and backoff suspends, so tests exercise replay the way Lambda will.
      inProcessWaitMs: 0,
      logSink: (e) => {
        logs.push(e);
        if (this.options.printLogs) process.stdout.write(`${JSON.stringify(e)}\n`);
      },
    };
    const input = options.payload === undefined ? undefined : JSON.stringify(options.payload);
    const { run: started } = await engine.startRun({ functionName, ...(input === undefined ? {} : { input }) });
    const invocations: TestInvocation[] = [];
    const max = this.options.maxInvocations ?? 10_000;
    let run: RunRecord = started;
    while (run.status === 'RUNNING' && run.nextWakeAt !== undefined) {
      if (invocations.length >= max)
        throw new Error(`run ${run.runId} took more than ${max} invocations; stopped as a runaway`);
      clock.advanceTo(run.nextWakeAt);
      const session = await engine.openRun(run.runId, { remainingTimeMs: () => INVOCATION_MS });
      if (!session) throw new Error(`run ${run.runId} could not be opened at its wake-up time`);
      const startedAt = new Date(clock.now());
      const result = await entry.execute(
        session,
        { functionName, awsRequestId: `local-${invocations.length}` },
        overrides,
      );
      await finishOpened(session, result);
      invocations.push({
        index: invocations.length,
        startedAt,
        status: result.type === 'completed' ? result.output.Status : 'STOPPED',
      });
      run = (await engine.getRun(run.runId)) ?? run;
    }
    this.lastOperations = await engine.getOperations(run.runId);
    return new DurableTestResult<TResult>(run, this.lastOperations, invocations, logs);
  }

  /** The operation with this name in the last run (the `index`-th of that name, 0-based). */
  getOperation(name: string, index = 0): DurableOperation {
    return new DurableOperation(
      () => this.visible().filter((op) => op.Name === name)[index],
      () => this.lastOperations,
      `named ${JSON.stringify(name)}${index ? ` #${index}` : ''}`,
    );
  }

  /** The `index`-th operation of the last run, in creation order (the execution excluded). */
  getOperationByIndex(index: number): DurableOperation {
    return new DurableOperation(
      () => this.visible()[index],
      () => this.lastOperations,
      `at index ${index}`,
    );
  }

  /** The operation with this id in the last run. */
  getOperationById(id: string): DurableOperation {
    return new DurableOperation(
      () => this.lastOperations.find((op) => op.Id === id),
      () => this.lastOperations,
      `id ${id}`,
    );
  }

  private visible(): Operation[] {
    return this.lastOperations.filter((op) => op.Type !== 'EXECUTION');
  }
}
