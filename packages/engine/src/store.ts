/**
 * The `Store` port: durable storage of runs, their operations and the control API's idempotency
 * records, with the shapes its methods take and return. Implemented by the memory store here, the
 * SQLite store (`@durable-lambda/local`) and the DynamoDB store (`@durable-lambda/aws`), all held to
 * one conformance suite.
 */
import type { Operation } from '@durable-lambda/protocol';
import type { QueuedRunEntry, SlotKey } from './concurrency-slots';
import type { GateKey, GateRecord } from './flow/gate-records';
import type { FunctionLimitsRecord } from './function-limits';
import type { DueRun, RunPatch, RunRecord, RunStatus } from './run-record';
import type { SignalAppend, SignalRecord, SignalSend } from './signals';

/** A query for runs, newest first. */
export interface RunQuery {
  /**
   * Runs of this function: a bare name (`orders`) finds the runs of every qualifier of it
   * (`orders`, `orders:7`, `orders:live`, `orders:$LATEST`), a qualified one only that qualifier.
   */
  functionName?: string;
  status?: RunStatus;
  /** Only runs created at or after this time (epoch ms). */
  createdAfter?: number;
  /** Only runs created before this time (epoch ms). */
  createdBefore?: number;
  /**
   * Only runs carrying every one of these tags (`ctx.tag`, or given at start), each with exactly
   * this value. At most `MAX_RUN_TAGS` tags.
   */
  tags?: Readonly<Record<string, string>>;
  /** Only runs whose error has exactly this `ErrorCode` (as recorded: `RunRecord.error.ErrorCode`). */
  errorCode?: string;
  /** At most this many runs (1-100, default 20). */
  limit?: number;
  /** Where the previous page ended. */
  cursor?: string;
}

/**
 * A page of runs, newest first; `cursor` is present when more may follow. A page may hold fewer
 * than `limit` runs with a cursor (a store that filters what it reads stops after a bounded read):
 * page on until there is no cursor.
 */
export interface RunPage {
  runs: RunRecord[];
  cursor?: string;
}

/** A stored answer to a control-API request, keyed by its `Idempotency-Key`. */
export interface IdempotencyRecord {
  /** The key, qualified by the route it was used on. */
  key: string;
  /** Digest of the request (method, path, body): the same key with another request is refused. */
  requestHash: string;
  state: 'IN_PROGRESS' | 'COMPLETED';
  /**
   * Unique to the request that claimed the key: a claim that finds a live record with its own
   * token is its own earlier success (a retried write whose response was lost), so it is claimed.
   */
  claimToken?: string;
  /** The first response, once COMPLETED. */
  response?: { status: number; body: string; headers?: Record<string, string> };
  createdAt: number;
  /** After this the key may be used afresh (epoch ms). */
  expiresAt: number;
}

/** What acquiring a lease found. */
export interface LeaseGrant {
  /** The run with its new fence and lease. */
  run: RunRecord;
  /** The lease taken had lapsed without release: the invocation before was lost. */
  previousLost: boolean;
  /**
   * The operations the invocation replays from ({@link Store.loadReplayOperations}'s answer),
   * from what the lease's own write read back, when the store can give them without reading the
   * run again (DynamoDB: the run item the conditional update returned). Outside events that land
   * after it are caught as after any read: the release sees the run's `eventSeq` moved.
   */
  replay?: () => Promise<Operation[]>;
}

/**
 * Durable storage of runs and operations. Every method that writes is atomic; `commit` is
 * fenced so a stale invocation can never overwrite newer progress. The run's history order
 * (`historySeq`, `historyInvocations`, each operation's `HistoryOrder`; `history-order.ts`) is
 * kept as written, through every write and read, in the writes that carry it.
 */
