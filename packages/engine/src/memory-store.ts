import { isDeepStrictEqual } from 'node:util';
import { FencedError, type Operation } from '@durable-lambda/protocol';
import type { EmulatedKeySchema } from './emulated/emulated-tables';
import { MemoryTables } from './emulated/memory-tables';
import { takeLease } from './lease';
import { MemoryFlowTables } from './memory-flow-tables';
import { copyData, copyOperation } from './operation-copy';
import { checkOperationPayloads, checkRunPayloads } from './payload-limit';
import {
  type DueRun,
  dueAfter,
  dueAtOf,
  type IdempotencyRecord,
  type LeaseGrant,
  type OperationDeadlines,
  type OperationPage,
  type OperationPageRequest,
  type RevisionBase,
  type RunPage,
  type RunPatch,
  type RunQuery,
  type RunRecord,
  type RunStatus,
  type Store,
} from './ports';
import { replaysChildren } from './replay-scope';
import { addToMeter, meterEntries, type RunMeterIncrement } from './run-meter';
import {
  checkRunSearch,
  decodeRunCursor,
  encodeRunCursor,
  runMatchesSearch,
  runOfFunction,
  runQueryLimit,
} from './run-query';
import { decideSignal } from './signal-inbox';
import type { SignalAppend, SignalRecord, SignalSend } from './signals';
import type { CommitWrite } from './store';

/**
 * An in-memory {@link Store} for tests and the test runner. It copies on the way in and out so
 * callers can never alias stored state, as with a real database.
 */
export class MemoryStore extends MemoryFlowTables implements Store {
  private readonly runs = new Map<string, RunRecord>();
  private readonly operations = new Map<string, Map<string, Operation>>();
  /**
   * Per run, the ids of each operation's children in creation order (key: the parent's id, `''`
   * for the top level), so {@link MemoryStore.loadReplayOperations} walks the live part only.
   */
  private readonly children = new Map<string, Map<string, string[]>>();
  private readonly listeners = new Set<() => void>();
  private readonly idempotency = new Map<string, IdempotencyRecord>();
  /** The sparse due index: ids of runs with a `dueAt`. */
  private readonly dueIndex = new Set<string>();
  /** Each run's signal inbox, with the `createdAt` of the run it belongs to (a run created again starts empty). */
  private readonly signals = new Map<string, { epoch: number; list: SignalRecord[] }>();

  /** The user's tables transactional steps write (see {@link MemoryStore.defineTable}). */
  private readonly tables = new MemoryTables();

  constructor(clock: { now(): number } = { now: () => Date.now() }) {
    super(clock);
  }

  /**
   * Declares a user table that transactional steps (`step(name, fn, { transact: true })`) may
   * write, with its key schema, as DynamoDB's table has it. A write to an undeclared table is
   * refused (`TransactRejectedError`, reason `unknown_table`).
   */
  defineTable(tableName: string, schema: EmulatedKeySchema): this {
    this.tables.define(tableName, schema);
    return this;
  }

  /** An item of a declared user table by its key (a copy), or undefined: what transactional steps wrote. */
  getTableItem(tableName: string, key: Record<string, unknown>): Record<string, unknown> | undefined {
    return this.tables.get(tableName, key);
  }

  /** Every item of a declared user table, in key order (copies). */
  scanTable(tableName: string): Record<string, unknown>[] {
    return this.tables.scan(tableName);
  }

  async createRun(run: RunRecord, execution: Operation): Promise<{ created: boolean; run: RunRecord }> {
    const existing = this.live(run.runId);
    if (existing) return { created: false, run: copyData(existing) };
    checkRunPayloads(run);
    checkOperationPayloads(execution);
    // A run created anew over an expired one starts above its fences, so a late invocation of
    // the old run can never write into the new one.
    const expired = this.runs.get(run.runId);
    const fresh = this.indexed(expired ? { ...run, fence: Math.max(run.fence, expired.fence + 1) } : { ...run });
    this.runs.set(run.runId, copyData(fresh));
    this.operations.set(run.runId, new Map([[execution.Id, copyData(execution)]]));
    this.children.set(run.runId, new Map([[execution.ParentId ?? '', [execution.Id]]]));
    this.changed();
    return { created: true, run: copyData(fresh) };
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    const run = this.live(runId);
    return run && copyData(run);
  }

