/**
 * The control API's JSON shapes, shared by the server, the typed client, the CLI and the
 * dashboard. Times are ISO-8601 strings; payloads are the parsed JSON values.
 */

/** Statuses of a run (`QUEUED`: waiting for a slot of its concurrency key). */
export type RunStatusWire = 'RUNNING' | 'QUEUED' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'STOPPED' | 'CANCELLED';

/** An error as the API shows it. */
export interface ErrorWire {
  code: string;
  message: string;
  /** The original error's type (class name), when known. */
  type?: string;
  /** The error's data (AWS's `ErrorData`: a string the thrower attached), when it has some. */
  data?: string;
  /** Where it was thrown, one frame a line, when the SDK recorded it. */
  stackTrace?: string[];
}

/** A run. */
export interface RunWire {
  runId: string;
  function: string;
  status: RunStatusWire;
  runKey?: string;
  input?: unknown;
  result?: unknown;
  error?: ErrorWire;
  createdAt: string;
  updatedAt: string;
  endedAt?: string;
  /** The concurrency key the run was admitted or queued under (flow control per key). */
  concurrencyKey?: string;
  /** While QUEUED: when it was queued. */
  queuedAt?: string;
  /** While QUEUED: its place in its key's queue (1: next to start). */
  queuePosition?: number;
  /**
   * While QUEUED on something besides a slot: its throttled start (`throttle`), its debounce
   * window (`debounce`), or the runs of its schedule it waits behind (`schedule`, `bufferOne`).
   */
  queuedFor?: 'throttle' | 'debounce' | 'schedule';
  /** While waiting for `throttle` or `debounce`: when the wait ends. */
  queuedUntil?: string;
  /** While waiting for `schedule`: the runs it waits behind. */
  queuedBehind?: string[];
  /** When the run next has something to do, while it waits on time. */
  nextWakeAt?: string;
  /**
   * The run's execution deadline, when it has an execution timeout (its own or its function's):
   * at it the run ends `TIMED_OUT` (`execution_timed_out`) with its child runs.
   */
  deadlineAt?: string;
  invocations: number;
  lostInvocations: number;
  /**
   * What the run consumed so far, added by each invocation's last write (see {@link RunMeterWire});
   * absent until one did.
   */
  meter?: RunMeterWire;
  /** Set on a run started by another run's `invoke`. */
  parent?: { runId: string; operationId: string };
  /**
   * The state the run published last (`ctx.publish`), read from the store without touching the
   * run; absent until it published one.
   */
  published?: PublishedWire;
  /** The run's search tags (`ctx.tag`, or given at start), key to value; absent when it has none. */
  tags?: Record<string, string>;
  /** What a RUNNING run waits for (`GET /v1/runs?include=waitingFor` only), soonest first (at most 50). */
  waitingFor?: WaitingForWire[];
  /**
   * Payloads left out of this answer for their size, each with the bytes of its JSON: a list of
   * runs leaves out any above 16 KB, a single run what passes 4 MB. Read them in slices with
   * `GET /v1/runs/{runId}/payloads/{field}`.
   */
  omitted?: Partial<Record<RunPayloadField, number>>;
  /** How many signals were sent to the run (`POST /v1/runs/{id}/signals/{name}`); absent when none. */
  signals?: number;
}

/** A run's published state (`ctx.publish`). */
export interface PublishedWire {
  /** The state, as the JSON value the run published. */
  state: unknown;
  /** When the run published it. */
  at: string;
  /** How many published states the run stored so far, this one included: it grows with each. */
  seq: number;
}

/**
 * What a run consumed: the quantities its AWS bill is made of, summed over its invocations. A
 * figure that was not measured is absent: the dev server and the test runner count `invocations`
 * and `billedMs` only. On AWS (a meter with `wru`) an absent figure is zero.
 */
export interface RunMeterWire {
  /** Invocations recorded (a Scheduler hop's counts too). */
  invocations: number;
  /** Billed Lambda duration, ms (each invocation rounded up to the ms). */
  billedMs: number;
  /** Billed duration times memory, MB·ms (GB-seconds = `mbMs / 1024 / 1000`). */
  mbMs?: number;
  /** DynamoDB write request units, table and indexes. */
  wru?: number;
  /** DynamoDB read request units, table and indexes. */
  rru?: number;
  /** EventBridge Scheduler API requests (not billed by AWS). */
  schedulerRequests?: number;
  /** EventBridge Scheduler invocations (schedules that fire: what Scheduler bills). */
  schedulerInvocations?: number;
  /** SQS requests (each wake-up message: send, receive, delete). */
  sqsRequests?: number;
  /** Asynchronous Lambda `Invoke` calls. */
  lambdaInvokes?: number;
}

/** One thing a RUNNING run waits for. */
export interface WaitingForWire {
  /**
   * `invocation`: an invocation is running it now; `due`: it is due and about to run; `wait`: a
   * durable wait (until `at`); `retry`: a step's next attempt (at `at`); `callback`: a callback
   * (timing out at `at`, if it has a timeout); `signal`: a `waitForSignal` for the signal `name`
   * (timing out at `at`, if it has a timeout); `child`: a child run started by `invoke`.
   */
  kind: 'invocation' | 'due' | 'wait' | 'retry' | 'callback' | 'signal' | 'child';
  operationId?: string;
  name?: string;
  at?: string;
  callbackId?: string;
  childRunId?: string;
  function?: string;
}

