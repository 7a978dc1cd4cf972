/**
 * A small world for flow control per key: one function with `concurrency`, the engine on a memory
 * store and a virtual clock, and a waker that records wake-ups for the test to deliver (or lose).
 * Handlers wait on callbacks the test completes, so runs stay RUNNING as long as a test needs.
 */
import { Engine, MemoryStore, type RunRecord, type WakeRequest, wakeEvent } from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import { withDurableExecution } from '@durable-lambda/sdk';

/** The input of a run in this world. */
export interface WorldEvent {
  tenant: string;
  id: string;
}

export class ConcurrencyWorld {
  readonly clock = new VirtualClock(Date.UTC(2026, 0, 1));
  readonly store = new MemoryStore(this.clock);
  /** Wake-ups asked and not yet delivered. */
  wakeUps: WakeRequest[] = [];
  /** Runs whose handler is running now (between its start and its end), by tenant. */
  readonly active = new Map<string, Set<string>>();
  /** The most runs of one tenant ever active at once. */
  maxActive = 0;
  /** The order runs first entered their handler. */
  readonly started: string[] = [];
  readonly engine: Engine;
  readonly handler;

  constructor(limit: number, options: { executionTimeoutSeconds?: number } = {}) {
    this.engine = new Engine({
      ...(options.executionTimeoutSeconds === undefined ? {} : { executionTimeout: options.executionTimeoutSeconds }),
      store: this.store,
      clock: this.clock,
      waker: { wakeAt: async (request) => void this.wakeUps.push(request) },
      queueRecheckMs: 60 * 60_000,
    });
    this.handler = withDurableExecution(
      async (event: WorldEvent, ctx) => {
        const set = this.active.get(event.tenant) ?? new Set<string>();
        set.add(event.id);
        this.active.set(event.tenant, set);
        this.maxActive = Math.max(this.maxActive, set.size);
        if (!this.started.includes(event.id)) this.started.push(event.id);
        const answer = await ctx.waitForCallback<string>('work', async () => undefined);
        set.delete(event.id);
        if (String(answer).includes('fail')) throw new Error('failed on purpose');
        return answer;
      },
      { backend: this.engine, concurrency: { key: (e) => (e as WorldEvent).tenant, limit } },
    );
  }

  /** Starts a run through the Lambda entry (its first invocation admits it or queues it). */
  async start(event: WorldEvent): Promise<string> {
    await this.handler(event, { functionName: 'jobs', awsRequestId: event.id });
    const run = (await this.engine.listRuns({ functionName: 'jobs', limit: 100 })).runs.find(
      (r) => r.runKey === event.id,
    );
    if (!run) throw new Error(`no run for ${event.id}`);
    return run.runId;
  }

  /** Delivers every wake-up asked so far (and those they ask in turn), now. */
  async deliver(): Promise<void> {
    for (let i = 0; i < 100 && this.wakeUps.length > 0; i++) {
      const batch = this.wakeUps;
      this.wakeUps = [];
      for (const w of batch) {
        if (w.at <= this.clock.now()) await this.handler(wakeEvent(w.runId), { functionName: 'jobs' });
        else this.wakeUps.push(w);
      }
      if (batch.every((w) => w.at > this.clock.now())) return;
    }
  }

  /** Completes the run's callback with `answer` ('fail' fails the run) and lets it finish. */
  async finish(runId: string, answer = 'done'): Promise<void> {
    const ops = await this.engine.getOperations(runId);
    const callback = ops.find((op) => op.Type === 'CALLBACK' && op.Status === 'STARTED');
    const id = callback?.CallbackDetails?.CallbackId;
    if (!id) throw new Error(`run ${runId} waits on no callback`);
    await this.engine.sendCallbackSuccess(id, JSON.stringify(answer));
    await this.deliver();
  }

  run(runId: string): Promise<RunRecord | undefined> {
    return this.engine.getRun(runId);
  }

  async statuses(ids: readonly string[]): Promise<string[]> {
    return Promise.all(ids.map(async (id) => (await this.run(id))?.status ?? 'GONE'));
  }
}
