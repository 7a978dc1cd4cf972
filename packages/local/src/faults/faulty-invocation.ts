import {
  type AdmissionRequest,
  type DurableInvocation,
  FencedError,
  type InvocationOutput,
  type OpenedInvocation,
  type Operation,
  type OperationUpdate,
} from '@durable-lambda/protocol';
import type { FaultScope } from './fault-scope';
import { InjectedSlotKill } from './injected-errors';

/** What a {@link FaultyInvocation} asks of the driver running it. */
export interface InvocationFaultHooks {
  /**
   * Runs a second invocation of the same run past this one's lease, and resolves once it has
   * ended. Absent for an invocation that is itself the second of a race.
   */
  race?: () => Promise<void>;
}

const STEP_ENDS = new Set(['SUCCEED', 'FAIL', 'RETRY']);

/**
 * One invocation, as the SDK sees it, that may die (`killBeforeStep`, `killAfterStep`,
 * `killInCheckpoint`) or be overtaken by a second invocation of its run (`race`). A run under
 * `concurrency` may also die in its admission (`killInCheckpoint`: after its slot taken or its
 * queue entry written landed, before the admission is recorded) and, once admitted, between its
 * end and its slot's release.
 *
 * A killed invocation is a process that died: its checkpoint never answers the SDK (it rejects
 * with the protocol's {@link FencedError}, so the runtime stops quietly and writes nothing more),
 * and it is never closed or aborted. Its lease must lapse, and the run be recovered by the
 * lease's safety wake-up or by the reconciler.
 */
/** What a killed invocation answers. */
const KILLED = { Status: 'STOPPED', reason: 'killed by an injected fault' } as const;

export class FaultyInvocation implements DurableInvocation, OpenedInvocation {
  /** Admission under `concurrency`, when the inner invocation admits runs. */
  readonly admit?: (request: AdmissionRequest) => Promise<boolean>;
  private dead = false;
  /** The run asked for admission in this invocation (it holds a slot when its handler runs). */
  private admitting = false;

  constructor(
    private readonly inner: OpenedInvocation,
    private readonly scope: FaultScope,
    /** The 0-based index of this invocation of its run. */
    readonly index: number,
    private readonly hooks: InvocationFaultHooks = {},
  ) {
    const admit = inner.invocation.admit;
    if (admit) this.admit = (request) => this.admitOrDie(request, (r) => admit.call(inner.invocation, r));
  }

  /** Admission that may die at its slot write (armed here, fired by the `FaultyStore`). */
  private async admitOrDie(
    request: AdmissionRequest,
    admit: (request: AdmissionRequest) => Promise<boolean>,
  ): Promise<boolean> {
    if (this.dead) throw this.death();
    this.admitting = true;
    const key = `#${this.index}|admit`;
    const armed = this.scope.roll('killInCheckpoint', this.runId, key, {
      invocation: this.index,
      detail: `admission under ${admissionKeys(request)} (dies at its slot write)`,
    });
    if (armed) this.scope.armSlotKill(this.runId);
    let admitted: boolean;
    try {
      admitted = await admit(request);
    } catch (error) {
      this.scope.disarmSlotKill(this.runId);
      if (error instanceof InjectedSlotKill) throw this.die();
      throw error;
    }
    // Armed but no slot write came (the run held its slot already): it dies once admitted.
    if (armed && this.scope.disarmSlotKill(this.runId)) throw this.die();
    return admitted;
  }

  /** True once an injected fault killed this invocation. */
  get killed(): boolean {
    return this.dead;
  }

  get invocation(): DurableInvocation {
    return this;
  }

  get runId(): string {
    return this.inner.invocation.runId;
  }

  get incarnation(): string | undefined {
    return this.inner.invocation.incarnation;
  }

  get functionName(): string {
    return this.inner.invocation.functionName;
  }

  get input(): string | undefined {
    return this.inner.invocation.input;
  }

  get operations(): readonly Operation[] {
    return this.inner.invocation.operations;
  }

  get previousInvocationLost(): boolean {
    return this.inner.invocation.previousInvocationLost;
  }

  get lostInvocations(): number {
    return this.inner.invocation.lostInvocations;
  }

  now(): number {
    return this.inner.invocation.now();
  }

  remainingTimeMs(): number {
    return this.inner.invocation.remainingTimeMs();
  }

  /** A dead invocation's process is gone: what it publishes is never written. */
  publish(state: string): void {
    if (this.dead) return;
    this.inner.invocation.publish?.(state);
  }

