import { isDeepStrictEqual } from 'node:util';
import type { RunJournal } from '@durable-lambda/api';
import {
  applyPatch,
  type CommitWrite,
  checkOperationPayloads,
  checkRunPayloads,
  type DueRun,
  type LeaseGrant,
  type OperationPage,
  type OperationPageRequest,
  type RevisionBase,
  type RunPage,
  type RunPatch,
  type RunQuery,
  type RunRecord,
  type RunStatus,
  runQueryLimit,
  type Store,
  takeLease,
} from '@durable-lambda/engine';
import { FencedError, type Operation } from '@durable-lambda/protocol';
import type { SqliteDatabase, SqliteDriverName } from './sqlite-driver';
import { operationPage, replayOperations } from './sqlite-operation-reads';
import type { OwnerLock } from './sqlite-owner-lock';
import { type LogLine, SqliteRunJournal } from './sqlite-run-journal';
import { listRuns, searchRuns } from './sqlite-run-queries';
import {
  immediately,
  lapseLeases,
  prepareRunStatements,
  putOperationRow,
  putRunRow,
  type RunRow,
  type RunStatements,
  updateRunRow,
} from './sqlite-run-statements';
import { SqliteRunTags } from './sqlite-run-tags';
import { migrate } from './sqlite-schema';
import { SqliteSideTables } from './sqlite-side-tables';
import { openStoreFile } from './sqlite-store-file';
import type { SqliteStoreOptions } from './sqlite-store-options';
import { SqliteWakeUps, type WakeUpTable } from './sqlite-wake-ups';
import type { WalCheckpointer } from './sqlite-wal';
import { DEFAULT_TURN_BUDGET_MS, TurnShare } from './turn-share';

export type { SqliteStoreOptions } from './sqlite-store-options';

/**
 * The embedded {@link Store}: runs, operations, idempotency records and the timer waker's
 * wake-ups in one SQLite file (WAL mode, checkpointed on a thread of its own: see
 * `WalCheckpointer`), through `better-sqlite3` (an optional dependency) or, where it is missing or
 * does not load, Node.js's own `node:sqlite` (22.13 and later, no flag), loaded by the first
 * construction (a `SqliteUnavailableError` when neither is there; see `openDatabase`). Every method runs in one immediate
 * transaction, so it is atomic even with another process on the same file; commits are fenced
 * exactly as the port says. Commits take turns with the rest of the event loop (see
 * {@link SqliteStoreOptions.turnBudgetMs}). Runs past their `expiresAt` are invisible. Every write of
 * a run sets its `dueAt` (and the indexed `due_at` column) to `dueAtOf` of the record written.
 *
 * Any number of processes may read and write one file, but one runtime at a time may run its
 * runs: {@link SqliteStore.reclaimLeases} takes the file for a runtime (a lock on `<file>.lock`,
 * named after the file's real path whatever name it was opened by, that the operating system drops
 * with the process), so a second one is refused instead of taking live leases for a dead process's.
 * A file with hard links is refused (`DatabaseHardLinkedError`): SQLite keeps a WAL per name.
 */
export class SqliteStore extends SqliteSideTables implements Store {
  /** The pending wake-ups of a {@link TimerWaker} on this database. */
  readonly wakeUps: WakeUpTable;
  private readonly db: SqliteDatabase;
  private readonly clock: { now(): number };
  private readonly listeners = new Set<() => void>();
  /** The file's ownership, for {@link reclaimLeases}; none for a private in-memory database. */
  private readonly owner: OwnerLock | undefined;
  /** Each run's log lines, invocations and retries (not part of the `Store` port). */
  private readonly journal: SqliteRunJournal;
  private readonly sql: RunStatements;
  /** The index of runs' search tags (`run_tags`). */
  private readonly tags: SqliteRunTags;
  private readonly turns: TurnShare;
  /** Checkpoints the file's WAL off this thread; none for a private in-memory database. */
  private readonly wal: WalCheckpointer | undefined;

