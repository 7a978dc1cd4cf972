/**
 * The wire shapes of named signals (issue 27): the answer of `POST /v1/runs/{id}/signals/{name}`
 * and of `GET /v1/runs/{id}/signals`.
 */

/** Answer of `POST /v1/runs/{runId}/signals/{name}`. */
export interface SignalSentWire {
  runId: string;
  name: string;
  /** The signal's place among the run's signals (delivery order within its name). */
  seq: number;
  /** When it was stored (ISO 8601). */
  sentAt: string;
  /** False when the request's `Idempotency-Key` named a signal stored before: that one, stored once. */
  created: boolean;
}

/** One signal of a run. */
export interface RunSignalWire {
  seq: number;
  name: string;
  /** The payload, parsed; absent when the signal carried none. */
  payload?: unknown;
  sentAt: string;
  /** `delivered`: a `waitForSignal` took it (`operationId`); `pending`: kept for the next wait of its name. */
  state: 'delivered' | 'pending';
  operationId?: string;
}

/** A `waitForSignal` of the run still waiting. */
export interface SignalWaitWire {
  operationId: string;
  name: string;
  /** When it times out (ISO 8601), if it has a timeout. */
  timeoutAt?: string;
}

/** Answer of `GET /v1/runs/{runId}/signals`: the run's signals, oldest first, and its open waits. */
export interface RunSignalsWire {
  runId: string;
  signals: RunSignalWire[];
  waiting: SignalWaitWire[];
}