export interface Store {
  /** Creates the run and its EXECUTION operation unless the id exists; returns the stored run. */
  createRun(run: RunRecord, execution: Operation): Promise<{ created: boolean; run: RunRecord }>;
  /** The run, or undefined (also when its retention has passed). */
  getRun(runId: string): Promise<RunRecord | undefined>;
  /**
   * Takes the lease of a RUNNING run when it is free or lapsed at `now`: the fence grows by one,
   * the lease lasts until `leaseExpiresAt` and `leaseToken` is stored with it (`dueAt` becomes
   * `leaseExpiresAt`, or stays where it was when that is earlier: a store may save the index
   * write, since a run is leased when it is due; the reconciler finds such a run due, reads it and
   * leaves it while the lease is live). Undefined when another invocation holds it. A store whose write may be
   * retried after a lost response (DynamoDB) recognises its own earlier success by the token:
   * the lease held with this token is granted, not refused.
   */
  acquireLease(runId: string, now: number, leaseExpiresAt: number, leaseToken: string): Promise<LeaseGrant | undefined>;
  /**
   * Optional: re-records a RUNNING run's `functionName` from `from` to `to` (a version policy's pin,
   * see `version-policy.ts`), only while it is still `from` and the lease is still `leaseToken`'s,
   * in one conditional write that keeps the listings by function current. True once the run has
   * the name `to` (also when a retried write finds its own earlier success), false when the
   * condition failed otherwise. A store without it pins nothing (a policy that pins needs it).
   */
  pinRun?(runId: string, from: string, to: string, leaseToken: string): Promise<boolean>;
  /**
   * The due index: runs whose `dueAt` is at or before `before`, in (`dueAt`, `runId`) order,
   * at most `limit`, starting after the entry `after` when given (a page's last entry, so a
   * caller pages past runs it could not help, never stuck behind them). Found without scanning
   * every run (a sparse index); may lag behind writes (DynamoDB's indexes are eventually
   * consistent), so callers read each run again before acting on it. With `partition`, only the
   * entries of that partition (see {@link Store.duePartitions}; a one-partition store may ignore it).
   */
  findDueRuns(before: number, limit: number, after?: DueRun, partition?: number): Promise<DueRun[]>;
  /**
   * Optional: how many partitions the due index has (a whole number, 1 or more). With more than
   * one, `findDueRuns(before, limit, after, partition)` reads partition `partition` (0 to count - 1)
   * alone, in the same order, and the partitions together hold every entry exactly once; without
   * `partition` it still reads the whole index, merged. The reconciler then works partitions side
   * by side (`reconcileAll`) instead of one merged page at a time. A store without it has one
   * partition: the whole index (the memory and SQLite stores).
   */
  duePartitions?(): number;
  /** Every operation of the run, in id order of creation. */
  loadOperations(runId: string): Promise<Operation[]>;
  /**
   * Optional: what an invocation replays from, read without the rest: the run's operations
   * except those inside a finished CONTEXT whose result is stored inline, i.e. the live
   * operations plus one record per finished child context, map item or parallel branch, and
   * the children of a context with `ContextDetails.ReplayChildren`, recursively (exactly the
   * operations of `replayScope(loadOperations(runId))`, see `replay-scope.ts`, in the order
   * `loadOperations` guarantees: parents before children, siblings by number). A resume then
   * reads as much whether finished contexts hold ten operations or 100,000. Nothing is deleted:
   * `loadOperations` and `loadOperationPage` still return everything (history, console, export).
   * A store without it is read whole (`loadOperations`), a superset the SDK replays correctly.
   */
  loadReplayOperations?(runId: string): Promise<Operation[]>;
  /** One operation, or undefined. */
  getOperation(runId: string, operationId: string): Promise<Operation | undefined>;
  /**
   * Optional: a page of the run's operations in the order of {@link Store.loadOperations}, read
   * without loading the others (a reader of a 10,000-operation run's history asks for 100 at a
   * time). `after` is the id of the last operation of the page before (the page's `after`); a
   * page after an id the run does not hold starts where that id would sort (DynamoDB) or is empty.
   * A store without it is paged by the caller over `loadOperations`.
   */
  loadOperationPage?(runId: string, request: OperationPageRequest): Promise<OperationPage>;
  /** Runs matching the query, newest first, paginated. */
  listRuns(query: RunQuery): Promise<RunPage>;
  /**
   * Changes a run from outside its invocations (cancel, retry), only while its status is
   * `expectStatus`: applies `patch`, grows the fence by one (a running invocation is fenced
   * out), releases the lease, and writes `operations`, all atomically. The revised run, or
   * undefined when the status differs (nothing written).
   *
   * With `basedOn`, also only while the run's fence is still `basedOn.fence`: the caller computed
   * `patch` from the run it read at that fence (an operator action's audit list, its reopened
   * operations), so a revision that landed in between (another action, a lease) must not be
   * overwritten by a patch built without it; undefined then too, and the caller reads again.
   */
  reviseRun(
    runId: string,
    expectStatus: RunStatus,
    patch: RunPatch,
    operations: readonly Operation[],
    basedOn?: RevisionBase,
  ): Promise<RunRecord | undefined>;
  /**
   * Creates an IN_PROGRESS idempotency record unless a live (unexpired) one has the key; then it
   * returns that one instead.
   */
  claimIdempotencyKey(
    record: IdempotencyRecord,
  ): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyRecord }>;
  /**
   * Stores the first response of a claimed key (state COMPLETED). With `claim`, only while the
   * record is still that claim's (its `claimToken`), and the record then lives until
   * `claim.expiresAt` (a claim is taken with a short lifetime, so a request that died while in
   * progress does not hold its key for the whole retention).
   */
  completeIdempotencyKey(
    key: string,
    response: NonNullable<IdempotencyRecord['response']>,
    claim?: { claimToken: string; expiresAt: number },
  ): Promise<void>;
  /**
   * Forgets a claimed key whose request failed before answering, so a retry may run it; with
   * `claimToken`, only while the record is that claim's (a late release never deletes another's).
   */
  releaseIdempotencyKey(key: string, claimToken?: string): Promise<void>;
  /**
   * An outside writer's change to one operation (a callback completed or heartbeat, a child run
   * finished), made without the lease: it applies only while the stored operation still equals
   * `expected` in `Status` and the deadlines given, and with `event` it also grows the run's
   * `eventSeq` and makes it due (`dueAt` at most now), atomically. False when the condition
   * failed (nothing written). A store whose write may be retried after a lost response
   * recognises its own earlier success: the operation already equal to `next` is true.
   */
  writeOutsideEvent(
    runId: string,
    next: Operation,
    expected: Pick<Operation, 'Status'> & { deadlines?: OperationDeadlines },
    event: boolean,
  ): Promise<boolean>;
  /**
   * Writes operations and a run patch together, only while `fence` is still the run's fence.
   * Rejects with `FencedError` otherwise; then nothing is written. A patch that sets
   * `handledEventSeq` below the stored `eventSeq` (an outside event landed meanwhile) leaves the
   * run due at once (`dueAt` = now), whatever `dueAt` the patch says.
   */
  commit(runId: string, fence: number, write: CommitWrite): Promise<void>;
  /**
   * Optional, with the other slot methods (a store without them cannot serve `concurrency`): takes
   * a slot of `slot` for `runId`, in one conditional write of the key's set of holders. True when
   * `runId` holds one already (a retry after a lost response) or fewer than `limit` runs do (it is
   * added); false otherwise (nothing written).
   */
  takeSlot?(slot: SlotKey, runId: string, limit: number): Promise<boolean>;
  /** Removes `runId` from the key's holders; idempotent (a run that holds none is no change). */
  releaseSlot?(slot: SlotKey, runId: string): Promise<void>;
  /** The run ids holding a slot of the key, read consistently (after every write that returned). */
  slotHolders?(slot: SlotKey): Promise<string[]>;
  /** Puts the run in the key's queue; idempotent (the same entry again is no change). */
  enqueueRun?(slot: SlotKey, entry: QueuedRunEntry): Promise<void>;
  /** Takes the entry out of the key's queue; idempotent. */
  dequeueRun?(slot: SlotKey, entry: QueuedRunEntry): Promise<void>;
  /**
   * The key's queue in admission order (`queuedBefore`), at most `limit` entries, starting after
   * `after` when given. Entries may be stale (a run admitted or ended whose entry was not yet
   * taken out): callers read each run before acting on it.
   */
  listQueuedRuns?(slot: SlotKey, limit: number, after?: QueuedRunEntry): Promise<QueuedRunEntry[]>;
  /**
   * Optional, with {@link Store.writeGate} (a store without them cannot serve `throttle`,
   * `rateLimit` or `debounce`): a gate's register, read consistently, or undefined when it was never
   * written or its `expiresAt` has passed.
   */
  readGate?(gate: GateKey): Promise<GateRecord | undefined>;
  /**
   * Writes the register's value as version `expected + 1`, only while its version is still
   * `expected` (`0`: the register must not exist, or has expired). True when written; false
   * otherwise (nothing written). `expiresAt` (epoch ms): after it the register reads as absent
   * and the store may delete it.
   */
  writeGate?(gate: GateKey, value: GateRecord['value'], expected: number, expiresAt: number): Promise<boolean>;
  /**
   * Optional, with the two below: stores a function's limits as last recorded (see
   * `noteFunctionLimits`), replacing the record it had. Written rarely (a cold start whose code's
   * limits differ from the stored ones), read by the control API's functions listing.
   */
  putFunctionLimits?(record: FunctionLimitsRecord): Promise<void>;
  /** The function's limits record (by its bare name), or undefined. */
  getFunctionLimits?(functionName: string): Promise<FunctionLimitsRecord | undefined>;
  /** Every function's limits record, by name. */
  listFunctionLimits?(): Promise<FunctionLimitsRecord[]>;
  /**
   * Optional, with {@link Store.listSignals} (a store without them cannot serve signals): stores a
   * signal in the run's inbox with the next `seq` (the run's `signalSeq` + 1), while the run is
   * live and RUNNING or QUEUED, and in the same atomic write grows `signalSeq` and, for a RUNNING
   * run, `eventSeq` (making it due as {@link Store.writeOutsideEvent} does). With `dedupeKey`, a
   * signal the run holds with that key is answered instead (`created` false; nothing written). A
   * store whose write may be retried after a lost response recognises its own earlier success.
   */
  appendSignal?(runId: string, send: SignalSend): Promise<SignalAppend>;
  /**
   * The run's signals in `seq` order, read consistently (after every append that returned).
   * `createdAt`: the run's, when the caller holds it (an invocation): a store may then skip
   * reading the run to know which creation's inbox to read.
   */
  listSignals?(runId: string, createdAt?: number): Promise<SignalRecord[]>;
}

