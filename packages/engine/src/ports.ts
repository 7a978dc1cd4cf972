import type { ErrorObject, Operation } from '@durable-lambda/protocol';
import type { HistoryInvocation } from './history-order';
import type { RunAction } from './run-audit';
import type { RunMeter, RunMeterIncrement } from './run-meter';

/** Where a run stands as a whole. */
export type RunStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'STOPPED' | 'CANCELLED';

/** The run record: one per run, holding its lease, fencing token and outcome. */
export interface RunRecord {
  runId: string;
  functionName: string;
  /** The key the run was started with (a run key or a Lambda request id). */
  runKey?: string;
  /**
   * Set on a run started with a key: random, unique to this creation of the run id. The id names
   * a new run once this one has expired, and everything that must never repeat across creations
   * (a step's idempotency key, a child run's key) is derived from `incarnationId(runId,
   * incarnation)`. Absent for a random run id (never used again) and on runs created before it.
   */
  incarnation?: string;
  status: RunStatus;
  /** The serialized input. */
  input?: string;
  /** The serialized result, once SUCCEEDED. */
  result?: string;
  /** The error, once FAILED. */
  error?: ErrorObject;
  createdAt: number;
  updatedAt: number;
  endedAt?: number;
  /** Fencing token: grows by one at every lease; every write is conditional on it. */
  fence: number;
  /** While an invocation owns the run: when its lease lapses. */
  leaseExpiresAt?: number;
  /** The earliest time the run has work to do; absent while it waits only for outside events. */
  nextWakeAt?: number;
  /** Invocations that took the lease. */
  invocations: number;
  /** Invocations that lost the lease without releasing it (crash, timeout, out of memory). */
  lostInvocations: number;
  /** Retention: when the run may be deleted (epoch ms). */
  expiresAt?: number;
  /** Grows by one at each outside event (a callback completed, a child run finished). */
  eventSeq: number;
  /** The `eventSeq` the last finished invocation had seen: a larger `eventSeq` means work to do. */
  handledEventSeq: number;
  /** Set on a run started by another run's `invoke`. */
  parent?: { runId: string; operationId: string };
  /**
   * Set once an ended run with a `parent` has completed the parent's chained invoke: until then
   * the run stays in the due index, so a notification lost to a crash or a fault is sent again.
   */
  parentNotified?: boolean;
  /** The token of the invocation that took the current lease (see `Store.acquireLease`). */
  leaseToken?: string;
  /**
   * The due index key: when the reconciler must next look at the run; absent when nothing can
   * strand it. Every store keeps it equal to {@link dueAtOf} of the record after every write.
   */
  dueAt?: number;
  /**
   * The run's execution deadline (epoch ms): at it the run ends TIMED_OUT, whatever it is doing
   * (see `execution-timeout.ts`). Absent: no run-level timeout.
   */
  deadlineAt?: number;
  /** The execution timeout the run was started with, ms: a retry gives it a fresh deadline this long. */
  executionTimeoutMs?: number;
  /**
   * Set on a run ended with its tree (a timeout, a tree cancel) while its child runs are still to
   * be ended: until cleared the run stays in the due index, so a crash midway is finished later.
   */
  childrenOpen?: boolean;
  /** Operator actions on the run (who, when, what), oldest first, the last 100 (see `run-audit.ts`). */
  actions?: RunAction[];
  /**
   * What the run consumed (see `run-meter.ts`): absent until an invocation recorded its own. Only
   * ever added to, by {@link RunPatch.meter}.
   */
  meter?: RunMeter;
  /** The history events the run's invocations recorded so far (`history-order.ts`); absent on runs made before. */
  historySeq?: number;
  /** The run's latest ended invocations, where each end stands in its history (`history-order.ts`). */
  historyInvocations?: HistoryInvocation[];
}

/**
 * When the reconciler must look at a run (the key of every store's due index), or undefined.
 * A RUNNING run is due when its lease lapses, at once when an outside event is unhandled, else
 * at its next wake-up; an ended run is due while its parent has not heard that it ended.
 */
