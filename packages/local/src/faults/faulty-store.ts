import type {
  DueRun,
  IdempotencyRecord,
  LeaseGrant,
  OperationDeadlines,
  RevisionBase,
  RunPage,
  RunPatch,
  RunQuery,
  RunRecord,
  RunStatus,
  Store,
} from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import type { FaultScope } from './fault-scope';
import { InjectedLostResponseError, InjectedSlotKill } from './injected-errors';

/** What a {@link FaultyStore} tells its owner. */
export interface FaultyStoreHooks {
  /** After every write that reached the inner store (the driver wakes its loop). */
  onWrite?: () => void;
  /** Before a run is created (the driver learns of child runs here). */
  onCreateRun?: (run: RunRecord) => void;
}

/**
 * A {@link Store} whose writes may succeed and then report failure (`storeLostResponse`): the
 * inner write happens, then the call throws, as when a DynamoDB response is lost and the SDK
 * gives up. Reads pass through. Child runs get their stable names here, at creation.
 */
export class FaultyStore implements Store {
  /** A page of a run's operations, when the inner store reads pages (else the caller loads them all). */
  readonly loadOperationPage?: Store['loadOperationPage'];
  /** What an invocation replays from, when the inner store reads it alone (else all is loaded). */
  readonly loadReplayOperations?: Store['loadReplayOperations'];
  /**
   * The slot methods of flow control per key, when the inner store has them: their writes may lose
   * their response (`storeLostResponse`) and an invocation armed to die at a slot write dies there
   * (`FaultScope.armSlotKill`); the reads pass through.
   */
  readonly takeSlot?: Store['takeSlot'];
  readonly releaseSlot?: Store['releaseSlot'];
  readonly slotHolders?: Store['slotHolders'];
  readonly enqueueRun?: Store['enqueueRun'];
  readonly dequeueRun?: Store['dequeueRun'];
  readonly listQueuedRuns?: Store['listQueuedRuns'];
  readonly putFunctionLimits?: Store['putFunctionLimits'];
  readonly getFunctionLimits?: Store['getFunctionLimits'];
  readonly listFunctionLimits?: Store['listFunctionLimits'];
  readonly readGate?: Store['readGate'];
  readonly writeGate?: Store['writeGate'];
  /** The signal inbox, when the inner store keeps one: a send may lose its response; the read passes through. */
  readonly appendSignal?: Store['appendSignal'];
  readonly listSignals?: Store['listSignals'];

  constructor(
    private readonly inner: Store,
    private readonly scope: FaultScope,
    private readonly hooks: FaultyStoreHooks = {},
  ) {
    const page = inner.loadOperationPage;
    if (page) this.loadOperationPage = (runId, request) => page.call(inner, runId, request);
    const replay = inner.loadReplayOperations;
    if (replay) this.loadReplayOperations = (runId) => replay.call(inner, runId);
    const { takeSlot, releaseSlot, enqueueRun, dequeueRun } = inner;
    if (takeSlot) {
      this.takeSlot = async (slot, runId, limit) =>
        this.slotWritten(runId, 'takeSlot', await takeSlot.call(inner, slot, runId, limit));
    }
    if (releaseSlot) {
      this.releaseSlot = async (slot, runId) => {
        // Dies before the release is sent: the slot stays held by a run that ended or was queued.
        if (this.scope.disarmSlotKill(runId)) throw new InjectedSlotKill('releaseSlot');
        return this.written(runId, 'releaseSlot', await releaseSlot.call(inner, slot, runId));
      };
    }
    if (enqueueRun) {
      this.enqueueRun = async (slot, entry) =>
        this.slotWritten(entry.runId, 'enqueueRun', await enqueueRun.call(inner, slot, entry));
    }
    if (dequeueRun) {
      this.dequeueRun = async (slot, entry) =>
        this.written(entry.runId, 'dequeueRun', await dequeueRun.call(inner, slot, entry));
    }
    this.slotHolders = inner.slotHolders?.bind(inner);
    this.listQueuedRuns = inner.listQueuedRuns?.bind(inner);
    this.putFunctionLimits = inner.putFunctionLimits?.bind(inner);
    this.getFunctionLimits = inner.getFunctionLimits?.bind(inner);
    this.listFunctionLimits = inner.listFunctionLimits?.bind(inner);
    this.readGate = inner.readGate?.bind(inner);
    this.listSignals = inner.listSignals?.bind(inner);
    const { appendSignal } = inner;
    if (appendSignal) {
      this.appendSignal = async (runId, send) =>
        this.written(runId, 'appendSignal', await appendSignal.call(inner, runId, send));
    }
    const { writeGate } = inner;
    if (writeGate) {
      // A register's write may lose its response like any write (its readers find their own write).
      this.writeGate = async (gate, value, expected, expiresAt) =>
        this.written(
          `${gate.gate}:${gate.key}`,
          'writeGate',
          await writeGate.call(inner, gate, value, expected, expiresAt),
        );
    }
  }

