/**
 * The run record and the parts it is made of: its status, its operator actions, its meter, the
 * patch a write applies to it, and its place in the due index. A leaf of the engine's import graph
 * (nothing here imports the modules that work on runs), so those modules and the ports can all
 * name these types without a cycle.
 */
import type { ErrorObject } from '@durable-lambda/protocol';
import type { HistoryInvocation } from './history-order';

/**
 * Where a run stands as a whole. `QUEUED`: the run waits for a slot of its concurrency key (see
 * `concurrency-admission.ts`); it has not run its handler since it was queued.
 */
export type RunStatus = 'RUNNING' | 'QUEUED' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'STOPPED' | 'CANCELLED';

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
  /**
   * The concurrency key the run was admitted or queued under (`concurrency-admission.ts`). A RUNNING run
   * with it and without {@link RunRecord.queuedAt} holds a slot of the key; kept once the run ends.
   */
  concurrencyKey?: string;
  /**
   * Set when the run took a slot of its `concurrencyKey` (or its singleton key), cleared once the
   * slot is released after its end: until then an ended run stays in the due index, so a release
   * lost to a crash or a fault is made by the reconciler and no ended run keeps a slot.
   */
  slotHeld?: boolean;
  /** While the run waits for a slot: when it was queued (epoch ms), its place in the key's queue. */
  queuedAt?: number;
  /** The queue priority the run waits with (lower first; 0 by default; `concurrency-admission.ts`). */
  queuePriority?: number;
  /** What flow control decided of the run at its admission (`flow/admission.ts`); absent without it. */
  flow?: FlowMarks;
  /**
   * The state the run published last (`ctx.publish`), as its invocations wrote it: read by the
   * API, CLI and dashboard without touching the run. Absent until the run publishes.
   */
  published?: PublishedState;
  /**
   * The run's search tags (`ctx.tag`, or given at start), key to value: found by `RunQuery.tags`.
   * Absent until the run has one.
   */
  tags?: Record<string, string>;
  /**
   * How many signals were sent to the run (`signals.ts`): the last signal's `seq`. Grown by the
   * write that stores a signal; absent until the first.
   */
  signalSeq?: number;
  /**
   * Per signal name, the `seq` of the last signal delivered to a `waitForSignal` (signals of a
   * name are delivered in order, so everything of that name up to it was taken). Written by the
   * same write as the wait that took it.
   */
  signalCursor?: Record<string, number>;
  /**
   * A QUEUED run's place in its key's queue (1: next to start), computed by the engine's reads
   * (`Engine.getRun`, `Engine.listRuns`); never stored.
   */
  queuePosition?: number;
}

/**
 * A run's published state (see `session-published.ts`): written with the invocation's next write
 * after `ctx.publish`, never by a write of its own.
 */
export interface PublishedState {
  /** The state, serialized as JSON (at most `MAX_PUBLISHED_STATE_BYTES` bytes). */
  state: string;
  /** When the run published it (epoch ms, the engine's clock). */
  at: number;
  /** How many published states the run's writes have stored so far, this one included: grows by one with each. */
  seq: number;
}

/** The gates of flow control, in the order a run passes them. */
export type FlowGate = 'debounce' | 'rateLimit' | 'throttle' | 'singleton' | 'concurrency';

/**
 * Flow control's marks on a run: the gates it passed (never asked again: a run woken from a wait
 * goes on from where it stood) and, while it is QUEUED on a timed gate, which and until when.
 */
export interface FlowMarks {
  passed: FlowGate[];
  /**
   * While QUEUED: what it waits for besides a slot: its reserved start (`throttle`), its debounce
   * window (`debounce`), or the runs of its schedule it was buffered behind (`schedule`, `bufferOne`).
   */
  waitingFor?: 'throttle' | 'debounce' | 'schedule';
  /** When a `throttle` or `debounce` wait ends (epoch ms): the run is woken then. */
  until?: number;
  /** The runs a `schedule` wait is behind: it starts once they all ended. */
  behind?: string[];
}

/** What an operator did to a run. */
export type RunActionKind = 'cancel' | 'cancel_tree' | 'retry' | 'skip_step';

/** One operator action, as the run keeps it. */
export interface RunAction {
  /** Unique to the request (its Idempotency-Key, or a random id): a repeat finds this entry. */
  id: string;
  action: RunActionKind;
  /** Who asked: an IAM principal, a user name, `anonymous` when nobody was named. */
  actor: string;
  /** When (epoch ms, the engine's clock). */
  at: number;
  /** The operation acted on (a retry's starting point, the skipped step). */
  operationId?: string;
  /** For a tree cancel, the run whose cancel reached this one (absent on the root). */
  viaRunId?: string;
  /** The status the run had before. */
  fromStatus: RunStatus;
}

