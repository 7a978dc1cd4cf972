import { Engine, type RunRecord, type Store, type WakeEvent } from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import { type DurableLambdaHandler, finishOpened, getDurableEntry } from '@durable-lambda/sdk';

/**
 * Drives runs of registered handlers on any Store (DynamoDB, SQLite, memory) with a virtual
 * clock: the run under test and the child runs its invokes start. The async twin of the test
 * runner's driver, for stores that can only be read through the port.
 */
export class StoreDriver {
  readonly clock = new VirtualClock(Date.UTC(2026, 0, 1));
  readonly engine: Engine;
  private readonly known: string[] = [];
  invocations = 0;

  readonly store: Store;

  /** `makeStore` gets the driver's virtual clock (for timestamps and TTL filtering). */
  constructor(
    makeStore: (clock: VirtualClock) => Store,
    private readonly functions: Record<string, DurableLambdaHandler>,
  ) {
    this.store = makeStore(this.clock);
    this.engine = new Engine({
      store: this.store,
      clock: this.clock,
      waker: { wakeAt: async () => {} },
      invoker: {
        knows: (name) => name in this.functions,
        invoke: async (_name, event) => {
          const runId = (event as WakeEvent).durableLambda.runId;
          if (!this.known.includes(runId)) this.known.push(runId);
        },
      },
    });
  }

  async start(functionName: string, payload?: unknown): Promise<string> {
    const input = payload === undefined ? undefined : JSON.stringify(payload);
    const { run } = await this.engine.startRun({ functionName, ...(input === undefined ? {} : { input }) });
    this.known.push(run.runId);
    return run.runId;
  }

  /**
   * Invokes whatever is due, skipping time ahead when nothing is (unless `skipTime` is false),
   * until `runId` ends or only waits for an outside event. Returns the run as it stands.
   */
  async run(runId: string, { skipTime = true, maxInvocations = 1_000 } = {}): Promise<RunRecord> {
    for (;;) {
      const main = await this.engine.getRun(runId);
      if (main?.status !== 'RUNNING') return main as RunRecord;
      const runs = (await Promise.all(this.known.map((id) => this.engine.getRun(id)))).filter(
        (r): r is RunRecord => r?.status === 'RUNNING',
      );
      const now = this.clock.now();
      const due = runs.find(
        (r) => (r.nextWakeAt !== undefined && r.nextWakeAt <= now) || r.eventSeq > r.handledEventSeq,
      );
      if (due) {
        if (++this.invocations > maxInvocations) throw new Error('runaway');
        await this.invoke(due);
        continue;
      }
      const next = runs.flatMap((r) => (r.nextWakeAt === undefined ? [] : [r.nextWakeAt])).sort((a, b) => a - b)[0];
      if (next === undefined || !skipTime) return main;
      this.clock.advanceTo(next);
    }
  }

  private async invoke(run: RunRecord): Promise<void> {
    const handler = this.functions[run.functionName];
    if (!handler) throw new Error(`no handler for ${run.functionName}`);
    const session = await this.engine.openRun(run.runId, { remainingTimeMs: () => 15 * 60_000 });
    if (!session) return;
    const result = await getDurableEntry(handler).execute(
      session,
      { functionName: run.functionName },
      { inProcessWaitMs: 0, logSink: () => {} },
    );
    await finishOpened(session, result);
  }
}
