/**
 * The engine's ports: the `Store` (`store.ts`), the `Waker`, the `Invoker` and the `Clock` that
 * adapters implement, and the run record they pass around (`run-record.ts`). Modules of the engine
 * import them all from here.
 */

export type { DueRun, RunPatch, RunRecord, RunStatus } from './run-record';
export { dueAfter, dueAtOf } from './run-record';
export type {
  CommitWrite,
  IdempotencyRecord,
  LeaseGrant,
  OperationDeadlines,
  OperationPage,
  OperationPageRequest,
  RevisionBase,
  RunPage,
  RunQuery,
  Store,
} from './store';

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
