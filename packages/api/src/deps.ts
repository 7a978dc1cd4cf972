import type { Clock, Engine, Invoker } from '@durable-lambda/engine';

/** The parts of an {@link Engine} the control API uses (an `Engine` fits). */
export type ControlEngine = Pick<
  Engine,
  | 'startRun'
  | 'getRun'
  | 'getOperations'
  | 'listRuns'
  | 'cancelRun'
  | 'retryRun'
  | 'sendCallbackSuccess'
  | 'sendCallbackFailure'
  | 'sendCallbackHeartbeat'
  | 'store'
  | 'waker'
  | 'invoker'
  | 'clock'
>;

/** What the route handlers need. */
export interface RouteDeps {
  engine: ControlEngine;
  /** The durable functions this API serves. */
  functions(): readonly string[];
  /** Invokes a function to run a run; undefined: the engine's waker wakes it instead. */
  invoker: Invoker | undefined;
  clock: Clock;
  /** Told of errors that do not change the answer. */
  report(error: unknown): void;
}
