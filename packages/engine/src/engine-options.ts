/**
 * What an `Engine` is built with (its ports, clock and limits) and what starting a run asks
 * (`Engine.startRun`).
 */
import type { ExecutionTimeoutSetting } from './execution-timeout';
import type { Clock, Invoker, Store, Waker } from './ports';
import type { VersionPolicy } from './version-policy';

/** Options of an {@link Engine}. */
export interface EngineOptions {
  store: Store;
  waker: Waker;
  /** Needed for chained invokes and resumes by outside events. */
  invoker?: Invoker;
  clock?: Clock;
  /** Largest payload of one operation, bytes. Default 6 MiB (Lambda's response limit). */
  maxPayloadBytes?: number;
  /** How long a finished run is kept, ms; undefined keeps it forever. */
  retentionMs?: number;
  /** Added to an invocation's remaining time to get its lease's lifetime. Default 10 s. */
  leaseGraceMs?: number;
  /** Remaining time assumed when the caller gives none (not Lambda). Default 15 min. */
  defaultInvocationMs?: number;
  /** Delay before retrying a run whose invocation hit an infrastructure fault. Default 5 s. */
  faultRetryMs?: number;
  /**
   * How long past due a run must be before {@link Engine.reconcile} wakes it, ms: its own wake-up
   * gets this long to arrive first. Default 2 minutes (EventBridge Scheduler fires up to a minute
   * late); local runtimes with precise timers use less.
   */
  reconcileGraceMs?: number;
  /**
   * The run-level execution timeout, seconds (AWS's `DurableConfig.ExecutionTimeout`: 1 s to
   * 366 days), for every function or by function name; a run's own `executionTimeoutSeconds`
   * wins. At the deadline the run ends TIMED_OUT (see `execution-timeout.ts`). Default: none.
   */
  executionTimeout?: ExecutionTimeoutSetting;
  /**
   * How long after it is queued a QUEUED run (flow control per key) is due anyway, ms: the
   * reconciler then tries its admission again, so a hand-over lost to a crash strands nothing.
   * Default 15 minutes.
   */
  queueRecheckMs?: number;
  /**
   * Which code runs run on: the name a run starts under, whether an invocation may open a run
   * recorded elsewhere (else it hands the run there), and the pin written at a run's first lease
   * (see `version-policy.ts`). Default: no pinning (`noVersionPinning`).
   */
  versions?: VersionPolicy;
}

/** A request to start a run. */
export interface StartRunRequest {
  functionName: string;
  /** The serialized input (JSON). */
  input?: string;
  /** Makes the start idempotent: the same key always names the same run. */
  runKey?: string;
  /** The run and chained-invoke operation that started this run, if any. */
  parent?: { runId: string; operationId: string };
  /** This run's execution timeout, seconds (1 s to 366 days); default: its function's. */
  executionTimeoutSeconds?: number;
  /**
   * The invocation starting the run holds its first lease from the start: the run is created
   * leased (fence 1, this lease), in the store's one write, instead of created and then leased.
   * Used by {@link Engine.open} for a start event.
   */
  lease?: { leaseExpiresAt: number; leaseToken: string };
  /**
   * The run is created QUEUED behind `behind` (a schedule's `bufferOne` firing, see
   * `starts/schedule-buffer.ts`): in the queue of `key` from `queuedAt`, re-checked at `recheckAt`.
   */
  buffered?: { key: string; behind: string[]; queuedAt: number; recheckAt: number };
  /** Search tags the run starts with (as `ctx.tag` sets them; see `tagsProblem`). */
  tags?: Readonly<Record<string, string>>;
}
