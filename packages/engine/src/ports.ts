import type { ErrorObject, Operation } from '@durable-lambda/protocol';

/** Where a run stands as a whole. */
export type RunStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'STOPPED' | 'CANCELLED';

/** The run record: one per run, holding its lease, fencing token and outcome. */
export interface RunRecord {
  runId: string;
  functionName: string;
  /** The key the run was started with (a run key or a Lambda request id). */
  runKey?: string;
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
}

/** Fields of a run a commit may change. `null` removes a field. */
export type RunPatch = {
  [K in 'status' | 'result' | 'error' | 'endedAt' | 'leaseExpiresAt' | 'nextWakeAt' | 'expiresAt']?:
    | RunRecord[K]
    | null;
};

/** What acquiring a lease found. */
export interface LeaseGrant {
  /** The run with its new fence and lease. */
  run: RunRecord;
  /** The lease taken had lapsed without release: the invocation before was lost. */
  previousLost: boolean;
}

/**
 * Durable storage of runs and operations. Every method that writes is atomic; `commit` is
 * fenced so a stale invocation can never overwrite newer progress.
 */
export interface Store {
  /** Creates the run and its EXECUTION operation unless the id exists; returns the stored run. */
  createRun(run: RunRecord, execution: Operation): Promise<{ created: boolean; run: RunRecord }>;
  /** The run, or undefined (also when its retention has passed). */
  getRun(runId: string): Promise<RunRecord | undefined>;
  /**
   * Takes the lease of a RUNNING run when it is free or lapsed at `now`: the fence grows by one
   * and the lease lasts until `leaseExpiresAt`. Undefined when another invocation holds it.
   */
  acquireLease(runId: string, now: number, leaseExpiresAt: number): Promise<LeaseGrant | undefined>;
  /** Every operation of the run, in id order of creation. */
  loadOperations(runId: string): Promise<Operation[]>;
  /**
   * Writes operations and a run patch together, only while `fence` is still the run's fence.
   * Rejects with `FencedError` otherwise; then nothing is written.
   */
  commit(runId: string, fence: number, write: { operations: readonly Operation[]; run?: RunPatch }): Promise<void>;
}

/** A request to resume a run at a time. */
export interface WakeRequest {
  runId: string;
  functionName: string;
  /** Epoch ms; at or before now means as soon as possible. */
  at: number;
  /** Why: `due` (a wait or retry), `lease` (safety net for a lost invocation), `event`. */
  reason: 'due' | 'lease' | 'event';
}

/** Arranges for a run's function to be invoked at a time (EventBridge Scheduler, timers). */
export interface Waker {
  wakeAt(request: WakeRequest): Promise<void>;
}

/** Invokes a durable function asynchronously with an event (Lambda Invoke, in-process). */
export interface Invoker {
  invoke(functionName: string, event: unknown): Promise<void>;
}

/** The engine's clock: real time in production, virtual under the test runner. */
export interface Clock {
  now(): number;
}

/** The system clock. */
export const systemClock: Clock = { now: () => Date.now() };