/** A log line a handler wrote (its context's or a step's logger). */
export interface LogWire {
  at: string;
  level: string;
  message: string;
  /** The operation whose logger wrote it; absent for the context's logger. */
  operationId?: string;
  /** The step attempt that wrote it, 1-based. */
  attempt?: number;
  data?: unknown;
}

/** One invocation of a run: from taking the run's lease to releasing it. */
export interface InvocationWire {
  /** 1-based, in order. */
  number: number;
  startedAt: string;
  /** Absent while it runs, or when it was lost. */
  endedAt?: string;
  /** It lost its lease without releasing it (a crash, a timeout). */
  lost?: boolean;
  /** Where its end stands in the run's recorded history (issue 23), when the run recorded it. */
  historyOrder?: number;
}

/** A map's or parallel's items, counted by status (an abandoned item counts as `ABANDONED`). */
export interface BatchItemsWire {
  total: number;
  byStatus: Record<string, number>;
}

/** One operation of a run, as its history shows it. */
export interface OperationWire {
  id: string;
  parentId?: string;
  name?: string;
  type: 'EXECUTION' | 'STEP' | 'WAIT' | 'CALLBACK' | 'CHAINED_INVOKE' | 'CONTEXT';
  subType?: string;
  status: 'STARTED' | 'PENDING' | 'READY' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED' | 'TIMED_OUT' | 'STOPPED';
  startedAt: string;
  endedAt?: string;
  /** Steps: the current or last attempt (1-based) and when the next is due. */
  attempt?: number;
  nextAttemptAt?: string;
  /**
   * Where each of its history events stands in the run's order, oldest first, as the run recorded
   * them (issue 23; `Operation.HistoryOrder`): readers order events by it. Absent on runs written before.
   */
  historyOrder?: number[];
  /** Steps: the attempts that failed before, oldest first (the last 100). */
  failedAttempts?: Array<{ attempt: number; at: string; error: ErrorWire }>;
  /** The stored result, parsed as JSON when it is JSON, else the raw string. */
  result?: unknown;
  /** The last error (for a step in retry: the error of the attempt that failed). */
  error?: ErrorWire;
  /** Waits: when they end. */
  waitUntil?: string;
  /** Callbacks: the id to complete them with, and their deadlines. */
  callbackId?: string;
  timeoutAt?: string;
  heartbeatDeadline?: string;
  /** Chained invokes: the function and child run. */
  invokedFunction?: string;
  childRunId?: string;
  /**
   * Left unfinished for good: the run ended (`run_ended`: a cancelled run's wait) or a context
   * above it finished (`context_ended`: a race's losing branch). Nothing will complete it.
   */
  abandoned?: 'run_ended' | 'context_ended';
  /** Waits: ended before their time by a wake-now. */
  endedEarly?: boolean;
  /**
   * When its last stretch of work began: its start, or later for a step retried (its last
   * attempt) or an operation reopened by a retry of the run. Durations count from here.
   */
  activeFrom?: string;
  /**
   * How long it took, from `activeFrom` to its end (never spanning a retry of the run). Absent
   * while it runs, and for a retried step when the store does not record invocations (its last
   * attempt's start is then unknown).
   */
  durationMs?: number;
  /** Maps and parallels: their items by status. */
  items?: BatchItemsWire;
  /** The log lines its logger wrote (steps), oldest first, when the store keeps logs. */
  logs?: LogWire[];
  /**
   * Payloads left out of this answer for their size, each with the bytes of its JSON: a history
   * page leaves out any above 16 KB. Read the operation alone with
   * `GET /v1/runs/{runId}/operations/{operationId}` (its payloads up to 4 MB in all), or a payload
   * in slices with `GET /v1/runs/{runId}/operations/{operationId}/payloads/{field}`.
   */
  omitted?: Partial<Record<OperationPayloadField, number>>;
}

/** The payload fields of an operation that an answer may leave out for their size. */
export type OperationPayloadField = 'result' | 'error' | 'failedAttempts' | 'logs';

/** The payload fields of a run that an answer may leave out for their size. */
export type RunPayloadField = 'input' | 'result' | 'error';

/**
 * `GET /v1/runs/{runId}/payloads/{field}` and `GET /v1/runs/{runId}/operations/{operationId}/payloads/{field}`
 * answer: a slice of the payload's JSON text (as the history would show the field). Join the
 * slices from `offset` 0, passing `nextOffset` back as `offset`, and parse the text.
 */
export interface PayloadSliceWire {
  field: string;
  /** Where this slice starts, in characters of the JSON text. */
  offset: number;
  text: string;
  /** Length of the whole JSON text, characters. */
  totalChars: number;
  /** Where the next slice starts; absent on the last. */
  nextOffset?: number;
}

/** `GET /v1/runs` answer. */
export interface RunListWire {
  runs: RunWire[];
  /** Pass as `cursor` for the next page; absent on the last page. */
  nextCursor?: string;
}