  /**
   * Opens (or creates) the database (see `openStoreFile`) and brings its schema up to date.
   * @throws `SqliteUnavailableError` (code `sqlite_unavailable`) when neither node:sqlite (Node.js 22.13+) nor better-sqlite3 loads.
   * @throws `DatabaseHardLinkedError` (code `database_hard_linked`) when the file is open by
   * another of its names (a hard link) elsewhere.
   * @throws `EngineInputError` (code `invalid_argument`) when `turnBudgetMs` is not a number of ms, 0 or more.
   */
  constructor(options: SqliteStoreOptions) {
    super();
    this.clock = options.clock ?? { now: () => Date.now() };
    // Checked before the file is opened: a bad option leaves nothing open.
    this.turns = new TurnShare({ budgetMs: options.turnBudgetMs ?? DEFAULT_TURN_BUDGET_MS });
    ({ db: this.db, owner: this.owner, wal: this.wal } = openStoreFile(options.path));
    migrate(this.db);
    this.wakeUps = new SqliteWakeUps(this.db);
    this.journal = new SqliteRunJournal(this.db, () => this.clock.now(), options.journal);
    this.attachFlowTables(this.db, () => this.clock.now());
    this.sql = prepareRunStatements(this.db);
    this.tags = new SqliteRunTags(this.db);
    this.attachSideTables(this.db, () => this.clock.now(), {
      transaction: (body) => this.transaction(body),
      live: (runId) => this.live(runId),
      update: (run) => updateRunRow(this.sql, run, run.status),
      now: () => this.clock.now(),
    });
  }

  /**
   * The SQLite binding this store runs on: `'better-sqlite3'`, or `'node'` (Node.js's `node:sqlite`,
   * 22.13 and later) where better-sqlite3 is missing or does not load. One per process: every store
   * of a process runs on the same one.
   */
  get driver(): SqliteDriverName {
    return this.db.driver;
  }

  async createRun(run: RunRecord, execution: Operation): Promise<{ created: boolean; run: RunRecord }> {
    const result = this.transaction(() => {
      const row = this.sql.getRun.get(run.runId);
      const existing = row && this.visible(row);
      if (existing) return { created: false, run: existing };
      checkRunPayloads(run);
      checkOperationPayloads(execution);
      // A run created anew over an expired one starts above its fences: a late invocation of the
      // old run can never write into the new one.
      const old = row && (JSON.parse(row.record) as RunRecord);
      const stored = copy({ ...run, fence: old ? Math.max(run.fence, old.fence + 1) : run.fence });
      this.sql.deleteOperations.run(run.runId);
      if (old) this.journal.forget(run.runId);
      putRunRow(this.sql, stored);
      // Always: an expired run of the same id leaves no tags to the new one.
      this.tags.write(stored);
      putOperationRow(this.sql, run.runId, execution);
      return { created: true, run: stored };
    });
    if (result.created) this.changed();
    return result;
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    return this.live(runId);
  }

  async acquireLease(
    runId: string,
    now: number,
    leaseExpiresAt: number,
    leaseToken: string,
  ): Promise<LeaseGrant | undefined> {
    // No own-success check by token: a local transaction's answer is never lost to a retry.
    const grant = this.transaction(() => {
      const run = this.live(runId);
      const taken = run && takeLease(run, now, leaseExpiresAt, leaseToken);
      if (!run || !taken) return undefined;
      updateRunRow(this.sql, run, run.status);
      this.journal.opened(runId, run.fence, now, taken.previousLost);
      return { run, previousLost: taken.previousLost };
    });
    if (grant) this.changed();
    return grant;
  }

  async findDueRuns(before: number, limit: number, after?: DueRun): Promise<DueRun[]> {
    if (!(limit > 0)) return [];
    const from = after ?? { dueAt: Number.NEGATIVE_INFINITY, runId: '' };
    return this.sql.findDue
      .all(before, from.dueAt, from.dueAt, from.runId, this.clock.now(), Math.floor(limit))
      .map((row) => ({ runId: row.run_id, dueAt: row.due_at }));
  }