export function dueAtOf(
  run: Pick<
    RunRecord,
    | 'status'
    | 'leaseExpiresAt'
    | 'nextWakeAt'
    | 'eventSeq'
    | 'handledEventSeq'
    | 'updatedAt'
    | 'parent'
    | 'parentNotified'
    | 'endedAt'
  > &
    Partial<Pick<RunRecord, 'deadlineAt' | 'childrenOpen'>>,
): number | undefined {
  if (run.status === 'RUNNING') {
    const due =
      run.leaseExpiresAt !== undefined
        ? run.leaseExpiresAt
        : run.eventSeq > run.handledEventSeq
          ? run.updatedAt
          : run.nextWakeAt;
    // The execution deadline is enforced from the index too: a run asleep (or held) past it ends.
    return run.deadlineAt === undefined ? due : Math.min(due ?? run.deadlineAt, run.deadlineAt);
  }
  if ((run.parent && !run.parentNotified) || run.childrenOpen) return run.endedAt ?? run.updatedAt;
  return undefined;
}

/** A run in the due index: its id and due time (also a position in the index, for paging). */
export interface DueRun {
  runId: string;
  dueAt: number;
}

/** Fields of a run a commit may change. `null` removes a field. */
export type RunPatch = {
  [K in
    | 'status'
    | 'result'
    | 'error'
    | 'endedAt'
    | 'leaseExpiresAt'
    | 'nextWakeAt'
    | 'expiresAt'
    | 'handledEventSeq'
    | 'parentNotified'
    | 'dueAt'
    | 'deadlineAt'
    | 'childrenOpen'
    | 'actions'
    | 'historySeq'
    | 'historyInvocations']?: RunRecord[K] | null;
} & {
  /**
   * Added to the run's {@link RunRecord.meter} field by field (never set: an increment, so writes
   * that race never lose counts; a field absent from the meter and the increment stays absent).
   */
  meter?: RunMeterIncrement;
};

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
  /** At most this many runs (1-100, default 20). */
  limit?: number;
  /** Where the previous page ended. */
  cursor?: string;
}

/** A page of runs, newest first; `cursor` is present when more may follow. */
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
  commit(runId: string, fence: number, write: { operations: readonly Operation[]; run?: RunPatch }): Promise<void>;
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

/** A request to resume a run at a time. */
export interface WakeRequest {
  runId: string;
  functionName: string;
  /** Epoch ms; at or before now means as soon as possible. */
  at: number;
  /**
   * Why: `due` (a wait or retry), `lease` (safety net for a lost invocation), `event` (an outside
   * event), `reconcile` (the reconciler found the run due and not held).
   */
  reason: 'due' | 'lease' | 'event' | 'reconcile';
}

/** Arranges for a run's function to be invoked at a time (EventBridge Scheduler, timers). */
export interface Waker {
  wakeAt(request: WakeRequest): Promise<void>;
  /** Optional: withdraws a wake-up asked for by `wakeAt` with the same request, if still pending. */
  cancel?(request: WakeRequest): Promise<void>;
}

/** Invokes a durable function asynchronously with an event (Lambda Invoke, in-process). */
export interface Invoker {
  invoke(functionName: string, event: unknown): Promise<void>;
  /**
   * Whether `functionName` names a durable function this invoker can reach; when it returns
   * false, an `invoke` of it fails at once with `function_not_found`. Optional: an invoker that
   * cannot tell (Lambda, cross-account) leaves it out.
   */
  knows?(functionName: string): boolean;
}

/** The engine's clock: real time in production, virtual under the test runner. */
export interface Clock {
  now(): number;
}

/** The system clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** Whether due-index entry `a` comes after `b` in the index's (`dueAt`, `runId`) order. */
export function dueAfter(a: DueRun, b: DueRun): boolean {
  return a.dueAt > b.dueAt || (a.dueAt === b.dueAt && a.runId > b.runId);
}
