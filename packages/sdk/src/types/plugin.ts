import type { DurableExecutionInvocationOutput } from './invocation';

/**
 * AWS's instrumentation plugin API (experimental there too): hooks around invocations,
 * operations and attempts, registered with `withDurableExecution(handler, { plugins })` or
 * loaded from the modules named in `DURABLE_EXECUTION_PLUGINS`. Hooks are awaited; a hook that
 * throws is ignored, it never fails the run.
 */

/** The version of the plugin provider contract (AWS's). */
export const DURABLE_INSTRUMENTATION_PLUGIN_API_VERSION = 1;

/** How an invocation ended, as `onInvocationEnd` reports it. */
export const PluginInvocationStatus = {
  SUCCEEDED: 'SUCCEEDED',
  FAILED: 'FAILED',
  PENDING: 'PENDING',
  /** The invocation failed in a way the platform retries (the run goes on). */
  RETRYING: 'RETRYING',
} as const;
/** One of {@link PluginInvocationStatus}'s values. */
export type PluginInvocationStatus = (typeof PluginInvocationStatus)[keyof typeof PluginInvocationStatus];

/** Where an operation stands, as hooks report it. */
export const PluginOperationStatus = {
  STARTED: 'STARTED',
  READY: 'READY',
  PENDING: 'PENDING',
  SUCCEEDED: 'SUCCEEDED',
  FAILED: 'FAILED',
  TIMED_OUT: 'TIMED_OUT',
  STOPPED: 'STOPPED',
  CANCELLED: 'CANCELLED',
} as const;
/** One of {@link PluginOperationStatus}'s values. */
export type PluginOperationStatus = (typeof PluginOperationStatus)[keyof typeof PluginOperationStatus];

/** A durable operation as hooks see it. */
export interface OperationInfo {
  /** The operation's id. */
  id: string;
  name?: string;
  /** `STEP`, `WAIT`, `CALLBACK`, `CHAINED_INVOKE`, `CONTEXT`, `EXECUTION`. */
  type: string;
  subType?: string;
  parentId?: string;
  status?: PluginOperationStatus;
  startTimestamp?: Date;
  endTimestamp?: Date;
  /** The stored (serialized) result. */
  result?: string;
  /** The error it failed with, rebuilt from storage. */
  error?: Error;
  /** The current attempt, 1-based, for steps and checks. */
  attempt?: number;
  /** True when the operation had already ended before this invocation. */
  isReplay: boolean;
  /**
   * Ours: the attempts of a step or check that failed so far, oldest first, as stored (the last
   * 100): when each failure was recorded, on the backend's clock, and its error rebuilt with its
   * stable `code`. Absent when none failed.
   */
  failedAttempts?: PluginFailedAttempt[];
  /** Ours: when a step's or check's next (or current) attempt is, or was, scheduled to start. */
  nextAttemptTimestamp?: Date;
  /** Ours: when a wait is scheduled to end. */
  scheduledEndTimestamp?: Date;
  /** Ours: a callback's id (what `sendCallbackSuccess` and the API take). */
  callbackId?: string;
  /** Ours: the function a chained invoke calls. */
  invokedFunctionName?: string;
  /** Ours: the id of the run a chained invoke started. */
  childRunId?: string;
  /**
   * Ours, on `wrapChildContextFn`'s info (other SDKs' children-replay indicator): true when the
   * context's function runs again over children an earlier invocation recorded (a context
   * still running when that invocation ended), so they replay before new work; false when it
   * runs for the first time.
   */
  isReplayingChildren?: boolean;
}

/** One failed attempt of a step or check, as {@link OperationInfo.failedAttempts} lists it. */
export interface PluginFailedAttempt {
  /** The attempt's number, 1-based. */
  attempt: number;
  /** When its failure was recorded (the backend's clock). */
  timestamp: Date;
  /** Its error, rebuilt from storage, with the stored stable `code`. */
  error: Error & { code?: string };
}

/** An operation as `onOperationEnd` sees it. */
export interface OperationEndInfo extends OperationInfo {
  error?: Error;
}

/** One attempt of a step or check. */
export interface AttemptInfo extends OperationInfo {
  attempt: number;
}