  async createRun(run: RunRecord, execution: Operation): Promise<{ created: boolean; run: RunRecord }> {
    if (run.parent) this.scope.nameChild(run.runId, run.parent);
    this.hooks.onCreateRun?.(run);
    return this.written(run.runId, 'createRun', await this.inner.createRun(run, execution));
  }

  getRun(runId: string): Promise<RunRecord | undefined> {
    return this.inner.getRun(runId);
  }

  async acquireLease(
    runId: string,
    now: number,
    leaseExpiresAt: number,
    leaseToken: string,
  ): Promise<LeaseGrant | undefined> {
    return this.written(runId, 'acquireLease', await this.inner.acquireLease(runId, now, leaseExpiresAt, leaseToken));
  }

  findDueRuns(before: number, limit: number, after?: DueRun, partition?: number): Promise<DueRun[]> {
    return partition === undefined
      ? this.inner.findDueRuns(before, limit, after)
      : this.inner.findDueRuns(before, limit, after, partition);
  }

  duePartitions(): number {
    return this.inner.duePartitions?.() ?? 1;
  }

  loadOperations(runId: string): Promise<Operation[]> {
    return this.inner.loadOperations(runId);
  }

  getOperation(runId: string, operationId: string): Promise<Operation | undefined> {
    return this.inner.getOperation(runId, operationId);
  }

  listRuns(query: RunQuery): Promise<RunPage> {
    return this.inner.listRuns(query);
  }

  async reviseRun(
    runId: string,
    expectStatus: RunStatus,
    patch: RunPatch,
    operations: readonly Operation[],
    basedOn?: RevisionBase,
  ): Promise<RunRecord | undefined> {
    return this.written(
      runId,
      'reviseRun',
      await this.inner.reviseRun(runId, expectStatus, patch, operations, basedOn),
    );
  }

  async claimIdempotencyKey(
    record: IdempotencyRecord,
  ): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyRecord }> {
    return this.written(record.key, 'claimIdempotencyKey', await this.inner.claimIdempotencyKey(record));
  }

  async completeIdempotencyKey(
    key: string,
    response: NonNullable<IdempotencyRecord['response']>,
    claim?: { claimToken: string; expiresAt: number },
  ): Promise<void> {
    return this.written(key, 'completeIdempotencyKey', await this.inner.completeIdempotencyKey(key, response, claim));
  }

  async releaseIdempotencyKey(key: string, claimToken?: string): Promise<void> {
    return this.written(key, 'releaseIdempotencyKey', await this.inner.releaseIdempotencyKey(key, claimToken));
  }

  async writeOutsideEvent(
    runId: string,
    next: Operation,
    expected: Pick<Operation, 'Status'> & { deadlines?: OperationDeadlines },
    event: boolean,
  ): Promise<boolean> {
    const done = await this.inner.writeOutsideEvent(runId, next, expected, event);
    return this.written(runId, 'writeOutsideEvent', done, next.Id);
  }

  async commit(
    runId: string,
    fence: number,
    write: { operations: readonly Operation[]; run?: RunPatch },
  ): Promise<void> {
    const first = write.operations[0]?.Id;
    return this.written(runId, 'commit', await this.inner.commit(runId, fence, write), first);
  }

  /** After a slot write of an admission that landed: the invocation dies here if armed, else maybe loses the response. */
  private slotWritten<T>(runId: string, method: string, result: T): T {
    if (this.scope.disarmSlotKill(runId)) {
      this.hooks.onWrite?.();
      throw new InjectedSlotKill(method);
    }
    return this.written(runId, method, result);
  }

  /** After a write that succeeded: maybe lose its response. */
  private written<T>(runId: string, method: string, result: T, operationId?: string): T {
    this.hooks.onWrite?.();
    const invocation = this.scope.currentInvocation(runId);
    const key = `${method}#${invocation}`;
    if (
      this.scope.roll('storeLostResponse', runId, key, {
        detail: method,
        ...(operationId === undefined ? {} : { operationId }),
      })
    ) {
      throw new InjectedLostResponseError(method);
    }
    return result;
  }
}
