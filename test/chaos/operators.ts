import type { RunRecord, Store } from '@durable-lambda/engine';
import { isInjectedFault, type TestDriver } from '@durable-lambda/local';
import type { Operation } from '@durable-lambda/protocol';
import type { Execution } from './outside-world';

/**
 * What the operator does to a seed's main run, chosen by the seed:
 * - `plain`: nothing (the run must succeed with its expected result);
 * - `cancel`, `cancel-tree`: cancels the run (alone, or with its child runs) from inside a step
 *   body, while that invocation holds the lease;
 * - `retry-from`: retries the RUNNING run from one of its stored steps or contexts, mid-invocation;
 * - `skip`: skips a step waiting to retry, with the result it would have returned, mid-invocation;
 * - `wake-now`: ends the run's waits and backoffs at once, mid-invocation;
 * - `timeout`: the run has an execution timeout and slow step bodies (the virtual clock moves on
 *   inside them, and the reconciler may pass meanwhile), so its deadline passes mid-invocation;
 *   a run that ended TIMED_OUT or FAILED is retried by the operator, up to twice;
 * - `recreate`: the run is started with a run key, ends (cancelled from inside a step body whose
 *   invocation is still in flight, or finished), its retention passes, and the key starts a new run.
 */
export type OperatorMode =
  | 'plain'
  | 'cancel'
  | 'cancel-tree'
  | 'retry-from'
  | 'skip'
  | 'wake-now'
  | 'timeout'
  | 'recreate';

/**
 * Seeds in twenty: 7 plain, 2 of each other mode but one wake-now, interleaved so that a few
 * dozen consecutive seeds (the DynamoDB suite's default) meet every kind.
 */
const MODE_TABLE: readonly OperatorMode[] = [
  'plain',
  'cancel',
  'plain',
  'skip',
  'plain',
  'cancel-tree',
  'plain',
  'timeout',
  'recreate',
  'retry-from',
  'plain',
  'cancel',
  'wake-now',
  'plain',
  'cancel-tree',
  'timeout',
  'plain',
  'recreate',
  'retry-from',
  'skip',
];

/** How long a finished run is kept in a `recreate` seed, virtual ms. */
export const RECREATE_RETENTION_MS = 3_600_000;

/** Results a skipped step is given: what its body returns (by step name, for the seed's input id). */
const SKIP_RESULTS: Record<string, (id: number) => unknown> = {
  reserve: (id) => id * 10,
  'sum-b': (id) => id + 2,
  'sq-3': () => 9,
  'q-2': () => 2,
  p2: () => 'two',
  'all-b': () => 'b',
};

