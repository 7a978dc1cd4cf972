/**
 * A run's compensations (sagas, `ctx.step(name, fn, { compensate })`) as the control API shows
 * them: `GET /v1/runs/{runId}/compensations`. Derived from the run's operations and its error on
 * every read (the SDK records each round's plan and each compensation as steps of their own),
 * never stored twice.
 */
import type { ErrorWire, RunStatusWire } from './wire';

/** Where one compensation stands: not started, under way (or between attempts), or settled. */
export type CompensationStatusWire = 'pending' | 'running' | 'succeeded' | 'failed';

/** One step's undo, as a round planned it. */
export interface CompensationWire {
  /** The step being undone (its operation id). */
  stepId: string;
  /** Its name (its id when it has none): the compensation is the step `compensate <step>`. */
  step: string;
  /** The plan (a `saga plan` step) that chose to undo it. */
  planId: string;
  /** The compensation's own step, once it started. */
  operationId?: string;
  status: CompensationStatusWire;
  /** Attempts started so far (0 while pending). */
  attempts: number;
  /** The last attempt's error (a failed compensation's final one). */
  error?: ErrorWire;
}

/** One round of compensations: a `ctx.compensate()` call, or the SDK's before the run fails. */
export interface CompensationRoundWire {
  /** The round's `saga plan` step. */
  planId: string;
  /** The context the round ran in (a child context's id; absent at the handler's top level). */
  contextId?: string;
  /** `planning` until the plan is recorded, then `planned`. */
  status: 'planning' | 'planned';
  /** What it undoes, in the order it undoes them (last step first). */
  compensations: CompensationWire[];
}

/** What the run's error says was undone (its `ErrorData`, when the run failed after compensating). */
export interface CompensationSummaryWire {
  compensated: string[];
  failed: Array<{ step: string; error: string }>;
}

/** `GET /v1/runs/{runId}/compensations`. */
export interface RunCompensationsWire {
  runId: string;
  status: RunStatusWire;
  /**
   * The steps known to have registered an undo: those a round planned. An undo is registered in
   * the handler's memory when its step is called; the history shows it from the first round on.
   */
  registered: Array<{ stepId: string; step: string }>;
  rounds: CompensationRoundWire[];
  /** Present once the run failed after undoing something (or failing to). */
  summary?: CompensationSummaryWire;
}
