/** What an `InvocationRuntime` is set with (its validated knobs) and how its invocation ends. */
import type { InvocationOutput } from '@durable-lambda/protocol';
import type { LogSink } from '../types/logger';

/** How an invocation ended, as the backend must handle it. */
export type InvocationResult =
  /** Record the output: the run finished, failed, or waits (PENDING). */
  | { type: 'completed'; output: InvocationOutput }
  /** A newer invocation owns the run: write nothing more, stop quietly. */
  | { type: 'fenced' }
  /** An infrastructure fault (e.g. the store is unreachable): the run must resume later. */
  | { type: 'fault'; error: unknown };

/** Runtime knobs after validation. */
export interface RuntimeSettings {
  inProcessWaitMs: number;
  /** Undefined (the default): every step START is written before its code runs. */
  lazyStartMs: number | undefined;
  maxPayloadBytes: number;
  logSink: LogSink;
}
