/**
 * A small world for flow control's gates: one function with the options a test gives, the engine
 * on a memory store (or another) and a virtual clock, and a waker that records wake-ups for the
 * test to deliver when their time comes (or lose). Handlers wait on a callback the test completes,
 * so runs stay RUNNING as long as a test needs; each handler's first entry is timed.
 */
import { Engine, MemoryStore, type RunRecord, type Store, type WakeRequest, wakeEvent } from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import { type DurableExecutionConfig, withDurableExecution } from '@durable-lambda/sdk';

/** The input of a run in this world. */
export interface FlowEvent {
  tenant: string;
  id: string;
}

/** The flow-control options a world's function declares. */
export type FlowOptions = Pick<
  DurableExecutionConfig,
  'concurrency' | 'throttle' | 'rateLimit' | 'debounce' | 'singleton'
>;

export const T0 = Date.UTC(2026, 0, 1);

export class FlowWorld {
  readonly clock = new VirtualClock(T0);
  readonly store: Store;
  wakeUps: WakeRequest[] = [];
  /** When each run first entered its handler (virtual ms), by event id. */
  readonly startedAt = new Map<string, number>();
  /** Runs inside their handler now, by tenant. */
  readonly active = new Map<string, Set<string>>();
  readonly engine: Engine;
  readonly handler;
  private readonly ids = new Map<string, string>();

  constructor(options: FlowOptions, store?: (clock: VirtualClock) => Store) {
    this.store = store ? store(this.clock) : new MemoryStore(this.clock);
    this.engine = new Engine({
      store: this.store,
      clock: this.clock,
      waker: { wakeAt: async (request) => void this.wakeUps.push(request) },
      queueRecheckMs: 60 * 60_000,
    });
    this.handler = withDurableExecution(
      async (event: FlowEvent, ctx) => {
        if (!this.startedAt.has(event.id)) this.startedAt.set(event.id, this.clock.now());
        const set = this.active.get(event.tenant) ?? new Set<string>();
        set.add(event.id);
        this.active.set(event.tenant, set);
        const answer = await ctx.waitForCallback<string>('work', async () => undefined);
        set.delete(event.id);
        return answer;
      },
      { backend: this.engine, ...options },
    );
  }

  /** Starts a run through the Lambda entry (its first invocation admits, queues or skips it). */
  async start(event: FlowEvent): Promise<string> {
    await this.handler(event, { functionName: 'jobs', awsRequestId: event.id });
    const run = (await this.engine.listRuns({ functionName: 'jobs', limit: 100 })).runs.find(
      (r) => r.runKey === event.id,
    );
    if (!run) throw new Error(`no run for ${event.id}`);
    this.ids.set(event.id, run.runId);
    return run.runId;
  }

  /**
   * Moves the clock on to `at`, stopping at each wake-up on the way to deliver it at its time (and
   * those it asks in turn), as a waker would.
   */
  async advanceTo(at: number): Promise<void> {
    for (let i = 0; i < 1_000; i++) {
      const next = Math.min(...this.wakeUps.map((w) => w.at));
      if (!(next <= at)) break;
      this.clock.advanceBy(Math.max(0, next - this.clock.now()));
      await this.deliver();
    }
    this.clock.advanceBy(Math.max(0, at - this.clock.now()));
    await this.deliver();
  }

  /** Delivers every wake-up due now. */
  async deliver(): Promise<void> {
    for (let i = 0; i < 100; i++) {
      const due = this.wakeUps.filter((w) => w.at <= this.clock.now());
      if (due.length === 0) return;
      this.wakeUps = this.wakeUps.filter((w) => w.at > this.clock.now());
      // An invocation that faults has asked for its retry already (a Lambda would retry it too).
      for (const w of due) await this.handler(wakeEvent(w.runId), { functionName: 'jobs' }).catch(() => undefined);
    }
  }

  /** Delivers a wake-up of `runId` now, whatever its time (a duplicate or early one). */
  async wakeEarly(runId: string): Promise<void> {
    await this.handler(wakeEvent(runId), { functionName: 'jobs' });
  }

  /** Completes the run's callback so it ends SUCCEEDED. */
  async finish(runId: string): Promise<void> {
    const ops = await this.engine.getOperations(runId);
    const id = ops.find((op) => op.Type === 'CALLBACK' && op.Status === 'STARTED')?.CallbackDetails?.CallbackId;
    if (!id) throw new Error(`run ${runId} waits on no callback`);
    await this.engine.sendCallbackSuccess(id, JSON.stringify('done'));
    await this.deliver();
  }

  run(runId: string): Promise<RunRecord | undefined> {
    return this.engine.getRun(runId);
  }

  async statuses(ids: readonly string[]): Promise<string[]> {
    return Promise.all(ids.map(async (id) => (await this.run(id))?.status ?? 'GONE'));
  }

  /** The start times of events `ids` relative to T0 (undefined: never started). */
  startOffsets(ids: readonly string[]): (number | undefined)[] {
    return ids.map((id) => {
      const at = this.startedAt.get(id);
      return at === undefined ? undefined : at - T0;
    });
  }
}
