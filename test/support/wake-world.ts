import {
  Engine,
  type EngineOptions,
  type Invoker,
  MemoryStore,
  type ReconcileReport,
  type RunRecord,
  type Store,
  type WakeRequest,
  wakeEvent,
} from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import { type DurableLambdaHandler, finishOpened, getDurableEntry } from '@durable-lambda/sdk';

/** A call a fault rule may refuse. */
export type FaultPoint =
  | { kind: 'wakeAt'; request: WakeRequest }
  | { kind: 'invoke'; functionName: string }
  | { kind: 'store'; method: string; args: unknown[] };

/** A throttling error shaped like the AWS SDK's. */
export class Throttled extends Error {
  override readonly name = 'ThrottlingException';
  readonly code = 'throttled';
}

/** Decides for each outside call whether it fails: `throw` (before it happens) or `lost` (after). */
export type FaultRule = (point: FaultPoint) => 'throw' | 'lost' | 'drop' | undefined;

/**
 * A world that runs durable functions ONLY as the deployed system would: an invocation happens
 * when a wake-up fires or an invoke is delivered (each failed delivery retried twice, like
 * Lambda's asynchronous retries), and nothing else looks at the store except the reconciler,
 * run every minute of virtual time. A run that finishes here was not rescued by a test's scan.
 */
export class WakeWorld {
  readonly clock = new VirtualClock(Date.UTC(2026, 0, 1));
  readonly memory = new MemoryStore(this.clock);
  readonly engine: Engine;
  readonly functions = new Map<string, DurableLambdaHandler>();
  readonly reports: ReconcileReport[] = [];
  /** Invocations per run. */
  readonly invocations = new Map<string, number>();
  private readonly queue: { at: number; runId: string; reason?: string }[] = [];
  rule: FaultRule = () => undefined;
  /** Invocations abandoned mid-run (their process "died"); they never close. */
  abandoned = 0;

  /**
   * `invokerKnowsFunctions: false` is an invoker that cannot tell which functions exist (Lambda):
   * an invoke of an unknown one fails only when it is sent.
   */
  constructor(engineOptions: Partial<EngineOptions> = {}, options: { invokerKnowsFunctions?: boolean } = {}) {
    const faulty = (kind: FaultPoint) => this.rule(kind);
    const store = faultyStore(this.memory, (method, args) => faulty({ kind: 'store', method, args }));
    const invoker: Invoker = {
      ...(options.invokerKnowsFunctions === false ? {} : { knows: (name: string) => this.functions.has(name) }),
      invoke: async (functionName, event) => {
        const verdict = faulty({ kind: 'invoke', functionName });
        if (verdict === 'throw') throw new Throttled('Rate exceeded');
        if (!this.functions.has(functionName)) {
          throw Object.assign(new Error(`Function not found: ${functionName}`), { code: 'function_not_found' });
        }
        if (verdict === 'drop') return;
        this.queue.push({ at: this.clock.now(), runId: (event as ReturnType<typeof wakeEvent>).durableLambda.runId });
      },
    };
    this.engine = new Engine({
      store,
      clock: this.clock,
      invoker,
      waker: {
        wakeAt: async (request) => {
          const verdict = faulty({ kind: 'wakeAt', request });
          if (verdict === 'throw') throw new Throttled('Rate exceeded');
          if (verdict !== 'drop') this.queue.push({ at: request.at, runId: request.runId, reason: request.reason });
          if (verdict === 'lost') throw new Throttled('response lost');
        },
        cancel: async (request) => {
          const i = this.queue.findIndex(
            (q) => q.runId === request.runId && q.at === request.at && q.reason === request.reason,
          );
          if (i >= 0) this.queue.splice(i, 1);
        },
      },
      ...engineOptions,
    });
  }

  /** Registers a function and returns its name. */
  register(name: string, handler: DurableLambdaHandler): string {
    this.functions.set(name, handler);
    return name;
  }

