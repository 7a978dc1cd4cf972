import type { AwsDurableLambdaHandler, Clock, EngineOptions, OutboxDelivery, Store } from '@durable-lambda/engine';
import type { DurableLambdaHandler, RuntimeOverrides } from '@durable-lambda/sdk';
import type { FaultOptions } from '../faults/fault-plan';
import type { WakeUpTable } from './sqlite-wake-ups';

/** What a `LocalRuntime` needs of its store: a `Store` that keeps wake-ups and reports writes. */
export type LocalRuntimeStore = Store & {
  /** Where the timer waker persists its wake-ups. */
  readonly wakeUps: WakeUpTable;
  /** Calls `listener` after every write of a run; returns a function that stops it. */
  subscribe(listener: () => void): () => void;
  /**
   * Called once at every start, before the first reconcile: takes the store for this runtime
   * alone (throwing when another runtime has it) and lapses every lease held at `now`, which
   * can then only be a dead process's (see `SqliteStore.reclaimLeases`). A store without it
   * leaves such leases to lapse by themselves.
   */
  reclaimLeases?(now: number): readonly string[] | Promise<readonly string[]>;
  /**
   * Called once at every start, right after `reclaimLeases`: forgets every control-API request
   * still in progress (an `Idempotency-Key` claimed, its answer never recorded). Nothing of this
   * runtime has claimed a key yet, so each such claim is a dead process's, and a retry of that
   * request would otherwise be answered `409 idempotency_in_progress` until the claim expires
   * (15 minutes). Returns the keys released. A store without it leaves such claims to expire.
   */
  releaseClaims?(): readonly string[] | Promise<readonly string[]>;
  /**
   * Called by each invocation once it holds its run's lease, before its handler runs: undefined to
   * go on at once, or a promise that settles when it is the invocation's turn (see
   * `SqliteStore.takeTurn`: replays and commits share the event loop with the rest of the process).
   * A store without it lets every invocation go on at once.
   */
  takeTurn?(): Promise<void> | undefined;
};

/** Options of a `LocalRuntime`. */
export interface LocalRuntimeOptions {
  /** Called with each event a step emitted as the runtime's in-process outbox delivers it (the dev server logs it). */
  onOutboxDelivery?: (delivery: OutboxDelivery) => void;
  /** Where runs live, usually a `SqliteStore`. */
  store: LocalRuntimeStore;
  /** The durable functions this process runs, by name. */
  functions: ReadonlyMap<string, DurableLambdaHandler | AwsDurableLambdaHandler>;
  /** The engine's clock. Default: system time. */
  clock?: Clock;
  /** Real time one invocation may take, ms, as a Lambda timeout. Default 15 minutes. */
  invocationMs?: number;
  /**
   * Further engine settings (retention, lease grace, fault retry delay, payload limit, the
   * reconciler's grace: default here 1 s, as local timers fire on time).
   */
  engine?: Omit<EngineOptions, 'store' | 'waker' | 'invoker' | 'clock'>;
  /**
   * How often the runtime reconciles while started, ms (`Engine.reconcile`: wakes every run
   * that is due but whose wake-up was lost). Default 5 s.
   */
  reconcileEveryMs?: number;
  /** SDK settings applied to every invocation (e.g. `logSink`); left out, each function's own apply. */
  overrides?: RuntimeOverrides;
  /**
   * Seeded fault injection, as in the test runner (see `FaultOptions`): wake-ups late, twice or
   * dropped, events twice or dropped, invocations killed around steps, lost store responses,
   * throttled wake-ups and invokes, on the real clock. Racing invocations are not injected here
   * (`race` must be 0). A killed invocation holds its lease until `invocationMs` has passed, so
   * keep that short (e.g. a minute) while injecting faults.
   */
  faults?: FaultOptions;
  /** Where failures go (an invocation that threw, a wake-up that failed). Default: `console.error`. */
  onError?(error: unknown, where: { runId?: string; functionName?: string }): void;
}