/**
 * What a run consumed, summed over the invocations that recorded theirs: the quantities its bill
 * is made of. Every figure only grows: each invocation adds what it used with its last write (see
 * {@link InvocationMeter}), and stores add increments (DynamoDB `ADD`, an SQL transaction, `+=`),
 * so concurrent increments never lose counts.
 *
 * A figure a host does not measure is absent, not zero: locally (dev server, test runner) only
 * `invocations` and `billedMs` are counted, since there is no DynamoDB, Scheduler or SQS to count.
 *
 * Not counted anywhere: an invocation lost before its last write (a crash, a timeout: the run's
 * `lostInvocations` counts those), a duplicate wake-up that opened nothing, and writes made from
 * outside the run's invocations (a callback completed through the control API, an operator
 * action, the reconciler's reads).
 */
export interface RunMeter {
  /** Invocations whose consumption is recorded here (each adds one). */
  invocations: number;
  /** Billed duration, ms: each invocation's, from its start to its last write, rounded up to the ms. */
  billedMs: number;
  /**
   * Billed duration times the function's memory, MB·ms (GB-seconds = `mbMs / 1024 / 1000`), so a
   * function whose memory changed between invocations is priced right. Absent where memory is unknown.
   */
  mbMs?: number;
  /** DynamoDB write request units, base table and indexes together. */
  wru?: number;
  /** DynamoDB read request units, base table and indexes together. */
  rru?: number;
  /** EventBridge Scheduler API requests (`CreateSchedule`, `DeleteSchedule`; not billed by AWS). */
  schedulerRequests?: number;
  /** EventBridge Scheduler invocations: schedules that fire (what Scheduler bills). */
  schedulerInvocations?: number;
  /** SQS requests (each wake-up message's send, and its receive and delete by Lambda's event source). */
  sqsRequests?: number;
  /** Asynchronous Lambda `Invoke` calls (immediate wake-ups, chained invokes, hand-overs). */
  lambdaInvokes?: number;
}

/** An amount to add to a {@link RunMeter}: absent fields add nothing. */
export type RunMeterIncrement = Partial<RunMeter>;

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
    | 'historyInvocations'
    | 'concurrencyKey'
    | 'queuedAt'
    | 'queuePriority'
    | 'slotHeld'
    | 'flow'
    | 'published'
    | 'tags'
    | 'signalCursor']?: RunRecord[K] | null;
} & {
  /**
   * Added to the run's {@link RunRecord.meter} field by field (never set: an increment, so writes
   * that race never lose counts; a field absent from the meter and the increment stays absent).
   */
  meter?: RunMeterIncrement;
};

/**
 * When the reconciler must look at a run (the key of every store's due index), or undefined.
 * A RUNNING run is due when its lease lapses, at once when an outside event is unhandled, else
 * at its next wake-up (a QUEUED run likewise: at its safety re-check); an ended run is due while its
 * parent has not heard that it ended, and while its slot is not released (`slotHeld`).
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
    Partial<Pick<RunRecord, 'deadlineAt' | 'childrenOpen' | 'slotHeld'>>,
): number | undefined {
  if (run.status === 'RUNNING' || run.status === 'QUEUED') {
    const due =
      run.leaseExpiresAt !== undefined
        ? run.leaseExpiresAt
        : run.eventSeq > run.handledEventSeq
          ? run.updatedAt
          : run.nextWakeAt;
    // The execution deadline is enforced from the index too: a run asleep (or held) past it ends.
    return run.deadlineAt === undefined ? due : Math.min(due ?? run.deadlineAt, run.deadlineAt);
  }
  if ((run.parent && !run.parentNotified) || run.childrenOpen || run.slotHeld) return run.endedAt ?? run.updatedAt;
  return undefined;
}

/**
 * Whether `run` may hold a slot of its key as it ends: it took one (`slotHeld`), or it has a key
 * and may have taken one whose record was lost (a slot taken, then a death before the admission
 * was written). Its end then marks it `slotHeld`, so it stays due until the slot is released.
 */
export function mayHoldSlot(run: Pick<RunRecord, 'slotHeld' | 'concurrencyKey'>): boolean {
  return run.slotHeld === true || run.concurrencyKey !== undefined;
}

/** A run in the due index: its id and due time (also a position in the index, for paging). */
export interface DueRun {
  runId: string;
  dueAt: number;
}

/** Whether due-index entry `a` comes after `b` in the index's (`dueAt`, `runId`) order. */
export function dueAfter(a: DueRun, b: DueRun): boolean {
  return a.dueAt > b.dueAt || (a.dueAt === b.dueAt && a.runId > b.runId);
}
