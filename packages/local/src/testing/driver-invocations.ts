/**
 * How a `TestDriver` invokes a run: it opens the run on the engine (as Lambda's invocation would,
 * 15 minutes to run), runs the registered handler (durable or plain) with the driver's log sink,
 * records the invocation (`invocations.ts`) and ends it. With faults, the fault rig wraps the
 * invocation and may race a second one against it.
 */
import type { Engine, RunRecord, Store } from '@durable-lambda/engine';
import type { OpenedInvocation } from '@durable-lambda/protocol';
import { finishOpened, type LogEntry } from '@durable-lambda/sdk';
import type { VirtualClock } from '../virtual-clock';
import type { FaultRig } from './fault-rig';
import { endInvocation, startInvocation, type TestInvocation } from './invocations';
import type { PlainHandler } from './plain-function';
import { type DriverHandler, type RegisteredFunction, runHandler } from './run-handler';

const INVOCATION_MS = 15 * 60_000;

/** What the driver's invocations share with it. */
export interface DriverInvocationDeps {
  engine: Engine;
  store: Store;
  clock: VirtualClock;
  rig: FaultRig | undefined;
  functions: ReadonlyMap<string, DriverHandler>;
  plain: ReadonlyMap<string, PlainHandler>;
  /** The clock follows real time: a handler's waits are not skipped. */
  realTime: boolean;
  printLogs: boolean;
  /** Where handlers' log lines go (the driver's `logs`). */
  logs: LogEntry[];
  /** The invocations of each run, in the order they started (the driver's `invocations`). */
  invocations: Map<string, TestInvocation[]>;
  /** Counts one more invocation; false once past the driver's cap. */
  count(): boolean;
}

/** The driver's invocations of its runs, in either of its modes. */
export class DriverInvocations {
  constructor(private readonly d: DriverInvocationDeps) {}

  /**
   * One invocation of a run, as Lambda makes it from an event (queued mode, `QueuedLoop`); false
   * when it had nothing to do.
   */
  async queued(runId: string, allowRace: boolean): Promise<boolean> {
    const session = await this.d.engine.openRun(runId, { remainingTimeMs: () => INVOCATION_MS });
    if (!session) return false;
    const handler = this.handlerOf(session.functionName);
    const list = this.listOf(runId);
    const index = this.d.rig ? this.d.rig.scope.invocationStarted(runId) : list.length;
    const requestId = `local-${runId}-${index}`;
    const record = startInvocation(index, this.d.clock.now(), requestId);
    list.push(record);
    const opened = this.d.rig
      ? this.d.rig.invocation(session, index, allowRace ? () => this.race(runId) : undefined)
      : session;
    try {
      const result = await runHandler(
        handler,
        opened.invocation,
        {
          functionName: session.functionName,
          awsRequestId: requestId,
        },
        this.overrides(),
        this.d.printLogs,
      );
      const output = result.type === 'completed' ? result.output : undefined;
      endInvocation(record, this.d.clock.now(), output ? output.Status : 'STOPPED', output);
      await finishOpened(opened, result);
      return true;
    } catch (error) {
      record.status = 'FAULTED';
      throw error;
    } finally {
      if (this.d.rig?.killed(opened)) record.status = 'KILLED';
    }
  }

  private handlerOf(functionName: string): RegisteredFunction {
    const durable = this.d.functions.get(functionName);
    if (durable) return { kind: 'durable', handler: durable };
    const plain = this.d.plain.get(functionName);
    if (plain) return { kind: 'plain', handler: plain };
    throw new Error(`no durable function registered as ${JSON.stringify(functionName)}`);
  }

  /** The second invocation of a race: A's lease passes, then B takes the run over and runs. */
  private async race(runId: string): Promise<void> {
    const run = await this.d.store.getRun(runId);
    if (run?.leaseExpiresAt !== undefined) this.d.clock.advanceTo(run.leaseExpiresAt);
    if (!this.d.count()) return;
    // B's own failure is B's: Lambda would retry its event, and the lease or reconciler covers it.
    await this.queued(runId, false).catch(() => undefined);
  }

  private overrides() {
    return {
      // Every wait and backoff suspends, so tests exercise replay the way Lambda will.
      inProcessWaitMs: 0,
      logSink: (entry: LogEntry) => {
        this.d.logs.push(entry);
      },
    };
  }

  private listOf(runId: string): TestInvocation[] {
    const list = this.d.invocations.get(runId) ?? [];
    this.d.invocations.set(runId, list);
    return list;
  }

  /** One invocation of a due run (in-memory mode without faults), its waits skipped unless in real time. */
  async direct(run: RunRecord): Promise<void> {
    const handler = this.handlerOf(run.functionName);
    const session: OpenedInvocation | undefined = await this.d.engine.openRun(run.runId, {
      remainingTimeMs: () => INVOCATION_MS,
    });
    if (!session) return;
    // Time skips: a wait or backoff due while the handler's other code runs (a long step) ends
    // in this invocation at once, as AWS's runner finishes such runs in one invocation.
    if (!this.d.realTime) session.invocation.skipTo = (time) => this.d.clock.advanceTo(time);
    const list = this.listOf(run.runId);
    const requestId = `local-${run.runId}-${list.length}`;
    const record = startInvocation(list.length, this.d.clock.now(), requestId);
    const result = await runHandler(
      handler,
      session.invocation,
      { functionName: run.functionName, awsRequestId: requestId },
      this.overrides(),
      this.d.printLogs,
    );
    const output = result.type === 'completed' ? result.output : undefined;
    endInvocation(record, this.d.clock.now(), output ? output.Status : 'STOPPED', output);
    await finishOpened(session, result);
    list.push(record);
  }
}
