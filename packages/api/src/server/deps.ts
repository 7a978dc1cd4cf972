import type { Clock, Engine, Invoker } from '@durable-lambda/engine';
import type { FunctionSampleWire, FunctionStartsWire } from '../wire';

/** The parts of an {@link Engine} the control API uses (an `Engine` fits). */
export type ControlEngine = Pick<
  Engine,
  | 'startRun'
  | 'getRun'
  | 'getOperations'
  | 'listRuns'
  | 'cancelRun'
  | 'retryRun'
  | 'skipStep'
  | 'openRun'
  | 'wakeRun'
  | 'sendCallbackSuccess'
  | 'sendCallbackFailure'
  | 'sendCallbackHeartbeat'
  | 'sendSignal'
  | 'runSignals'
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
  /** A function's sample inputs, offered by the dashboard's start form. */
  samples(name: string): readonly FunctionSampleWire[] | undefined;
  /** A function's execution timeout, seconds, when the API was told it (reported, not applied). */
  executionTimeoutSeconds(name: string): number | undefined;
  /** What starts a function's runs besides the API (schedules, an events route), when the server knows. */
  starts(name: string): FunctionStartsWire | undefined;
  /** Invokes a function to start a new run (see `startRunGoing`); undefined: the engine's waker wakes it instead. */
  invoker: Invoker | undefined;
  clock: Clock;
  /** Told of errors that do not change the answer. */
  report(error: unknown): void;
}
