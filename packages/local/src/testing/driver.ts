import { setImmediate } from 'node:timers';
import { Engine, MemoryStore, type RunRecord, type wakeEvent } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import {
  type DurableLambdaHandler,
  finishOpened,
  getDurableEntry,
  type LogEntry,
  type RuntimeOverrides,
} from '@durable-lambda/sdk';
import { VirtualClock } from '../virtual-clock';
import type { TestInvocation } from './test-result';

const INVOCATION_MS = 15 * 60_000;
/** Turns of the event loop given to test code (sending callbacks) before time skips ahead. */
const IDLE_TURNS = 3;

/**
 * Drives every run of one test on the engine with a virtual clock: the run under test and the
 * child runs its `invoke`s start. It invokes whatever is due, and when nothing is, first lets
 * the test's own code act (complete a callback), then jumps the clock to the next due time.
 */
export class Driver {
  readonly clock: VirtualClock;
  readonly store: MemoryStore;
  readonly engine: Engine;
  readonly logs: LogEntry[] = [];
  readonly invocations = new Map<string, TestInvocation[]>();
  private readonly known: string[] = [];
  private kick: (() => void) | undefined;
  private readonly overrides: RuntimeOverrides;

  constructor(
    private readonly functions: ReadonlyMap<string, DurableLambdaHandler>,
    options: { startTime: number; maxInvocations: number; printLogs: boolean },
    private readonly maxInvocations = options.maxInvocations,
  ) {
    this.clock = new VirtualClock(options.startTime);
    this.store = new MemoryStore(this.clock);
    this.engine = new Engine({
      store: this.store,
      clock: this.clock,
      waker: { wakeAt: async () => this.wakeUp() },
      invoker: {
        knows: (name) => this.functions.has(name),
        invoke: async (_name, event) => {
          const runId = (event as ReturnType<typeof wakeEvent>).durableLambda.runId;
          if (!this.known.includes(runId)) this.known.push(runId);
          this.wakeUp();
        },
      },
    });
    this.overrides = {
      // Every wait and backoff suspends, so tests exercise replay the way Lambda will.
      inProcessWaitMs: 0,
      logSink: (entry) => {
        this.logs.push(entry);
        if (options.printLogs) process.stdout.write(`${JSON.stringify(entry)}\n`);
      },
    };
  }

  /** Starts the run under test. */
  async start(functionName: string, payload: unknown): Promise<RunRecord> {
    const input = payload === undefined ? undefined : JSON.stringify(payload);
    const { run } = await this.engine.startRun({ functionName, ...(input === undefined ? {} : { input }) });
    this.known.push(run.runId);
    return run;
  }

  /** Runs everything until `runId` ends. */
  async runUntilDone(runId: string): Promise<RunRecord> {
    let total = 0;
    for (;;) {
      const main = this.store.peekRun(runId);
      if (main?.status !== 'RUNNING') return main ?? (await this.missing(runId));
      const due = this.dueRun();
      if (due) {
        if (++total > this.maxInvocations) {
          throw new Error(`run ${runId} took more than ${this.maxInvocations} invocations; stopped as a runaway`);
        }
        await this.invoke(due);
        continue;
      }
      if (await this.idle()) continue;
      const next = this.nextWakeAt();
      if (next !== undefined) {
        this.clock.advanceTo(next);
        continue;
      }
      // Nothing will happen on its own: wait for the test to complete a callback.
      await new Promise<void>((resolve) => {
        this.kick = resolve;
      });
    }
  }

  /** The operations of a run as stored now (waits past due shown as they will settle). */
  operations(runId: string): Operation[] {
    return this.store.peekOperations(runId);
  }

  private async invoke(run: RunRecord): Promise<void> {
    const handler = this.functions.get(run.functionName);
    if (!handler) throw new Error(`no durable function registered as ${JSON.stringify(run.functionName)}`);
    const session = await this.engine.openRun(run.runId, { remainingTimeMs: () => INVOCATION_MS });
    if (!session) return;
    const list = this.invocations.get(run.runId) ?? [];
    this.invocations.set(run.runId, list);
    const startedAt = new Date(this.clock.now());
    const result = await getDurableEntry(handler).execute(
      session,
      { functionName: run.functionName, awsRequestId: `local-${run.runId}-${list.length}` },
      this.overrides,
    );
    await finishOpened(session, result);
    list.push({
      index: list.length,
      startedAt,
      status: result.type === 'completed' ? result.output.Status : 'STOPPED',
    });
  }

  /** The first known run with work due now. */
  private dueRun(): RunRecord | undefined {
    const now = this.clock.now();
    for (const runId of this.known) {
      const run = this.store.peekRun(runId);
      if (run?.status !== 'RUNNING' || (run.leaseExpiresAt !== undefined && run.leaseExpiresAt > now)) continue;
      if ((run.nextWakeAt !== undefined && run.nextWakeAt <= now) || run.eventSeq > run.handledEventSeq) return run;
    }
    return undefined;
  }

  private nextWakeAt(): number | undefined {
    let next: number | undefined;
    for (const runId of this.known) {
      const run = this.store.peekRun(runId);
      if (run?.status !== 'RUNNING' || run.nextWakeAt === undefined) continue;
      if (next === undefined || run.nextWakeAt < next) next = run.nextWakeAt;
    }
    return next;
  }

  /** Lets test code run for a few turns; true if it made something due. */
  private async idle(): Promise<boolean> {
    for (let i = 0; i < IDLE_TURNS; i++) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.dueRun()) return true;
    }
    return false;
  }

  private wakeUp(): void {
    const kick = this.kick;
    this.kick = undefined;
    kick?.();
  }

  private async missing(runId: string): Promise<never> {
    throw new Error(`run ${runId} disappeared`);
  }
}
