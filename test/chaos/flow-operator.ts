/**
 * The operator of a flow seed: acts on the keyed runs from inside step bodies (so while an
 * invocation holds its lease, and while other runs of the key wait QUEUED), through the engine and
 * under the seed's faults:
 * - `plain`: nothing;
 * - `cancel`: cancels a run of the world, a QUEUED one when there is one (its queue entry and any
 *   slot must go with it), else a RUNNING one (its slot is handed over);
 * - `retry-from`: retries a RUNNING run from its first step (it keeps its slot);
 * - `skip`: skips a job's step waiting to retry, with the result its body returns;
 * - `timeout`: direct runs have execution timeouts and slow bodies (the clock moves on inside them,
 *   the reconciler may pass meanwhile), so runs time out RUNNING or QUEUED; after the world is
 *   quiet, up to two runs that timed out are retried (they take a slot again).
 */
import type { RunRecord, Store } from '@durable-lambda/engine';
import { isInjectedFault, type TestDriver } from '@durable-lambda/local';
import { jobOf } from './flow-workflow';
import type { OperatorTally } from './operators';

/** What the operator does in a flow seed. */
export type FlowMode = 'plain' | 'cancel' | 'retry-from' | 'skip' | 'timeout';

const FLOW_MODES: readonly FlowMode[] = [
  'plain',
  'cancel',
  'timeout',
  'skip',
  'plain',
  'retry-from',
  'cancel',
  'timeout',
];

/** The mode of a flow seed. */
export function flowModeFor(seed: number): FlowMode {
  if (process.env.DURABLE_CHAOS_OPERATORS === '0') return 'plain';
  return FLOW_MODES[Math.floor(seed / 3) % FLOW_MODES.length] as FlowMode;
}

/** The engine's answers to an action the run can no longer take. */
const REFUSALS = new Set([
  'run_state_conflict',
  'nothing_to_wake',
  'operation_state_conflict',
  'operation_not_found',
  'run_busy',
]);

export class FlowOperator {
  readonly tally: OperatorTally = { actions: {}, refused: 0, recreated: 0 };
  /** Errors of the engine's own (not injected, not a refusal), to report as violations. */
  readonly errors: string[] = [];
  private executions = 0;
  private acted = false;
  private nextId = 0;
  private readonly at: number;

  constructor(
    readonly seed: number,
    readonly mode: FlowMode,
    private readonly driver: TestDriver,
    /** The store beneath the faults, for the operator's own reads. */
    private readonly raw: Store,
    private readonly random: () => number,
  ) {
    this.at = 2 + Math.floor(random() * 8);
  }

  /** The execution timeout of a direct start, seconds (only in `timeout` seeds). */
  timeoutSeconds(): number | undefined {
    return this.mode === 'timeout' ? 90 + Math.floor(this.random() * 500) : undefined;
  }

  /** Runs inside each step body. */
  async during(): Promise<void> {
    this.executions += 1;
    if (this.mode === 'timeout') return this.slowBody();
    if (this.mode === 'plain' || this.acted || this.executions < this.at) return;
    const runs = await this.runs();
    if (this.mode === 'cancel') {
      const queued = runs.filter((r) => r.status === 'QUEUED');
      const pool = queued.length ? queued : runs.filter((r) => r.status === 'RUNNING');
      const target = pool[Math.floor(this.random() * pool.length)];
      if (!target) return;
      this.acted = true;
      await this.act('cancel', (actionId) => this.driver.engine.cancelRun(target.runId, { actionId }));
    } else if (this.mode === 'retry-from') {
      for (const run of runs.filter((r) => r.status === 'RUNNING')) {
        const from = (await this.raw.loadOperations(run.runId)).find((o) => o.Type === 'STEP');
        if (!from) continue;
        this.acted = true;
        await this.act('retry', (actionId) =>
          this.driver.engine.retryRun(run.runId, { fromOperationId: from.Id, actionId }),
        );
        return;
      }
    } else if (this.mode === 'skip') {
      for (const run of runs.filter((r) => r.status === 'RUNNING')) {
        const ops = await this.raw.loadOperations(run.runId);
        // Only the job's own steps: a callback's submitter skipped never hands its callback out.
        const waiting = ops.find(
          (o) =>
            o.Type === 'STEP' && (o.Name === 'a' || o.Name === 'b') && (o.Status === 'PENDING' || o.Status === 'READY'),
        );
        if (!waiting || run.input === undefined) continue;
        const { id } = jobOf(JSON.parse(run.input));
        this.acted = true;
        await this.act('skip', (actionId) =>
          this.driver.engine.skipStep(run.runId, waiting.Id, {
            actionId,
            result: JSON.stringify(`${waiting.Name}-${id}`),
          }),
        );
        return;
      }
    }
  }

  /** After the world is quiet, in a `timeout` seed: retries up to two runs that timed out. True if one was. */
  async afterQuiet(round: number): Promise<boolean> {
    if (this.mode !== 'timeout' || round >= 2) return false;
    const timedOut = (await this.runs()).filter((r) => r.status === 'TIMED_OUT').slice(0, 2);
    let any = false;
    for (const run of timedOut) {
      any = (await this.act('retry', (actionId) => this.driver.engine.retryRun(run.runId, { actionId }))) || any;
    }
    return any;
  }

  private async runs(): Promise<RunRecord[]> {
    const runs = await Promise.all(this.driver.runIds().map((id) => this.raw.getRun(id)));
    return runs.filter((r): r is RunRecord => r !== undefined);
  }

  private async slowBody(): Promise<void> {
    if (this.random() < 0.5) this.driver.clock.advanceBy(5_000 + Math.floor(this.random() * 55_000));
    if (this.random() < 0.25) {
      await this.driver.engine.reconcile().catch((error: unknown) => {
        if (!isInjectedFault(error)) this.errors.push(`reconcile: ${String(error)}`);
      });
    }
  }

  /** One action, repeated with its action id while an injected fault loses it; true when it landed. */
  private async act(kind: string, action: (actionId: string) => Promise<unknown>): Promise<boolean> {
    const actionId = `flow-op-${this.seed}-${++this.nextId}`;
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
        this.errors.push(`${kind}: ${error instanceof Error ? error.message : String(error)}`);
        return false;
      }
    }
  }
}
