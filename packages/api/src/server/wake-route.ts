import type { WakeAnswerWire } from '../wire';
import type { RouteDeps } from './deps';
import { jsonResponse } from './http';
import { runAlone } from './payload-page-routes';
import type { Route } from './router';
import { optionalString, parseObjectBody, rejectUnknownFields } from './validate';

/** Longest operation id accepted. */
const MAX_OPERATION_ID = 256;

/**
 * `POST /v1/runs/{runId}/wake` `{operationId?}`: "wake now". Ends the run's pending durable waits
 * and retry backoffs (or only `operationId`'s) and wakes the run. `409 nothing_to_wake` when
 * nothing waits on time (the message says what it waits for instead), `409 run_busy` when only a
 * backoff waits and an invocation holds the run, `409 run_state_conflict` when it is not RUNNING.
 */
export function wakeRoute(deps: RouteDeps): Route {
  return {
    method: 'POST',
    pattern: '/v1/runs/{runId}/wake',
    handle: async ({ request, params }) => {
      const body = parseObjectBody(request.body, false) ?? {};
      rejectUnknownFields(body, ['operationId']);
      const operationId = optionalString(body.operationId, 'operationId', MAX_OPERATION_ID);
      const report = await deps.engine.wakeRun(
        params.runId as string,
        operationId === undefined ? {} : { operationId },
      );
      // The engine's writes made the run due and woke it, once (a failed wake-up is the reconciler's).
      const answer: WakeAnswerWire = {
        run: runAlone((await deps.engine.getRun(report.run.runId)) ?? report.run),
        woken: report.woken.map((w) => ({
          operationId: w.operationId,
          ...(w.name === undefined ? {} : { name: w.name }),
          kind: w.kind,
          dueAt: new Date(w.dueAt).toISOString(),
        })),
      };
      return jsonResponse(200, answer);
    },
  };
}
