import type { FaultKind, FaultPlan, FaultSite } from './fault-plan';

/**
 * What the fault decorators share: the plan, and stable names for runs. Run ids may be random,
 * so decisions are keyed by a name that is the same in every replay of a seed: `main` for the
 * run under test, `<parent>/<operationId>` for a child run.
 */
export class FaultScope {
  private readonly names = new Map<string, string>();
  private readonly invocations = new Map<string, number>();
  /** Runs whose invocation dies at its next slot write (see {@link armSlotKill}). */
  private readonly slotKills = new Set<string>();

  constructor(readonly plan: FaultPlan) {}

  /** Names a run (the run under test). */
  name(runId: string, name: string): void {
    if (!this.names.has(runId)) this.names.set(runId, name);
  }

  /** Names a child run after its parent and the operation that started it. */
  nameChild(runId: string, parent: { runId: string; operationId: string }): void {
    this.name(runId, `${this.nameOf(parent.runId)}/${parent.operationId}`);
  }

  /** The run's stable name (its id when it has none). */
  nameOf(runId: string): string {
    return this.names.get(runId) ?? runId;
  }

  /** Counts an invocation of the run; returns its 0-based index. */
  invocationStarted(runId: string): number {
    const index = (this.invocations.get(runId) ?? -1) + 1;
    this.invocations.set(runId, index);
    return index;
  }

  /** The index of the run's latest invocation; -1 before the first. */
  currentInvocation(runId: string): number {
    return this.invocations.get(runId) ?? -1;
  }

  /** Where a fault at `runId` would be, for its record. */
  site(runId: string, extra: Omit<FaultSite, 'runId' | 'run' | 'invocation'> & { invocation?: number }): FaultSite {
    return {
      runId,
      run: this.nameOf(runId),
      invocation: extra.invocation ?? this.currentInvocation(runId),
      ...(extra.operationId === undefined ? {} : { operationId: extra.operationId }),
      ...(extra.detail === undefined ? {} : { detail: extra.detail }),
    };
  }

  /**
   * The invocation of `runId` now in its admission or its end dies at the run's next slot write
   * (after a slot taken or a queue entry written lands, before a slot release is sent): the
   * store (`FaultyStore`) throws an {@link InjectedSlotKill} there, the invocation
   * (`FaultyInvocation`) turns it into its death.
   */
  armSlotKill(runId: string): void {
    this.slotKills.add(runId);
  }

  /** Disarms the run's slot kill; true when it was armed (not yet taken by a slot write). */
  disarmSlotKill(runId: string): boolean {
    return this.slotKills.delete(runId);
  }

  /** Rolls `kind` at a place of `runId` named by `key` (the run's name is prefixed). */
  roll(
    kind: FaultKind,
    runId: string,
    key: string,
    extra: Omit<FaultSite, 'runId' | 'run' | 'invocation'> & { invocation?: number } = {},
  ): boolean {
    return this.plan.roll(kind, `${this.nameOf(runId)}|${key}`, this.site(runId, extra));
  }
}