/** What {@link Store.commit} writes. */
export interface CommitWrite {
  operations: readonly Operation[];
  run?: RunPatch;
  /**
   * With a patch that sets `tags`: what a store that indexes tags apart from the run (DynamoDB)
   * needs to move the run's index entries without reading the run first: the tags the patch
   * replaces, as the writer (the lease holder, the only writer of a running run's tags) knows
   * them, and the run's `createdAt` (where its entries sort). Other stores may ignore it.
   */
  tagged?: { before: Readonly<Record<string, string>>; createdAt: number };
}

/** The run a revision was computed from (see {@link Store.reviseRun}). */
export interface RevisionBase {
  /** The fence of the run as the caller read it. */
  fence: number;
}

/** Which page of a run's operations {@link Store.loadOperationPage} reads. */
export interface OperationPageRequest {
  /** Operations after this one (an id the previous page ended with); absent for the first page. */
  after?: string;
  /** At most this many operations (at least 1). */
  limit: number;
}

/** A page of a run's operations; `after` is present when more may follow (pass it back). */
export interface OperationPage {
  operations: Operation[];
  /** The id of the page's last operation, when more may follow. */
  after?: string;
}

/** The deadlines of a callback that an outside write must find unchanged. */
export interface OperationDeadlines {
  TimeoutTimestamp?: number;
  HeartbeatDeadline?: number;
}
