/**
 * What an `EngineSession` is given by the engine that opens it: the ports and limits it writes
 * through, and the hooks by which it asks the engine to start, wake, end or expire runs.
 */
import type { ErrorObject, Operation } from '@durable-lambda/protocol';
import type { OutboxPublisher } from './outbox/outbox-port';
import type { Clock, RunPatch, RunRecord, Store, Waker } from './ports';
import type { InvocationMeter } from './run-meter';
import type { IdIssuer, UpdateLimits } from './transitions';

/** What a session tells the engine about, and asks of it. */
export interface SessionHooks {
  /** Whether a chained invoke may target this function (false: it fails at once). */
  canInvoke(functionName: string): boolean;
  /** A chained invoke started: start its child run. */
  startChild(run: RunRecord, op: Operation): Promise<unknown>;
  /** The run ended: tell a waiting parent. */
  finished(run: RunRecord): Promise<void>;
  /** Wake the run now. */
  wake(run: RunRecord): Promise<void>;
  /** The run passed its execution deadline: end it TIMED_OUT (this session is fenced by it). */
  expire?(run: RunRecord): Promise<unknown>;
  /** Flow control skipped the run: end it as `end` says with `extra`, its lease let go (`flow/flow-ends.ts`). */
  end?(run: RunRecord, end: { status: 'CANCELLED'; error: ErrorObject }, extra: RunPatch): Promise<void>;
  /** A singleton run (`byRunId`) cancels the key's holder `runId` (`flow/flow-ends.ts`). */
  cancel?(runId: string, byRunId: string): Promise<void>;
}

/** What a session needs from the engine that opened it. */
export interface SessionDeps {
  store: Store;
  waker: Waker;
  clock: Clock;
  limits: UpdateLimits;
  /** Retention after the run ends, ms. */
  retentionMs: number | undefined;
  /** Real ms the invocation may run (Lambda's remaining time). */
  remainingTimeMs: () => number;
  /**
   * When the invocation asked for its lease (its `InvocationCompleted`'s start: an outside event
   * written after it is one this invocation held the run for). Default: when the session opens.
   */
  leasedAt?: number;
  /** Delay before retrying a run whose invocation faulted. */
  faultRetryMs: number;
  /**
   * How long after it is queued a QUEUED run is due anyway (the reconciler then tries its
   * admission again, so a lost hand-over strands nothing). Default 15 minutes.
   */
  queueRecheckMs?: number;
  ids: IdIssuer;
  hooks: SessionHooks;
  /**
   * Measures the invocation for the run's meter, asked when the last write is built; absent: the
   * invocation records nothing (see {@link EngineSession.meterWith}).
   */
  meter?: InvocationMeter;
  /** Publishes the events steps emit (`context.emit`); absent: they wait for the reconciler's publisher. */
  outbox?: OutboxPublisher;
}