/** How an attempt ended. */
export const AttemptEndInfoOutcome = {
  SUCCEEDED: 'SUCCEEDED',
  FAILED: 'FAILED',
} as const;
/** One of {@link AttemptEndInfoOutcome}'s values. */
export type AttemptEndInfoOutcome = (typeof AttemptEndInfoOutcome)[keyof typeof AttemptEndInfoOutcome];

/** An attempt as `onOperationAttemptEnd` sees it. */
export interface AttemptEndInfo extends AttemptInfo {
  outcome: AttemptEndInfoOutcome;
  error?: Error;
}

/** What every invocation hook is told. */
export interface InvocationBaseInfo {
  /** The Lambda request id (empty when there is none). */
  requestId: string;
  /** The run (AWS: the execution's ARN). */
  executionArn: string;
  /** The run's input. */
  executionInput: unknown;
  /** Every operation of the run so far, by id. */
  operations: Record<string, OperationInfo>;
  /** When the run started. */
  executionStartTimestamp?: Date;
}
/** AWS's other name for {@link InvocationBaseInfo}. */
export type InvokeInfo = InvocationBaseInfo;

/** What `onInvocationStart` and `wrapInvocation` are told. */
export interface InvocationInfo extends InvocationBaseInfo {
  /** True when no operation was recorded before this invocation. */
  isFirstInvocation: boolean;
  /**
   * Operations changed from outside since the previous invocation (a wait ended, a callback
   * completed, a child run finished, a retry came due), a subset of `operations`; empty on the
   * first invocation. When this process ran the previous invocation of the run, exactly what
   * differs from the state it left; otherwise, from the stored times, what ended from outside at
   * or after the last time an invocation wrote (so an end at that very millisecond is named,
   * possibly once more than needed, never missed).
   */
  updatedOperations: Record<string, OperationInfo>;
}

/** What `onInvocationEnd` is told. */
export interface InvocationEndInfo extends InvocationBaseInfo {
  /**
   * Ours (AWS's end info has none): the same flag as the start's, so a plugin can tell a
   * first invocation's end from a replay's without remembering the start.
   */
  isFirstInvocation: boolean;
  status: PluginInvocationStatus;
  executionResult?: unknown;
  executionError?: Error;
}

/** What `onOperationChange` is told. */
export interface OperationChangeInfo {
  executionArn: string;
  updatedOperations: Record<string, OperationInfo>;
  operations: Record<string, OperationInfo>;
}

/** What a wrapped function returns (AWS's). */
export type CustomerFnResult = unknown;
/** A function a `wrap` hook must call exactly once (AWS's). */
export type CustomerFn = () => CustomerFnResult;

/** An instrumentation plugin (AWS's interface): every hook is optional. */
export interface DurableInstrumentationPlugin {
  onInvocationStart?(info: InvocationInfo): Promise<void>;
  wrapInvocation?(
    info: InvocationInfo,
    fn: () => Promise<DurableExecutionInvocationOutput>,
  ): Promise<DurableExecutionInvocationOutput>;
  onInvocationEnd?(info: InvocationEndInfo): Promise<void>;
  onOperationStart?(info: OperationInfo): Promise<void>;
  wrapChildContextFn?(info: OperationInfo, fn: CustomerFn): CustomerFnResult;
  onOperationEnd?(info: OperationEndInfo): Promise<void>;
  onOperationAttemptStart?(info: AttemptInfo): Promise<void>;
  wrapOperationAttemptFn?(info: AttemptInfo, fn: CustomerFn): CustomerFnResult;
  onOperationAttemptEnd?(info: AttemptEndInfo): Promise<void>;
  onOperationChange?(info: OperationChangeInfo): Promise<void>;
  /** Fields added to every log entry of the default logger. */
  enrichLogContext?(): Record<string, string | number | boolean> | undefined;
}

/** A plugin class (AWS's). */
export type DurableInstrumentationPluginType<
  Plugin extends DurableInstrumentationPlugin = DurableInstrumentationPlugin,
> = abstract new (
  ...args: never[]
) => Plugin;

/** What a plugin module exports as `durableExecutionPluginProvider` (AWS's). */
export interface DurableInstrumentationPluginProvider<
  Plugin extends DurableInstrumentationPlugin = DurableInstrumentationPlugin,
> {
  readonly pluginApiVersion: typeof DURABLE_INSTRUMENTATION_PLUGIN_API_VERSION;
  readonly pluginType: DurableInstrumentationPluginType<Plugin>;
  createPlugin(): Plugin;
}