  async acquireLease(
    runId: string,
    now: number,
    leaseExpiresAt: number,
    leaseToken: string,
  ): Promise<LeaseGrant | undefined> {
    const run = this.live(runId);
    const taken = run && takeLease(run, now, leaseExpiresAt, leaseToken);
    if (!run || !taken) return undefined;
    this.indexed(run);
    this.changed();
    return { run: copyData(run), previousLost: taken.previousLost };
  }

  /** Re-records a run leased by `leaseToken` as `to` while it is `from` (a version policy's pin). */
  async pinRun(runId: string, from: string, to: string, leaseToken: string): Promise<boolean> {
    const run = this.live(runId);
    if (run?.functionName === from && run.leaseToken === leaseToken && run.status === 'RUNNING') {
      run.functionName = to;
      this.changed();
    }
    return run?.functionName === to;
  }

  async loadOperations(runId: string): Promise<Operation[]> {
    if (!this.live(runId)) return [];
    return [...(this.operations.get(runId)?.values() ?? [])].map((op) => copyOperation(op));
  }

  /** What an invocation replays from (see {@link Store.loadReplayOperations}), walked from the top by parent. */
  async loadReplayOperations(runId: string): Promise<Operation[]> {
    if (!this.live(runId)) return [];
    const ops = this.operations.get(runId);
    const children = this.children.get(runId);
    const out: Operation[] = [];
    // Depth first from the top level, not descending into a finished context stored inline.
    const visit = (parentId: string) => {
      for (const id of children?.get(parentId) ?? []) {
        const op = ops?.get(id);
        if (!op) continue;
        out.push(copyOperation(op));
        if (replaysChildren(op)) visit(id);
      }
    };
    visit('');
    return out;
  }

  async loadOperationPage(runId: string, request: OperationPageRequest): Promise<OperationPage> {
    if (!this.live(runId)) return { operations: [] };
    const all = [...(this.operations.get(runId)?.values() ?? [])];
    // Creation order is the map's insertion order; a rewrite keeps an operation's place.
    const start = request.after === undefined ? 0 : all.findIndex((op) => op.Id === request.after) + 1;
    if (start === 0 && request.after !== undefined) return { operations: [] };
    const page = all.slice(start, start + request.limit).map((op) => copyOperation(op));
    const last = page.at(-1);
    return start + request.limit < all.length && last ? { operations: page, after: last.Id } : { operations: page };
  }

  async getOperation(runId: string, operationId: string): Promise<Operation | undefined> {
    if (!this.live(runId)) return undefined;
    const op = this.operations.get(runId)?.get(operationId);
    return op && copyOperation(op);
  }

  async writeOutsideEvent(
    runId: string,
    next: Operation,
    expected: Pick<Operation, 'Status'> & { deadlines?: OperationDeadlines },
    event: boolean,
  ): Promise<boolean> {
    const run = this.live(runId);
    const current = this.operations.get(runId)?.get(next.Id);
    if (!run || !current) return false;
    // A retried write that finds its own earlier success.
    if (isDeepStrictEqual(current, next)) return true;
    if (current.Status !== expected.Status) return false;
    checkOperationPayloads(next);
    if (expected.deadlines) {
      const d = current.CallbackDetails;
      if (d?.TimeoutTimestamp !== expected.deadlines.TimeoutTimestamp) return false;
      if (d?.HeartbeatDeadline !== expected.deadlines.HeartbeatDeadline) return false;
    }
    this.operations.get(runId)?.set(next.Id, copyData(next));
    if (event) run.eventSeq += 1;
    run.updatedAt = this.clock.now();
    this.indexed(run);
    this.changed();
    return true;
  }

