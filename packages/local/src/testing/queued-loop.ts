import { setImmediate } from 'node:timers';
import {
  type Engine,
  type Invoker,
  isWakeEvent,
  type RunRecord,
  reconcileAll,
  type Store,
  type Waker,
  wakeEvent,
} from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import { isInjectedFault } from '../faults/injected-errors';
import type { VirtualClock } from '../virtual-clock';
import { TestRunStoppedError } from './run-errors';
import { type Delivery, WakeQueue } from './wake-queue';

/** Turns of the event loop given to test code (sending callbacks) before time skips ahead. */
const IDLE_TURNS = 3;
/** Passes of the reconciler that wake nothing, in a row, before a run counts as stranded. */
const STRANDED_AFTER_PASSES = 30;
/** Lambda retries a failed asynchronous invocation twice, about one and then two minutes later. */
const LAMBDA_RETRY_MS = 60_000;
const LAMBDA_RETRIES = 2;

/** What the loop needs from its driver. */
export interface QueuedLoopDeps {
  clock: VirtualClock;
  intervalMs: number;
  graceMs: number;
  /** The runs of this test; the loop adds child runs as it learns of them. */
  known: Set<string>;
  /** Signals outside activity to a driver waiting for test code. */
  wakeUp: () => void;
}

/** How one `runUntilDone` is bounded and reported. */
export interface RunLimits {
  maxInvocations: number;
  /** Counts one more invocation; returns the total so far. */
  count: () => number;
  describeFaults: () => string | undefined;
  /** A counter of outside activity (wake-ups asked, callbacks sent, writes). */
  activity: () => number;
  /** Resolves once `activity()` differs from `since`. */
  waitForActivity: (since: number) => Promise<void>;
}

/** An invocation that threw (Lambda retried its event). */
export interface InvocationFailure {
  runId: string;
  at: number;
  error: unknown;
}

/**
 * The event-driven loop of the test driver: wake-ups and invokes wait in a {@link WakeQueue} in
 * virtual time and invoke their run when they fire. When nothing is queued the clock moves to
 * the next pass of the reconciler and `engine.reconcile()` runs; the loop never looks for due
 * runs itself, so a run that only the reconciler can save must be saved by it.
 */
export class QueuedLoop {
  readonly queue = new WakeQueue();
  /** Invocations that threw, in order (injected faults included). */
  readonly failures: InvocationFailure[] = [];
  /** Invocations of the reconciler made (each pages through every due run). */
  reconcilePasses = 0;
  /** Runs the reconciler woke, over every pass. */
  reconcileWoken = 0;
  private engine: Engine | undefined;
  private store: Store | undefined;
  private invoke: ((runId: string, allowRace: boolean) => Promise<boolean>) | undefined;

  constructor(private readonly deps: QueuedLoopDeps) {}

  /** The waker whose wake-ups land in the queue (EventBridge Scheduler, in virtual time). */
  waker(store: Store): Waker {
    return {
      wakeAt: async (request) => {
        if (await this.ours(store, request.runId)) {
          this.queue.push({ runId: request.runId, at: request.at, reason: request.reason });
        }
        this.deps.wakeUp();
      },
      cancel: async (request) => this.queue.cancel(request.runId, request.at, request.reason),
    };
  }

  /** The invoker whose asynchronous invokes land in the queue, due at once. */
  invoker(knows: (functionName: string) => boolean): Invoker {
    return {
      knows,
      invoke: async (_functionName, event) => {
        if (isWakeEvent(event)) {
          this.deps.known.add(event.durableLambda.runId);
          this.queue.push({ runId: event.durableLambda.runId, at: this.deps.clock.now(), reason: 'invoke' });
        }
        this.deps.wakeUp();
      },
    };
  }

  attach(engine: Engine, store: Store, invoke: (runId: string, allowRace: boolean) => Promise<boolean>): void {
    this.engine = engine;
    this.store = store;
    this.invoke = invoke;
  }

  /** A run was started: its function is invoked with its first event, like any async invoke. */
  async started(run: RunRecord): Promise<void> {
    const engine = this.attached().engine;
    try {
      await engine.invoker?.invoke(run.functionName, wakeEvent(run.runId));
    } catch (error) {
      // A throttled or lost first event is left to the reconciler: the new run is due at once.
      if (!isInjectedFault(error)) throw error;
    }
  }

  /** Delivers events until `runId` ends. */
  async runUntilDone(runId: string, limits: RunLimits): Promise<RunRecord> {
    const { store } = this.attached();
    let fruitless = 0;
    // The run is read again only when something may have ended it: an invocation of its own, or
    // outside code (seen after a pass of the reconciler or a wait for test code). Reads cost on DynamoDB.
    let dirty = true;
    for (;;) {
      if (dirty) {
        dirty = false;
        const main = await store.getRun(runId);
        if (!main) throw new Error(`run ${runId} disappeared`);
        if (main.status !== 'RUNNING') return main;
      }
      const due = this.queue.popDue(this.deps.clock.now());
      if (due) {
        if (limits.count() > limits.maxInvocations) throw await this.runaway(runId, limits);
        dirty = (await this.deliver(due)) && due.runId === runId;
        fruitless = 0;
        continue;
      }
      if (await this.idle()) continue;
      const next = this.queue.earliest();
      if (next) {
        this.deps.clock.advanceTo(next.at);
        continue;
      }
      const since = limits.activity();
      const outcome = await this.reconcilePass();
      dirty = true;
      if (outcome === 'woken') {
        fruitless = 0;
      } else if (outcome === 'waiting') {
        fruitless = 0;
        await limits.waitForActivity(since);
      } else if (++fruitless >= STRANDED_AFTER_PASSES) {
        throw await this.stranded(runId, limits);
      }
    }
  }