  /**
   * Lapses every lease held at `now` (`leaseExpiresAt` becomes `now`; the fence stays, so the
   * next open counts a lost invocation, and the run is due at once), after taking the file for
   * this process: it throws {@link DatabaseInUseError} when another runtime holds it. For a
   * runtime starting on a file that only it may run: every lease it finds then belongs to a
   * process that is gone (a `kill -9`), and waiting for those leases to lapse would leave the
   * runs stranded for up to an invocation's timeout. The file stays taken until {@link close}.
   * Returns the ids of the runs whose lease it lapsed.
   */
  reclaimLeases(now: number): string[] {
    this.owner?.acquire();
    const reclaimed = this.transaction(() => lapseLeases(this.sql, now, this.clock.now()));
    if (reclaimed.length > 0) this.changed();
    return reclaimed;
  }

  /**
   * Forgets every control-API request still in progress: each idempotency record claimed and never
   * answered is deleted, so a retry of its request runs instead of being answered
   * `409 idempotency_in_progress` until the claim expires. Like {@link reclaimLeases} (which
   * `LocalRuntime` calls just before it), for a runtime starting on a file only it may serve: it
   * takes the file first (throwing {@link DatabaseInUseError} when another runtime holds it), so
   * every claim it finds belongs to a process that is gone. Returns the keys released.
   */
  releaseClaims(): string[] {
    this.owner?.acquire();
    return this.idempotency.releaseInProgress();
  }

  async loadOperations(runId: string): Promise<Operation[]> {
    return this.transaction(() => {
      if (!this.live(runId)) return [];
      return this.sql.loadOperations.all(runId).map((row) => JSON.parse(row.body) as Operation);
    });
  }

  /** What an invocation replays from (`Store.loadReplayOperations`), through the `parent_id` index. */
  async loadReplayOperations(runId: string): Promise<Operation[]> {
    return this.transaction(() => (this.live(runId) ? replayOperations(this.sql, runId) : []));
  }

  async loadOperationPage(runId: string, request: OperationPageRequest): Promise<OperationPage> {
    return this.transaction(() => (this.live(runId) ? operationPage(this.sql, runId, request) : { operations: [] }));
  }

  async getOperation(runId: string, operationId: string): Promise<Operation | undefined> {
    return this.transaction(() => (this.live(runId) ? this.operation(runId, operationId) : undefined));
  }

  async listRuns(query: RunQuery): Promise<RunPage> {
    return listRuns(this.db, this.clock.now(), query);
  }

  async reviseRun(
    runId: string,
    expectStatus: RunStatus,
    patch: RunPatch,
    operations: readonly Operation[],
    basedOn?: RevisionBase,
  ): Promise<RunRecord | undefined> {
    const revised = this.transaction(() => {
      const run = this.live(runId);
      if (!run || run.status !== expectStatus) return undefined;
      if (basedOn !== undefined && run.fence !== basedOn.fence) return undefined;
      checkRunPayloads(patch);
      for (const op of operations) checkOperationPayloads(op);
      for (const op of operations) putOperationRow(this.sql, runId, op);
      applyPatch(run, copy(patch));
      run.fence += 1;
      delete run.leaseExpiresAt;
      delete run.leaseToken;
      run.updatedAt = this.clock.now();
      updateRunRow(this.sql, run, expectStatus);
      if (patch.tags !== undefined) this.tags.write(run);
      this.journal.revised(runId, run.updatedAt, expectStatus !== 'RUNNING' && run.status === 'RUNNING');
      return run;
    });
    if (revised) this.changed();
    return revised;
  }

  async writeOutsideEvent(
    runId: string,
    next: Operation,
    expected: Pick<Operation, 'Status'> & { deadlines?: { TimeoutTimestamp?: number; HeartbeatDeadline?: number } },
    event: boolean,
  ): Promise<boolean> {
    const written = this.transaction(() => {
      const run = this.live(runId);
      const current = run && this.operation(runId, next.Id);
      if (!run || !current) return false;
      // A retried write that finds its own earlier success (the stored form is JSON).
      if (isDeepStrictEqual(current, copy(next))) return 'already' as const;
      if (current.Status !== expected.Status) return false;
      if (expected.deadlines) {
        const d = current.CallbackDetails;
        if (d?.TimeoutTimestamp !== expected.deadlines.TimeoutTimestamp) return false;
        if (d?.HeartbeatDeadline !== expected.deadlines.HeartbeatDeadline) return false;
      }
      checkOperationPayloads(next);
      putOperationRow(this.sql, runId, next);
      if (event) run.eventSeq += 1;
      run.updatedAt = this.clock.now();
      updateRunRow(this.sql, run, run.status);
      return true;
    });
    if (written === true) this.changed();
    return written !== false;
  }

