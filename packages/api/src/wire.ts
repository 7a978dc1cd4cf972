/**
 * The control API's JSON shapes, shared by the server, the typed client, the CLI and the
 * dashboard. Times are ISO-8601 strings; payloads are the parsed JSON values.
 */

/** Statuses of a run. */
export type RunStatusWire = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'STOPPED' | 'CANCELLED';

/** An error as the API shows it. */
export interface ErrorWire {
  code: string;
  message: string;
  /** The original error's type (class name), when known. */
  type?: string;
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
  /** When the run next has something to do, while it waits on time. */
  nextWakeAt?: string;
  invocations: number;
  lostInvocations: number;
  /** Set on a run started by another run's `invoke`. */
  parent?: { runId: string; operationId: string };
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
}

/** `GET /v1/functions` answer. */
export interface FunctionListWire {
  functions: Array<{ name: string }>;
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