/** A small seeded generator (mulberry32): the operator's choices replay with the seed. */
export function seededRandom(seed: number): () => number {
  let a = (seed ^ 0x5bd1e995) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The mode of a seed; the workflow is `seed % 3`, so the mode is picked from the rest. */
export function operatorModeFor(seed: number, workflow: string): OperatorMode {
  // DURABLE_CHAOS_OPERATORS=0: every seed plain (the suites as they were before the operator).
  if (process.env.DURABLE_CHAOS_OPERATORS === '0') return 'plain';
  const mode = MODE_TABLE[Math.floor(seed / 3) % MODE_TABLE.length] as OperatorMode;
  // Waking the combinators' 7-day race early lets the wait win: another result, not a fault.
  return mode === 'wake-now' && workflow === 'combinators' ? 'skip' : mode;
}

/** What the operator did in one seed. */
export interface OperatorTally {
  /** Actions that landed, by kind (cancel, cancel_tree, retry, skip, wake_now). */
  actions: Record<string, number>;
  /** Actions refused by the engine as not applicable (the run had moved on). */
  refused: number;
  /** Runs that were re-created under a key whose run had expired. */
  recreated: number;
}

/**
 * The operator of one seed: acts from inside step bodies (the world's hook) at the execution the
 * seed picks, through the engine (so under the store's injected faults, each action repeated
 * with its action id until it lands), and retries ended runs after (`timeout`).
 */
export class Operator {
  readonly tally: OperatorTally = { actions: {}, refused: 0, recreated: 0 };
  /** The main run's current record (its id, and its incarnation once re-created). */
  main: RunRecord | undefined;
  /** Whether a cancel landed on the main run (it must then end CANCELLED). */
  cancelled = false;
  private readonly random: () => number;
  private readonly at: number;
  private executions = 0;
  private acted = false;
  private nextId = 0;

  constructor(
    readonly seed: number,
    readonly mode: OperatorMode,
    private readonly driver: TestDriver,
    /** The store beneath the faults, for the operator's own reads. */
    private readonly raw: Store,
    private readonly input: { id: number },
    /** The main run's key in a `recreate` seed. */
    readonly runKey: string,
    /** The seed's workflow. */
    private readonly workflow: string,
  ) {
    this.random = seededRandom(seed);
    this.at = 1 + Math.floor(this.random() * 10);
  }

  /** Runs inside each step body: the mode's action at the chosen execution. */
  async during(execution: Execution): Promise<void> {
    this.executions += 1;
    const main = this.main;
    if (!main) return;
    if (this.mode === 'timeout') return this.slowBody();
    if (this.acted || this.executions < this.at) return;
    if (this.mode === 'recreate') {
      // Only from the main run's own invocation: the old run's invocation stays in flight. Only
      // where one body runs at a time (the order workflow's run): a body beside it, fenced by the
      // cancel, would end the invocation while this one is between the old run's expiry and the
      // new run's creation, and the driver would find no run under the id.
      if (execution.runId !== main.runId || this.workflow !== 'order' || this.random() < 0.5) return;
      this.acted = true;
      return this.recreateInFlight(main);
    }
    if (this.mode === 'skip') return this.skipWaiting(main);
    if (this.mode === 'wake-now') {
      // Tried again at each later body until something waits on time (a refusal changes nothing).
      this.acted = await this.act('wake_now', () => this.driver.engine.wakeRun(main.runId));
      return;
    }
    this.acted = true;
    if (this.mode === 'cancel' || this.mode === 'cancel-tree') {
      const tree = this.mode === 'cancel-tree';
      const done = await this.act(tree ? 'cancel_tree' : 'cancel', (actionId) =>
        this.driver.engine.cancelRun(main.runId, { tree, actionId }),
      );
      this.cancelled ||= done;
    } else if (this.mode === 'retry-from') {
      const ops = (await this.raw.loadOperations(main.runId)).filter((o) => o.Type === 'STEP' || o.Type === 'CONTEXT');
      const from = ops[Math.floor(this.random() * ops.length)];
      if (!from) return;
      await this.act('retry', (actionId) =>
        this.driver.engine.retryRun(main.runId, { fromOperationId: from.Id, actionId }),
      );
    }
  }

  /** After the main run ended: a `timeout` seed's operator retries a run that timed out or failed, up to twice. */
  async afterEnd(ended: RunRecord, retries: number): Promise<boolean> {
    if (this.mode !== 'timeout' || retries >= 2) return false;
    if (ended.status !== 'TIMED_OUT' && ended.status !== 'FAILED') return false;
    return this.act('retry', (actionId) => this.driver.engine.retryRun(ended.runId, { actionId }));
  }

  /** A `recreate` seed whose run finished: its retention passes, and its key starts a new run. */
  async recreateAfterEnd(start: () => Promise<RunRecord>): Promise<RunRecord> {
    const before = this.main as RunRecord;
    const stored = await this.raw.getRun(before.runId);
    // Within its retention (the store still holds it), the key names the same run.
    if (stored) {
      const same = await start();
      if (same.incarnation !== stored.incarnation) {
        throw new Error(`run key ${this.runKey} started a new run while its run ${stored.runId} is kept`);
      }
    }
    this.driver.clock.advanceTo((stored?.expiresAt ?? this.driver.clock.now()) + 1_000);
    return this.recreate(start);
  }

  /** Cancels the main run from inside its own invocation, lets its retention pass, starts the key again. */
  private async recreateInFlight(main: RunRecord): Promise<void> {
    const landed = await this.act('cancel', (actionId) => this.driver.engine.cancelRun(main.runId, { actionId }));
    if (!landed) return;
    const ended = await this.raw.getRun(main.runId);
    this.driver.clock.advanceTo((ended?.expiresAt ?? this.driver.clock.now()) + 1_000);
    await this.recreate(() =>
      this.driver.start(ended?.functionName ?? main.functionName, this.input, this.startOptions),
    );
  }

  private async recreate(start: () => Promise<RunRecord>): Promise<RunRecord> {
    const before = this.main as RunRecord;
    const again = await start();
    if (again.incarnation === before.incarnation) throw new Error('an expired run key named its old run');
    this.tally.recreated += 1;
    this.main = again;
    return again;
  }

  /** How the main run is started in this seed. */
  get startOptions(): { runKey?: string; executionTimeoutSeconds?: number } {
    if (this.mode === 'recreate') return { runKey: this.runKey };
    if (this.mode === 'timeout')
      return { executionTimeoutSeconds: 120 + Math.floor(seededRandom(this.seed + 7)() * 780) };
    return {};
  }

  /** A slow body: the clock moves on while it runs, and the reconciler may pass meanwhile. */
  private async slowBody(): Promise<void> {
    if (this.random() < 0.5) this.driver.clock.advanceBy(5_000 + Math.floor(this.random() * 115_000));
    if (this.random() < 0.25) {
      // The deployed reconciler runs every minute, whatever invocation holds a lease.
      await this.driver.engine.reconcile().catch((error: unknown) => {
        if (!isInjectedFault(error)) throw error;
      });
    }
  }

  /** Skips the first step of the main run found waiting to retry, with the result its body returns. */
  private async skipWaiting(main: RunRecord): Promise<void> {
    const ops = await this.raw.loadOperations(main.runId);
    const waiting = ops.find(
      (o: Operation) =>
        o.Type === 'STEP' &&
        (o.Status === 'PENDING' || o.Status === 'READY') &&
        SKIP_RESULTS[o.Name ?? ''] !== undefined,
    );
    const value = waiting && SKIP_RESULTS[waiting.Name ?? '']?.(this.input.id);
    if (!waiting) return;
    this.acted = true;
    await this.act('skip', (actionId) =>
      this.driver.engine.skipStep(main.runId, waiting.Id, { actionId, result: JSON.stringify(value) }),
    );
  }

  /**
   * One operator action, repeated with its action id while an injected fault loses it (a repeat
   * of one that landed changes nothing). True when it landed; a refusal (the run moved on) is
   * counted, any other error is the engine's and thrown.
   */
  private async act(kind: string, action: (actionId: string) => Promise<unknown>): Promise<boolean> {
    const actionId = `op-${this.seed}-${++this.nextId}`;
    for (let attempt = 1; ; attempt++) {
      try {
        await action(actionId);
        this.tally.actions[kind] = (this.tally.actions[kind] ?? 0) + 1;
        return true;
      } catch (error) {
        if (isInjectedFault(error) && attempt < 10) continue;
        const code = (error as { code?: unknown }).code;
        if (typeof code === 'string' && REFUSALS.has(code)) {
          this.tally.refused += 1;
          return false;
        }
        throw error;
      }
    }
  }
}

/** The engine's answers to an action the run can no longer take. */
const REFUSALS = new Set([
  'run_state_conflict',
  'nothing_to_wake',
  'operation_state_conflict',
  'operation_not_found',
  'run_busy',
]);