  async commit(runId: string, fence: number, write: CommitWrite): Promise<void> {
    const run = this.live(runId);
    if (!run || run.fence !== fence) throw new FencedError(`run ${runId} is no longer owned by fence ${fence}`);
    for (const op of write.operations) checkOperationPayloads(op);
    if (write.run) checkRunPayloads(write.run);
    // A bad increment is refused before anything is written.
    if (write.run?.meter) meterEntries(write.run.meter);
    // The user's writes are checked (conditions included) before anything is written, then
    // applied with the rest: both or neither.
    if (write.transactWrites) this.tables.apply(this.tables.plan(write.transactWrites));
    const ops = this.operations.get(runId) ?? new Map<string, Operation>();
    for (const op of write.operations) this.keep(runId, ops, op);
    this.operations.set(runId, ops);
    if (write.run) applyPatch(run, copyData(write.run));
    run.updatedAt = this.clock.now();
    this.indexed(run);
    this.changed();
  }

  async findDueRuns(before: number, limit: number, after?: DueRun): Promise<DueRun[]> {
    const due: DueRun[] = [];
    for (const runId of this.dueIndex) {
      const run = this.live(runId);
      if (run?.dueAt === undefined || run.dueAt > before) continue;
      const entry = { runId, dueAt: run.dueAt };
      if (!after || dueAfter(entry, after)) due.push(entry);
    }
    return due.sort((a, b) => a.dueAt - b.dueAt || (a.runId < b.runId ? -1 : 1)).slice(0, limit);
  }

  async listRuns(query: RunQuery): Promise<RunPage> {
    const limit = runQueryLimit(query.limit);
    checkRunSearch(query);
    const after = query.cursor === undefined ? undefined : decodeRunCursor(query.cursor);
    const matching = [...this.runs.values()]
      .filter((run) => this.live(run.runId) !== undefined)
      .filter((run) => query.functionName === undefined || runOfFunction(run.functionName, query.functionName))
      .filter((run) => query.status === undefined || run.status === query.status)
      .filter((run) => query.createdAfter === undefined || run.createdAt >= query.createdAfter)
      .filter((run) => query.createdBefore === undefined || run.createdAt < query.createdBefore)
      .filter((run) => runMatchesSearch(run, query))
      .sort((a, b) => b.createdAt - a.createdAt || (a.runId < b.runId ? 1 : a.runId > b.runId ? -1 : 0))
      .filter(
        (run) =>
          after === undefined ||
          run.createdAt < after.createdAt ||
          (run.createdAt === after.createdAt && run.runId < after.runId),
      );
    const page = matching.slice(0, limit).map((run) => copyData(run));
    const last = page[page.length - 1];
    return matching.length > limit && last ? { runs: page, cursor: encodeRunCursor(last) } : { runs: page };
  }

  async reviseRun(
    runId: string,
    expectStatus: RunStatus,
    patch: RunPatch,
    operations: readonly Operation[],
    basedOn?: RevisionBase,
  ): Promise<RunRecord | undefined> {
    const run = this.live(runId);
    if (!run || run.status !== expectStatus) return undefined;
    if (basedOn !== undefined && run.fence !== basedOn.fence) return undefined;
    const ops = this.operations.get(runId) ?? new Map<string, Operation>();
    for (const op of operations) this.keep(runId, ops, op);
    applyPatch(run, copyData(patch));
    run.fence += 1;
    delete run.leaseExpiresAt;
    delete run.leaseToken;
    run.updatedAt = this.clock.now();
    this.indexed(run);
    this.changed();
    return copyData(run);
  }

