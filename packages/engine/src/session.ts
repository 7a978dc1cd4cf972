import type {
  DurableInvocation,
  InvocationOutput,
  OpenedInvocation,
  Operation,
  OperationUpdate,
} from '@durable-lambda/protocol';
import type { Clock, RunPatch, RunRecord, Store, Waker } from './ports';
import { applyUpdate, nextDue, settleDue, type UpdateLimits } from './transitions';

/** What a session needs from the engine that opened it. */
export interface SessionDeps {
  store: Store;
  waker: Waker;
  clock: Clock;
  limits: UpdateLimits;
  /** Retention after the run ends, ms. */
  retentionMs: number | undefined;
  /** Real ms the invocation may run (Lambda's remaining time). */
  remainingTimeMs: () => number;
  /** Delay before retrying a run whose invocation faulted. */
  faultRetryMs: number;
}

/**
 * One invocation's hold on a run: the operations as of its start, kept current as it
 * checkpoints, every write fenced by the lease's token. It implements the protocol the SDK
 * speaks and ends with `close` (or `abort`).
 */
export class EngineSession implements DurableInvocation, OpenedInvocation {
  private readonly ops = new Map<string, Operation>();
  /** Operations changed by time alone (waits come due), written with the next commit. */
  private readonly settled = new Set<string>();
  private ended = false;

  constructor(
    private run: RunRecord,
    operations: readonly Operation[],
    readonly previousInvocationLost: boolean,
    private readonly deps: SessionDeps,
  ) {
    for (const op of operations) this.ops.set(op.Id, op);
    this.settleDue();
  }

  get invocation(): DurableInvocation {
    return this;
  }

  get lostInvocations(): number {
    return this.run.lostInvocations;
  }

  get runId(): string {
    return this.run.runId;
  }

  get functionName(): string {
    return this.run.functionName;
  }

  get input(): string | undefined {
    return this.run.input;
  }

  get operations(): readonly Operation[] {
    return [...this.ops.values()].map((op) => structuredClone(op));
  }

  now(): number {
    return this.deps.clock.now();
  }

  remainingTimeMs(): number {
    return this.deps.remainingTimeMs();
  }

  async checkpoint(updates: readonly OperationUpdate[]): Promise<readonly Operation[]> {
    this.assertOpen();
    const now = this.now();
    this.settleDue();
    const changed = new Map<string, Operation>();
    const lookup = (id: string) => changed.get(id) ?? this.ops.get(id);
    for (const update of updates) {
      changed.set(
        update.Id,
        applyUpdate(lookup(update.Id), update, now, (id) => lookup(id) !== undefined, this.deps.limits),
      );
    }
    if (changed.size === 0 && this.settled.size === 0) return [];
    await this.commit([...changed.values()]);
    for (const op of changed.values()) this.ops.set(op.Id, op);
    return [...changed.values()];
  }

  async refresh(): Promise<readonly Operation[]> {
    // Outside writers (callback completions) change operations while we hold the lease.
    for (const op of await this.deps.store.loadOperations(this.run.runId)) {
      if (!this.settled.has(op.Id)) this.ops.set(op.Id, op);
    }
    this.settleDue();
    return this.operations;
  }

  async close(output: InvocationOutput): Promise<InvocationOutput> {
    this.assertOpen();
    this.ended = true;
    const now = this.now();
    this.settleDue();
    if (output.Status === 'PENDING') {
      const due = nextDue(this.ops.values());
      await this.commit([], { leaseExpiresAt: null, nextWakeAt: due ?? null });
      if (due !== undefined) await this.deps.waker.wakeAt({ ...this.target(), at: due, reason: 'due' });
      return { Status: 'PENDING' };
    }
    const execution = this.ops.get('0');
    const finished: Operation | undefined = execution && { ...execution, Status: output.Status, EndTimestamp: now };
    const patch: RunPatch = {
      status: output.Status,
      endedAt: now,
      leaseExpiresAt: null,
      nextWakeAt: null,
      ...(output.Result === undefined ? {} : { result: output.Result }),
      ...(output.Error === undefined ? {} : { error: output.Error }),
      ...(this.deps.retentionMs === undefined ? {} : { expiresAt: now + this.deps.retentionMs }),
    };
    await this.commit(finished ? [finished] : [], patch);
    return output;
  }

  async abort(_error: unknown): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    // Best effort: if the store is what failed, the lease lapses and the safety wake-up resumes.
    const at = this.now() + this.deps.faultRetryMs;
    try {
      await this.commit([], { leaseExpiresAt: null, nextWakeAt: at });
      await this.deps.waker.wakeAt({ ...this.target(), at, reason: 'due' });
    } catch {
      // The lease's safety wake-up covers this.
    }
  }

  private target(): { runId: string; functionName: string } {
    return { runId: this.run.runId, functionName: this.run.functionName };
  }

  private assertOpen(): void {
    if (this.ended) throw new Error(`invocation of run ${this.run.runId} already ended`);
  }

  private settleDue(): void {
    const now = this.now();
    for (const op of this.ops.values()) {
      const next = settleDue(op, now);
      if (next) {
        this.ops.set(op.Id, next);
        this.settled.add(op.Id);
      }
    }
  }

  private async commit(operations: Operation[], run?: RunPatch): Promise<void> {
    const ids = new Set(operations.map((op) => op.Id));
    const carried: Operation[] = [];
    for (const id of this.settled) {
      const op = this.ops.get(id);
      if (op && !ids.has(id)) carried.push(op);
    }
    await this.deps.store.commit(this.run.runId, this.run.fence, {
      operations: [...carried, ...operations],
      ...(run ? { run } : {}),
    });
    this.settled.clear();
  }
}