/** `GET /v1/runs/{runId}/operations` answer. */
export interface OperationListWire {
  runId: string;
  operations: OperationWire[];
  /** The run's invocations, when the store records them (the dev server's does). */
  invocations?: InvocationWire[];
  /** When the run was retried after failing, when the store records it. */
  retriedAt?: string[];
  /** Log lines of the handler's context logger (not a step's), when the store keeps logs. */
  logs?: LogWire[];
  /**
   * Log lines dropped (the oldest) to keep the run within the store's size cap, or this answer
   * within its budget.
   */
  logsDropped?: number;
  /**
   * Pass as `cursor` for the next page; absent on the last. A page holds at most `limit`
   * operations (default 100, at most 1,000) and stops earlier at its byte budget (1 MB). The
   * journal (`invocations`, `retriedAt`, `logs`, `logsDropped`) comes with the first page only,
   * and a batch's `items` only when the whole run fits one page (count a long run's items from
   * its pages: the client's `history()` does).
   */
  nextCursor?: string;
}

/** `POST /v1/runs/{runId}/wake` body (optional). */
export interface WakeRunBody {
  /** Only this operation (a wait or a step in backoff); default every one that waits on time. */
  operationId?: string;
}

/** `POST /v1/runs/{runId}/wake` answer. */
export interface WakeAnswerWire {
  run: RunWire;
  /** What was ended early: waits, and steps whose next attempt is now due. */
  woken: Array<{ operationId: string; name?: string; kind: 'wait' | 'retry'; dueAt: string }>;
}

/** A sample input of a function, offered by the dashboard's start form. */
export interface FunctionSampleWire {
  /** A short label, e.g. `one book`. */
  name: string;
  input: unknown;
}

/** `GET /v1/functions` answer. */
export interface FunctionListWire {
  functions: Array<{
    name: string;
    samples?: FunctionSampleWire[];
    /**
     * The execution timeout a run of the function gets unless it sets its own, seconds, when the
     * API knows one (a deployed API: the function's `DurableConfig`); absent: none known.
     */
    executionTimeoutSeconds?: number;
    /**
     * The function's flow-control limits as last recorded by its code (the engine records them
     * when it admits a run, the dev server when it loads the handler); absent: none recorded.
     */
    limits?: FunctionLimitsWire;
    /** When the limits were recorded, and by which code version when known. */
    limitsRecordedAt?: string;
    limitsVersion?: string;
    /** Its RUNNING and QUEUED runs (`GET /v1/functions?include=counts` only). */
    counts?: FunctionRunCountsWire;
    /** The schedules fired and the trigger events taken for it, where the server knows (the dev server). */
    starts?: FunctionStartsWire;
  }>;
}

/** A function's flow-control limits (periods in ms); each absent when the function has no such limit. */
export interface FunctionLimitsWire {
  /** At most `limit` runs of a concurrency key RUNNING at once; the rest wait QUEUED. */
  concurrency?: { limit: number };
  throttle?: { limit: number; periodMs: number; burst?: number };
  rateLimit?: { limit: number; periodMs: number };
  debounce?: { periodMs: number; timeoutMs?: number };
  singleton?: { mode: 'skip' | 'cancel' };
  priority?: boolean;
}

/**
 * How many runs of a function are RUNNING and QUEUED, counted from its runs a page at a time up to
 * a bound (see the API's `FUNCTION_COUNT_LIMIT`); `runningMore` / `queuedMore`: there are more
 * than the count says.
 */
export interface FunctionRunCountsWire {
  running: number;
  queued: number;
  runningMore?: boolean;
  queuedMore?: boolean;
}

/** What starts a function's runs besides the API, where the server knows it. */
export interface FunctionStartsWire {
  /** The recurring schedules fired for it. */
  schedules?: Array<{
    name: string;
    /** Every this many ms (a rate schedule), or */
    rateMs?: number;
    /** at these times (an EventBridge Scheduler cron, in `timezone`, default UTC). */
    cron?: string;
    timezone?: string;
    overlap: string;
    catchUp: boolean;
  }>;
  /** Where its trigger events (SQS, EventBridge, DynamoDB Streams) and schedule firings are delivered. */
  eventsPath?: string;
}

/** `POST /v1/runs` body. */
export interface StartRunBody {
  function: string;
  input?: unknown;
  runKey?: string;
}

/** `POST /v1/callbacks/{callbackId}/succeed` body: the result, any JSON value. */
export interface CallbackSucceedBody {
  result?: unknown;
}

/** `POST /v1/callbacks/{callbackId}/fail` body. */
export interface CallbackFailBody {
  error: { code?: string; message: string };
}

/** Every error answer. */
export interface ErrorBody {
  error: { code: string; message: string };
}

/** Answer of `POST /v1/callbacks/{callbackId}/succeed|fail|heartbeat` (added by the API package). */
export interface CallbackAckWire {
  callbackId: string;
  /** What the API recorded: the callback succeeded or failed, or its heartbeat was taken. */
  outcome: 'succeeded' | 'failed' | 'heartbeat';
}