  async claimIdempotencyKey(
    record: IdempotencyRecord,
  ): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyRecord }> {
    const existing = this.idempotency.get(record.key);
    if (existing && existing.expiresAt > this.clock.now()) {
      // A retried claim that finds its own earlier success.
      if (record.claimToken !== undefined && existing.claimToken === record.claimToken) return { claimed: true };
      return { claimed: false, existing: copyData(existing) };
    }
    this.idempotency.set(record.key, copyData(record));
    return { claimed: true };
  }

  async completeIdempotencyKey(
    key: string,
    response: NonNullable<IdempotencyRecord['response']>,
    claim?: { claimToken: string; expiresAt: number },
  ): Promise<void> {
    const record = this.idempotency.get(key);
    if (!record || (claim && record.claimToken !== claim.claimToken)) return;
    this.idempotency.set(key, {
      ...record,
      state: 'COMPLETED',
      response: copyData(response),
      ...(claim ? { expiresAt: claim.expiresAt } : {}),
    });
  }

  async releaseIdempotencyKey(key: string, claimToken?: string): Promise<void> {
    if (claimToken !== undefined && this.idempotency.get(key)?.claimToken !== claimToken) return;
    this.idempotency.delete(key);
  }

  /** Stores `op`, indexing a new one under its parent (an operation's parent never changes). */
  private keep(runId: string, ops: Map<string, Operation>, op: Operation): void {
    if (!ops.has(op.Id)) {
      const byParent = this.children.get(runId) ?? new Map<string, string[]>();
      this.children.set(runId, byParent);
      const key = op.ParentId ?? '';
      const siblings = byParent.get(key);
      if (siblings) siblings.push(op.Id);
      else byParent.set(key, [op.Id]);
    }
    ops.set(op.Id, copyOperation(op));
  }

  /** Calls `listener` after every write; returns a function that stops it. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The stored operations of a run, read synchronously (copies), for inspection. */
  peekOperations(runId: string): Operation[] {
    return [...(this.operations.get(runId)?.values() ?? [])].map((op) => copyOperation(op));
  }

  /** The stored run, read synchronously (a copy), for inspection. */
  peekRun(runId: string): RunRecord | undefined {
    const run = this.runs.get(runId);
    return run && copyData(run);
  }

  async appendSignal(runId: string, send: SignalSend): Promise<SignalAppend> {
    const run = this.live(runId);
    const { answer, write } = decideSignal(run, this.inbox(run), send, this.clock.now());
    if (run && write) {
      this.signals.set(runId, { epoch: run.createdAt, list: [...this.inbox(run), copyData(write.signal)] });
      Object.assign(run, write.run);
      this.indexed(run);
      this.changed();
    }
    return copyData(answer);
  }

  async listSignals(runId: string): Promise<SignalRecord[]> {
    return copyData(this.inbox(this.live(runId)));
  }

  /** The signals of this creation of `run` (none for a run that is not live). */
  private inbox(run: RunRecord | undefined): SignalRecord[] {
    const held = run && this.signals.get(run.runId);
    return held && held.epoch === run.createdAt ? held.list : [];
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  /** Every run id, for inspection in tests. */
  runIds(): string[] {
    return [...this.runs.keys()];
  }

  /** Sets the run's due-index key from its own fields (see {@link dueAtOf}), in place. */
  private indexed(run: RunRecord): RunRecord {
    const dueAt = dueAtOf(run);
    if (dueAt === undefined) {
      delete run.dueAt;
      this.dueIndex.delete(run.runId);
    } else {
      run.dueAt = dueAt;
      this.dueIndex.add(run.runId);
    }
    return run;
  }

  private live(runId: string): RunRecord | undefined {
    const run = this.runs.get(runId);
    // Expired runs are invisible, the way a TTL-filtered read sees them.
    if (run?.expiresAt !== undefined && run.expiresAt <= this.clock.now()) return undefined;
    return run;
  }
}

/** Applies a {@link RunPatch} in place; `null` deletes, `meter` is added to the run's meter. */
export function applyPatch(run: RunRecord, patch: RunPatch): void {
  for (const [key, value] of Object.entries(patch)) {
    if (key === 'meter') {
      if (value !== undefined) run.meter = addToMeter(run.meter, value as RunMeterIncrement);
    } else if (value === null) delete (run as unknown as Record<string, unknown>)[key];
    else if (value !== undefined) (run as unknown as Record<string, unknown>)[key] = value;
  }
}
