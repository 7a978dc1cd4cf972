/**
 * The signal routes (issue 27): `POST /v1/runs/{runId}/signals/{name}` sends a named signal (the
 * body, when there is one, is its JSON payload), `GET /v1/runs/{runId}/signals` lists the run's
 * signals and its open waits. The request's `Idempotency-Key` is kept by the API like on every
 * POST and also handed to the engine as the signal's dedupe key (scoped by the signal's name), so
 * a retry stores the signal once even when the API's record of the first answer was lost.
 */
import type { RunSignals } from '@durable-lambda/engine';
import type { RunSignalsWire, SignalSentWire } from '../signal-wire';
import type { RouteDeps } from './deps';
import { ApiError, invalidArgument } from './errors';
import { jsonResponse } from './http';
import { readIdempotencyKey } from './idempotency';
import type { Route } from './router';
import { MAX_JSON_DEPTH, nestedDeeperThan } from './validate';

/** The request's body as the signal's payload (JSON text), or undefined for an empty body. */
function payloadOf(body: string | undefined): string | undefined {
  if (body === undefined || body.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    throw new ApiError(400, 'invalid_json', `body: not valid JSON (${(error as Error).message})`);
  }
  if (nestedDeeperThan(value, MAX_JSON_DEPTH)) {
    throw invalidArgument('payload', `nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  }
  // Stored as the JSON text the waiter parses: re-serialized, so whitespace costs nothing.
  return JSON.stringify(value);
}

function parsed(payload: string | undefined): { payload?: unknown } {
  return payload === undefined ? {} : { payload: JSON.parse(payload) };
}

/** The wire form of a run's signals. */
export function signalsToWire(runId: string, view: RunSignals): RunSignalsWire {
  return {
    runId,
    signals: view.signals.map((s) => ({
      seq: s.seq,
      name: s.name,
      ...parsed(s.payload),
      sentAt: new Date(s.sentAt).toISOString(),
      state: s.state,
      ...(s.operationId === undefined ? {} : { operationId: s.operationId }),
    })),
    waiting: view.waiting.map((w) => ({
      operationId: w.operationId,
      name: w.name,
      ...(w.timeoutAt === undefined ? {} : { timeoutAt: new Date(w.timeoutAt).toISOString() }),
    })),
  };
}

export function signalRoutes(deps: RouteDeps): Route[] {
  return [
    {
      method: 'POST',
      pattern: '/v1/runs/{runId}/signals/{name}',
      handle: async ({ request, params }) => {
        const runId = params.runId as string;
        const name = params.name as string;
        const payload = payloadOf(request.body);
        const key = readIdempotencyKey(request);
        const receipt = await deps.engine.sendSignal(
          runId,
          name,
          payload,
          key === undefined ? {} : { dedupeKey: `${name} ${key}` },
        );
        const wire: SignalSentWire = {
          runId,
          name: receipt.name,
          seq: receipt.seq,
          sentAt: new Date(receipt.sentAt).toISOString(),
          created: receipt.created,
        };
        return jsonResponse(200, wire);
      },
    },
    {
      method: 'GET',
      pattern: '/v1/runs/{runId}/signals',
      handle: async ({ params }) => {
        const runId = params.runId as string;
        return jsonResponse(200, signalsToWire(runId, await deps.engine.runSignals(runId)));
      },
    },
  ];
}
