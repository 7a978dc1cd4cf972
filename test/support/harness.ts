import {
  Engine,
  type EngineOptions,
  MemoryStore,
  type RunPatch,
  type Store,
  type WakeRequest,
} from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import type { Operation } from '@durable-lambda/protocol';
import {
  type DurableLambdaHandler,
  finishOpened,
  getDurableEntry,
  type LogEntry,
  type RuntimeOverrides,
} from '@durable-lambda/sdk';

/** A store that counts commits and can be told to fail or to stall. */
export class CountingStore extends MemoryStore {
  commits: Array<{ operations: readonly Operation[]; run?: RunPatch }> = [];
  failNextCommit: Error | undefined;

  override async commit(
    runId: string,
    fence: number,
    write: { operations: readonly Operation[]; run?: RunPatch },
  ): Promise<void> {
    if (this.failNextCommit) {
      const error = this.failNextCommit;
      this.failNextCommit = undefined;
      throw error;
    }
    this.commits.push(write);
    return super.commit(runId, fence, write);
  }

  /** Commits that wrote at least one operation (checkpoints, not lease releases). */
  operationWrites(): number {
    return this.commits.filter((c) => c.operations.length > 0).length;
  }
}

/**
 * Drives one run invocation by invocation on the real engine, so tests can look between
 * invocations, crash one, or count writes.
 */
export class Harness {
  readonly clock = new VirtualClock(Date.UTC(2026, 0, 1));
  readonly store: CountingStore;
  readonly wakeUps: WakeRequest[] = [];
  readonly cancelled: WakeRequest[] = [];
  readonly engine: Engine;
  readonly logs: LogEntry[] = [];
  runId = '';
  /** What the backend answered (or threw) when the last invocation's end was recorded. */
  lastClose: unknown;

  constructor(
    readonly handler: DurableLambdaHandler,
    readonly overrides: RuntimeOverrides = {},
    store?: CountingStore,
    engineOptions: Partial<EngineOptions> = {},
  ) {
    this.store = store ?? new CountingStore(this.clock);
    this.engine = new Engine({
      store: this.store as Store,
      clock: this.clock,
      waker: {
        wakeAt: async (w) => void this.wakeUps.push(w),
        cancel: async (w) => void this.cancelled.push(w),
      },
      ...engineOptions,
    });
  }

  async start(payload?: unknown): Promise<string> {
    const input = payload === undefined ? undefined : JSON.stringify(payload);
    const { run } = await this.engine.startRun({ functionName: 'fn', ...(input === undefined ? {} : { input }) });
    this.runId = run.runId;
    return run.runId;
  }

  /** Opens the run at its wake-up time and runs one invocation to its explicit end. */
  async invoke(remainingMs = 15 * 60_000) {
    const run = await this.engine.getRun(this.runId);
    if (run?.nextWakeAt !== undefined) this.clock.advanceTo(run.nextWakeAt);
    const session = await this.engine.openRun(this.runId, { remainingTimeMs: () => remainingMs });
    if (!session) throw new Error('nothing to invoke');
    const result = await getDurableEntry(this.handler).execute(
      session,
      { functionName: 'fn' },
      {
        inProcessWaitMs: 0,
        logSink: (e) => this.logs.push(e),
        ...this.overrides,
      },
    );
    this.lastClose = await finishOpened(session, result).catch((error: unknown) => error);
    return result;
  }

  /** Invokes until the run ends; returns the number of invocations. */
  async runToEnd(max = 100): Promise<number> {
    for (let n = 1; n <= max; n++) {
      await this.invoke();
      const run = await this.engine.getRun(this.runId);
      const eventPending = run !== undefined && run.eventSeq > run.handledEventSeq;
      if (run?.status !== 'RUNNING' || (run.nextWakeAt === undefined && !eventPending)) return n;
    }
    throw new Error('runaway');
  }

  run() {
    return this.engine.getRun(this.runId);
  }

  operations() {
    return this.engine.getOperations(this.runId);
  }

  async op(id: string): Promise<Operation | undefined> {
    return (await this.operations()).find((o) => o.Id === id);
  }
}

/** Resolves after real `ms`. */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every few ms until it is true (real time, bounded). */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 2000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await sleep(2);
  }
}

/**
 * True when an invocation was stopped as stale: a checkpoint of it was fenced, or the write
 * recording its end was (that write may carry its last updates), which it answers as STOPPED.
 */
export function stoppedAsStale(result: unknown, closed: unknown): boolean {
  if ((result as { type?: string } | undefined)?.type === 'fenced') return true;
  return (closed as { Status?: string } | undefined)?.Status === 'STOPPED';
}