  /** Starts a run like a plain event would (the run, then its first wake-up). */
  async start(functionName: string, input?: unknown): Promise<string> {
    const serialized = input === undefined ? undefined : JSON.stringify(input);
    const { run } = await this.engine.startRun({
      functionName,
      ...(serialized === undefined ? {} : { input: serialized }),
    });
    await this.engine.invoker?.invoke(functionName, wakeEvent(run.runId)).catch(() => undefined);
    return run.runId;
  }

  /**
   * Delivers wake-ups in time order until `runId` ends; with nothing queued, a minute passes and
   * the reconciler runs. Fails as stranded when neither finds anything to do, or as a runaway.
   */
  async runUntilDone(runId: string, options: { maxInvocations?: number; idle?: () => Promise<boolean> } = {}) {
    const max = options.maxInvocations ?? 200;
    let total = 0;
    for (;;) {
      const run = this.memory.peekRun(runId);
      if (!run) throw new Error(`run ${runId} disappeared`);
      if (run.status !== 'RUNNING' && !this.pendingParent(run)) return run;
      this.queue.sort((a, b) => a.at - b.at);
      const next = this.queue.shift();
      if (next) {
        if (next.at > this.clock.now()) this.clock.advanceTo(next.at);
        if (++total > max) throw new Error(`runaway: more than ${max} deliveries`);
        await this.deliver(next.runId);
        continue;
      }
      if (options.idle && (await options.idle())) continue;
      const before = this.clock.now();
      this.clock.advanceTo(before + 60_000);
      const report = await this.engine.reconcile();
      this.reports.push(report);
      if (report.woken.length === 0 && report.parentsNotified.length === 0 && !this.waitsOnTime(before)) {
        throw new Error(`stranded: run ${runId} is ${run.status} and nothing will wake it`);
      }
    }
  }

  /** Every reconcile pass's woken entries, flattened. */
  woken(): ReconcileReport['woken'] {
    return this.reports.flatMap((r) => r.woken);
  }

  private pendingParent(run: RunRecord): boolean {
    return run.parent !== undefined && !run.parentNotified;
  }

  /** Something in the store is due later (a lease, a wait): time must pass, not a stranding. */
  private waitsOnTime(now: number): boolean {
    return this.memory.runIds().some((id) => {
      const r = this.memory.peekRun(id);
      return r?.dueAt !== undefined && r.dueAt > now - 120_000;
    });
  }

  /** One delivery of a wake-up event, retried twice on an error like Lambda's async retries. */
  private async deliver(runId: string): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await this.invokeOnce(runId);
        return;
      } catch {
        // Lambda retries a failed asynchronous invocation (twice).
      }
    }
  }

  private async invokeOnce(runId: string): Promise<void> {
    const run = this.memory.peekRun(runId);
    if (!run) return;
    const handler = this.functions.get(run.functionName);
    if (!handler) throw new Error(`no function ${run.functionName}`);
    const session = await this.engine.openRun(runId, { remainingTimeMs: () => 15 * 60_000 });
    if (!session) return;
    this.invocations.set(runId, (this.invocations.get(runId) ?? 0) + 1);
    const result = await getDurableEntry(handler).execute(
      session,
      { functionName: run.functionName },
      { inProcessWaitMs: 0, logSink: () => {} },
    );
    await finishOpened(session, result);
  }
}

/** A store whose calls pass through `rule` first: `throw` fails the call, `lost` makes it and then fails. */
function faultyStore(inner: Store, rule: (method: string, args: unknown[]) => string | undefined): Store {
  return new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const verdict = rule(String(property), args);
        if (verdict === 'throw') throw new Throttled(`store ${String(property)} throttled`);
        const out = await value.apply(target, args);
        if (verdict === 'lost') throw new Throttled(`store ${String(property)}: response lost`);
        return out;
      };
    },
  });
}

/** A rule failing the first `times` calls that match `match`. */
export function failFirst(
  times: number,
  match: (point: FaultPoint) => boolean,
  verdict: 'throw' | 'lost' | 'drop' = 'throw',
): FaultRule {
  let left = times;
  return (point) => {
    if (left > 0 && match(point)) {
      left--;
      return verdict;
    }
    return undefined;
  };
}
