/** What a `TestDriver` is built with, and what one of its runs is started with. */
import type { Store } from '@durable-lambda/engine';
import type { FaultOptions } from '../faults/fault-plan';
import type { VirtualClock } from '../virtual-clock';
import type { CallbackHolds } from './next-wake';
import type { PlainHandler } from './plain-function';

/** Options of a `TestDriver`. */
export interface TestDriverOptions {
  /** Virtual start time, epoch ms. Default: the real time now. */
  startTime?: number;
  /** More invocations than this (every run of the test together) stop the test as a runaway. Default 10,000. */
  maxInvocations?: number;
  /**
   * Also hand each log entry to the function's own sink (its `logSink`; by default AWS-shaped JSON
   * lines on stdout and stderr, filtered by `AWS_LAMBDA_LOG_LEVEL`), as on Lambda. They are always
   * kept. Default false.
   */
  printLogs?: boolean;
  /**
   * Builds the store runs live in, on the driver's virtual clock (use it as the store's clock,
   * so timestamps and retention follow virtual time). Default: an in-memory store.
   */
  store?: (clock: VirtualClock) => Store;
  /** Injects seeded faults; see {@link FaultOptions}. Default: none. */
  faults?: FaultOptions;
  /** With faults or a store given: virtual ms between passes of the reconciler when nothing else is due. Default 60,000. */
  reconcileIntervalMs?: number;
  /** With faults or a store given: how long past due a run must be before the reconciler wakes it. Default 120,000. */
  reconcileGraceMs?: number;
  /**
   * Waits, backoffs and deadlines elapse in real time (AWS's `skipTime: false`): the clock follows
   * the real one and the driver sleeps (node:timers, no faked globals) until the next due time.
   * Only on the default in-memory path without faults. Default false (the virtual clock jumps).
   */
  realTime?: boolean;
  /** Callbacks the test is handling: their deadlines are reached in real time, never jumped to. */
  holds?: CallbackHolds;
  /**
   * The longest real time a run may wait on one thing (default 60,000): a wake-up further away in
   * real time (`realTime`), or the test's heartbeat, completion or other outside event; past it
   * the run is stopped with a `TestRunStoppedError` (`run_stuck`) instead of hanging.
   */
  maxRealWaitMs?: number;
  /** Plain (non-durable) functions reachable by `context.invoke`, by name. */
  plainFunctions?: ReadonlyMap<string, PlainHandler>;
  /** How long a finished run is kept, virtual ms (the engine's `retentionMs`). Default: forever. */
  retentionMs?: number;
}

/** Options of one `TestDriver.start`. */
export interface DriverStartOptions {
  /** The run's key: a start with the key of a live run finds it; after its retention, a new run. */
  runKey?: string;
  /** The run's execution timeout, seconds. */
  executionTimeoutSeconds?: number;
  /** Search tags the run starts with. */
  tags?: Record<string, string>;
}
