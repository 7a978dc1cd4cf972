/**
 * The checkpoint protocol spoken between the SDK and the engine. Names and shapes follow the
 * public Lambda durable-execution API (`GetDurableExecutionState`, `CheckpointDurableExecution`)
 * so the engine can also serve AWS's own SDK. Timestamps are epoch milliseconds.
 */

/** Kinds of durable operation. */
export const OperationType = {
  EXECUTION: 'EXECUTION',
  STEP: 'STEP',
  WAIT: 'WAIT',
  CALLBACK: 'CALLBACK',
  CHAINED_INVOKE: 'CHAINED_INVOKE',
  CONTEXT: 'CONTEXT',
} as const;
/** A kind of durable operation. */
export type OperationType = (typeof OperationType)[keyof typeof OperationType];

/** What an update asks the engine to do to an operation. */
export const OperationAction = {
  START: 'START',
  SUCCEED: 'SUCCEED',
  FAIL: 'FAIL',
  RETRY: 'RETRY',
  CANCEL: 'CANCEL',
} as const;
/** An action of an {@link OperationUpdate}. */
export type OperationAction = (typeof OperationAction)[keyof typeof OperationAction];

/** Where an operation stands. */
export const OperationStatus = {
  STARTED: 'STARTED',
  /** A step waiting for its next attempt's time. */
  PENDING: 'PENDING',
  /** A step whose next attempt is due. */
  READY: 'READY',
  SUCCEEDED: 'SUCCEEDED',
  FAILED: 'FAILED',
  CANCELLED: 'CANCELLED',
  TIMED_OUT: 'TIMED_OUT',
  STOPPED: 'STOPPED',
} as const;
/** A status of an {@link Operation}. */
export type OperationStatus = (typeof OperationStatus)[keyof typeof OperationStatus];

/** Statuses after which an operation never changes again. */
export const TERMINAL_STATUSES: ReadonlySet<OperationStatus> = new Set<OperationStatus>([
  'SUCCEEDED',
  'FAILED',
  'CANCELLED',
  'TIMED_OUT',
  'STOPPED',
]);

/** True when the status is final. */
export function isTerminal(status: OperationStatus): boolean {
  return TERMINAL_STATUSES.has(status);
}

/** A stored error. `ErrorCode` is ours: the stable machine-readable code (`step_timeout`, …). */
export interface ErrorObject {
  ErrorType?: string;
  ErrorMessage?: string;
  ErrorCode?: string;
  ErrorData?: string;
  StackTrace?: string[];
}

/** One failed attempt of a step, as its history keeps it (stack traces left out). */
export interface FailedAttempt {
  Attempt: number;
  /** When the attempt's failure was recorded (epoch ms). */
  Timestamp: number;
  Error: Pick<ErrorObject, 'ErrorType' | 'ErrorMessage' | 'ErrorCode'>;
  /**
   * The payload the attempt's RETRY carried (a waitForCondition check's state), kept for the
   * history when at most 1,024 characters (an attempt's history entry stays small).
   */
  State?: string;
}

/** A durable operation as stored by the engine. */
export interface Operation {
  Id: string;
  ParentId?: string;
  Name?: string;
  Type: OperationType;
  SubType?: string;
  Status: OperationStatus;
  StartTimestamp: number;
  EndTimestamp?: number;
  ExecutionDetails?: { InputPayload?: string };
  ContextDetails?: { Result?: string; Error?: ErrorObject; ReplayChildren?: boolean };
  StepDetails?: {
    /** The number of the current (or last) attempt, 1-based. */
    Attempt: number;
    NextAttemptTimestamp?: number;
    Result?: string;
    Error?: ErrorObject;
    /** Ours: the attempts that failed before, oldest first (at most the last 100), for history views. */
    FailedAttempts?: FailedAttempt[];
  };
  WaitDetails?: { ScheduledEndTimestamp: number };
  CallbackDetails?: {
    CallbackId: string;
    Result?: string;
    Error?: ErrorObject;
    TimeoutTimestamp?: number;
    HeartbeatTimeoutSeconds?: number;
    HeartbeatDeadline?: number;
    /**
     * Ours: on a `ctx.waitForSignal` (SubType `WaitForSignal`, the signal's name as `Name`), the
     * sequence number of the signal it took: its consumption, recorded by the write that ends it.
     */
    SignalSeq?: number;
  };
  ChainedInvokeDetails?: {
    FunctionName?: string;
    /** Ours: the child run's id. */
    ChildRunId?: string;
    /** Ours: the child run's serialized input. */
    Input?: string;
    /** The tenant the invoke named (`ChainedInvokeOptions.TenantId`), as Lambda's history shows it. */
    TenantId?: string;
    /**
     * The version of the target function the child runs: the numeric or `$LATEST` qualifier of
     * `FunctionName`, `$LATEST` when unqualified; absent for an alias (resolved when the child runs).
     */
    ExecutedVersion?: string;
    Result?: string;
    Error?: ErrorObject;
  };
  /**
   * Ours: where each of this operation's history events stands in its run's order, oldest event
   * first (one number per event of the engine's `toAwsHistoryEvents`): a whole number for an event
   * an invocation of the run recorded (the run counts them), `n + 0.5` for one written from outside
   * (a callback completed, a child run ended) when the run's count stood at `n`. Given when the
   * event happens; absent on operations written before (their order is inferred).
   */
  HistoryOrder?: number[];
}

/** A change the SDK asks the engine to make to one operation. */
export interface OperationUpdate {
  Id: string;
  ParentId?: string;
  Name?: string;
  Type: OperationType;
  SubType?: string;
  Action: OperationAction;
  Payload?: string;
  Error?: ErrorObject;
  ContextOptions?: { ReplayChildren?: boolean };
  /** Seconds may be fractional: the engine keeps millisecond precision. */
  StepOptions?: { NextAttemptDelaySeconds?: number };
  WaitOptions?: { WaitSeconds: number };
  CallbackOptions?: { TimeoutSeconds?: number; HeartbeatTimeoutSeconds?: number };
  ChainedInvokeOptions?: { FunctionName: string; TenantId?: string };
}