  /** Delivers one event; true when it reached an invocation (that may have changed a run). */
  private async deliver(delivery: Delivery): Promise<boolean> {
    const { store, invoke } = this.attached();
    if (!(await this.ours(store, delivery.runId))) return false;
    try {
      return await invoke(delivery.runId, true);
    } catch (error) {
      const now = this.deps.clock.now();
      this.failures.push({ runId: delivery.runId, at: now, error });
      if (delivery.retries < LAMBDA_RETRIES) {
        this.queue.push({
          runId: delivery.runId,
          reason: delivery.reason,
          at: now + LAMBDA_RETRY_MS * (delivery.retries + 1),
          retries: delivery.retries + 1,
        });
      }
      return true;
    }
  }

  /**
   * Moves the clock to the reconciler's next useful pass and runs it: the first pass at which
   * the earliest due run of this test is past the grace period (idle passes between are skipped,
   * since nothing happens in them), or one interval on when none is due.
   */
  private async reconcilePass(): Promise<'woken' | 'waiting' | 'fruitless'> {
    const { store, engine } = this.attached();
    const runs = await this.runs(store);
    let earliest: number | undefined;
    for (const run of runs) {
      if (run.dueAt !== undefined && (earliest === undefined || run.dueAt < earliest)) earliest = run.dueAt;
    }
    const { clock, intervalMs, graceMs } = this.deps;
    const now = clock.now();
    let target = now + intervalMs;
    if (earliest !== undefined && earliest + graceMs > target) {
      target = now + Math.ceil((earliest + graceMs - now) / intervalMs) * intervalMs;
    }
    clock.advanceTo(target);
    // One invocation of the deployed reconciler: it pages on while passes fill their limit, all at
    // this instant (the woken runs wait in the queue meanwhile, as their events would on Lambda).
    await reconcileAll(engine, {
      graceMs,
      maxPasses: Number.POSITIVE_INFINITY,
      between: async () => {},
      onPass: (report) => {
        this.reconcileWoken += report.woken.length;
      },
    });
    this.reconcilePasses += 1;
    if (this.queue.size > 0) return 'woken';
    if (earliest === undefined && (await this.waitsForTestCode(store, runs))) return 'waiting';
    return 'fruitless';
  }

  /** True when a run of this test waits for a callback only test code can complete. */
  private async waitsForTestCode(store: Store, runs: readonly RunRecord[]): Promise<boolean> {
    for (const run of runs) {
      if (run.status !== 'RUNNING') continue;
      const ops = await store.loadOperations(run.runId);
      if (ops.some((op: Operation) => op.Type === 'CALLBACK' && op.Status === 'STARTED')) return true;
    }
    return false;
  }

  /** A run of this test: one started here, or a child (at any depth) of one. */
  private async ours(store: Store, runId: string): Promise<boolean> {
    if (this.deps.known.has(runId)) return true;
    const run = await store.getRun(runId);
    if (!run?.parent || !(await this.ours(store, run.parent.runId))) return false;
    this.deps.known.add(runId);
    return true;
  }

  private async runs(store: Store): Promise<RunRecord[]> {
    const runs = await Promise.all([...this.deps.known].map((id) => store.getRun(id)));
    return runs.filter((run): run is RunRecord => run !== undefined);
  }

  private async idle(): Promise<boolean> {
    for (let i = 0; i < IDLE_TURNS; i++) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.queue.hasDue(this.deps.clock.now())) return true;
    }
    return false;
  }

  private async runaway(runId: string, limits: RunLimits): Promise<TestRunStoppedError> {
    return new TestRunStoppedError(
      'run_runaway',
      runId,
      `run ${runId} took more than ${limits.maxInvocations} invocations; stopped as a runaway.\n` +
        (await this.account(limits)),
    );
  }

  private async stranded(runId: string, limits: RunLimits): Promise<TestRunStoppedError> {
    return new TestRunStoppedError(
      'run_stranded',
      runId,
      `run ${runId} is stranded: it is RUNNING, nothing is queued to wake it, and ${STRANDED_AFTER_PASSES} ` +
        'passes of the reconciler in a row woke nothing.\n' +
        (await this.account(limits)),
    );
  }

  /** The seed, faults, run states and failed invocations, for a failure message. */
  private async account(limits: RunLimits): Promise<string> {
    const { store } = this.attached();
    const runs = await this.runs(store);
    const states = runs.map(
      (r) =>
        `  ${r.runId} ${r.status} dueAt=${r.dueAt} lease=${r.leaseExpiresAt} nextWakeAt=${r.nextWakeAt} ` +
        `events=${r.handledEventSeq}/${r.eventSeq} invocations=${r.invocations}`,
    );
    const failures = this.failures
      .slice(-10)
      .map((f) => `  ${f.runId} at ${f.at}: ${f.error instanceof Error ? f.error.message : String(f.error)}`);
    return [
      limits.describeFaults() ?? 'no faults injected',
      'runs:',
      ...states,
      ...(failures.length ? ['failed invocations (latest):', ...failures] : []),
    ].join('\n');
  }

  private attached(): {
    engine: Engine;
    store: Store;
    invoke: (runId: string, allowRace: boolean) => Promise<boolean>;
  } {
    if (!this.engine || !this.store || !this.invoke) throw new Error('QueuedLoop used before attach()');
    return { engine: this.engine, store: this.store, invoke: this.invoke };
  }
}