  async commit(runId: string, fence: number, write: CommitWrite): Promise<void> {
    // Each commit of an invocation (a checkpoint, its end) waits its turn; see `turnBudgetMs`.
    const turn = this.takeTurn();
    if (turn) await turn;
    this.transaction(() => {
      const run = this.live(runId);
      if (!run || run.fence !== fence) throw new FencedError(`run ${runId} is no longer owned by fence ${fence}`);
      if (write.run) checkRunPayloads(write.run);
      for (const op of write.operations) checkOperationPayloads(op);
      // A transactional step's writes: checked, then applied in this same transaction (or thrown).
      if (write.transactWrites) this.userTables.apply(write.transactWrites);
      for (const op of write.operations) putOperationRow(this.sql, runId, op);
      const before = run.status;
      if (write.run) applyPatch(run, copy(write.run));
      run.updatedAt = this.clock.now();
      updateRunRow(this.sql, run, before);
      if (write.run?.tags !== undefined) this.tags.write(run);
      if (write.run?.leaseExpiresAt === null) this.journal.closed(runId, fence, run.updatedAt);
    });
    this.changed();
  }

  /**
   * Undefined when background work may run on the event loop now, else a promise that settles when
   * it is its turn, as each commit waits for its own (see {@link SqliteStoreOptions.turnBudgetMs}).
   * `LocalRuntime` takes one for each invocation's replay, once its lease is taken.
   */
  takeTurn(): Promise<void> | undefined {
    return this.turns.admit();
  }

  /**
   * Calls `listener` after every write of a run or its operations made through this instance (like
   * `MemoryStore.subscribe`, for live views); returns a function that stops it.
   */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Keeps a log line of a run's handler (the shape of the SDK's log entries, so it can be a
   * `logSink`), within the run's size cap: the oldest lines are dropped first, and counted. Not
   * part of the `Store` port: the dev server's views read it back through {@link readRunJournal}.
   */
  appendLog(line: LogLine): void {
    if (this.db.open) this.journal.appendLog(line);
  }

  /** A run's journal: its log lines, its invocations (lease taken to released) and its retries. */
  readRunJournal(runId: string): RunJournal {
    return this.journal.read(runId);
  }

  /**
   * Runs whose id or run key contains `text` (case-insensitive), newest first, at most `limit`
   * (1-100), within their retention. A scan of the runs table: for the dev server's search box.
   */
  searchRuns(text: string, limit: number): RunRecord[] {
    return searchRuns(this.db, this.clock.now(), text, runQueryLimit(limit));
  }

  /** Closes the database (and gives up the file taken by {@link reclaimLeases}); unusable afterwards. */
  close(): void {
    this.listeners.clear();
    this.wal?.close();
    this.owner?.release();
    if (this.db.open) this.db.close();
  }

  private transaction<T>(body: () => T): T {
    return immediately(this.db, body);
  }

  /** The run if stored and within its retention (a fresh copy). */
  private live(runId: string): RunRecord | undefined {
    const row = this.sql.getRun.get(runId);
    return row && this.visible(row);
  }

  private visible(row: RunRow): RunRecord | undefined {
    // Expired runs are invisible, the way a TTL-filtered read sees them.
    if (row.expires_at !== null && row.expires_at <= this.clock.now()) return undefined;
    return JSON.parse(row.record) as RunRecord;
  }

  private operation(runId: string, operationId: string): Operation | undefined {
    const row = this.sql.getOperation.get(runId, operationId);
    return row && (JSON.parse(row.body) as Operation);
  }

  protected changed(): void {
    this.wal?.noteWrite();
    for (const listener of this.listeners) {
      try {
        listener();
      } catch (error) {
        // A listener (a live view) must never fail the write that already happened.
        console.error('durable-lambda: a SqliteStore listener failed', error);
      }
    }
  }
}

/** A deep copy through JSON, the form the store keeps. */
function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