  /** Likewise for search tags: a dead invocation writes none. */
  tag(tags: Readonly<Record<string, string>>): void {
    if (this.dead) return;
    this.inner.invocation.tag?.(tags);
  }

  async checkpoint(updates: readonly OperationUpdate[]): Promise<readonly Operation[]> {
    if (this.dead) throw this.death();
    const first = updates[0];
    const key = `#${this.index}|${first?.Id}:${first?.Action}`;
    const at = (update: OperationUpdate | undefined) => ({
      invocation: this.index,
      ...(update ? { operationId: update.Id, detail: `${update.Type} ${update.Action}` } : {}),
    });
    if (this.hooks.race && this.scope.roll('race', this.runId, key, at(first))) {
      // Paused here past the lease while another invocation runs; the write below is then fenced.
      await this.hooks.race();
    }
    const start = updates.find((u) => u.Type === 'STEP' && u.Action === 'START');
    if (start && this.scope.roll('killBeforeStep', this.runId, `#${this.index}|${start.Id}:START`, at(start))) {
      return this.writeThenDie(updates);
    }
    const end = updates.find((u) => u.Type === 'STEP' && STEP_ENDS.has(u.Action));
    if (end && this.scope.roll('killAfterStep', this.runId, `#${this.index}|${end.Id}:${end.Action}`, at(end))) {
      throw this.die();
    }
    if (this.scope.roll('killInCheckpoint', this.runId, key, at(first))) {
      return this.writeThenDie(updates);
    }
    return this.inner.invocation.checkpoint(updates);
  }

  refresh(): Promise<readonly Operation[]> {
    if (this.dead) return Promise.reject(this.death());
    return this.inner.invocation.refresh();
  }

  /**
   * A dead process records nothing: the lease lapses instead. The updates the end carries (a
   * step's outcome written behind, a long wait's START) meet the same faults as in a checkpoint.
   */
  async close(output: InvocationOutput): Promise<unknown> {
    if (this.dead) return KILLED;
    const updates = output.Updates ?? [];
    const first = updates[0];
    if (first) {
      const key = `#${this.index}|${first.Id}:${first.Action}`;
      const at = (update: OperationUpdate) => ({
        invocation: this.index,
        operationId: update.Id,
        detail: `${update.Type} ${update.Action} (with the end)`,
      });
      if (this.hooks.race && this.scope.roll('race', this.runId, key, at(first))) await this.hooks.race();
      const end = updates.find((u) => u.Type === 'STEP' && STEP_ENDS.has(u.Action));
      if (end && this.scope.roll('killAfterStep', this.runId, `#${this.index}|${end.Id}:${end.Action}`, at(end))) {
        this.die();
        return KILLED;
      }
      if (this.scope.roll('killInCheckpoint', this.runId, key, at(first))) {
        await this.inner.close(output).catch(() => undefined);
        this.die();
        return KILLED;
      }
    }
    const ends = output.Status === 'SUCCEEDED' || output.Status === 'FAILED';
    if (
      this.admitting &&
      ends &&
      this.scope.roll('killInCheckpoint', this.runId, `#${this.index}|end:releaseSlot`, {
        invocation: this.index,
        detail: `${output.Status} end, dies before its slot is released`,
      })
    ) {
      // The end is recorded; the process dies at its slot's release (or after the end, if none).
      this.scope.armSlotKill(this.runId);
      await this.inner.close(output).catch(() => undefined);
      this.scope.disarmSlotKill(this.runId);
      this.die();
      return KILLED;
    }
    return this.inner.close(output);
  }

  async abort(error: unknown): Promise<void> {
    if (this.dead) return;
    await this.inner.abort(error);
  }

  /** The write reaches the store (or fails on its own); either way the process is gone after. */
  private async writeThenDie(updates: readonly OperationUpdate[]): Promise<never> {
    await this.inner.invocation.checkpoint(updates).catch(() => undefined);
    throw this.die();
  }

  private die(): FencedError {
    this.dead = true;
    return this.death();
  }

  private death(): FencedError {
    return new FencedError(`injected fault: invocation ${this.index} of run ${this.runId} was killed`);
  }
}

/** The keys an admission request names, for a fault's detail (`concurrency a`, `throttle b`). */
function admissionKeys(request: AdmissionRequest): string {
  const gates = Object.entries(request) as Array<[string, { key: string } | undefined]>;
  return gates.flatMap(([gate, value]) => (value ? [`${gate} ${value.key}`] : [])).join(', ');
}
