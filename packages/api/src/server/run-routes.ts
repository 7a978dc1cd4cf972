import type { RunRecord } from '@durable-lambda/engine';
import { tagsProblem } from '@durable-lambda/protocol';
import type { OperationListWire } from '../wire';
import { compensationsRoute } from './compensations';
import type { RouteDeps } from './deps';
import { ApiError, invalidArgument } from './errors';
import { exportRoute } from './export-route';
import { functionRoutes } from './function-routes';
import { historyPage, parseHistoryQuery } from './history-page';
import { jsonResponse } from './http';
import { startRunGoing } from './kick';
import { operatorRoutes, parseExecutionTimeoutField } from './operator-routes';
import { payloadRoutes, runAlone } from './payload-page-routes';
import type { Route } from './router';
import { listRuns } from './run-list';
import { parseRunListExtras, parseRunQuery } from './run-query';
import { optionalString, parseObjectBody, rejectUnknownFields, requiredString } from './validate';
import { wakeRoute } from './wake-route';

/** Longest function name and run key accepted (the engine's run-key limit). */
const MAX_NAME = 256;

async function requireRun(deps: RouteDeps, runId: string): Promise<RunRecord> {
  const run = await deps.engine.getRun(runId);
  if (!run) throw new ApiError(404, 'run_not_found', `run ${runId} not found`);
  return run;
}

/** The run routes: functions, start, list (and search), get, history, cancel, retry, wake. */
export function runRoutes(deps: RouteDeps): Route[] {
  return [
    ...functionRoutes(deps),
    {
      method: 'POST',
      pattern: '/v1/runs',
      handle: async ({ request }) => {
        const body = parseObjectBody(request.body, true);
        rejectUnknownFields(body, ['function', 'input', 'runKey', 'latest', 'executionTimeout', 'tags']);
        const functionName = requiredString(body.function, 'function', MAX_NAME);
        // `latest: true` opts this run out of version pinning: it replays on `$LATEST` throughout.
        if (body.latest !== undefined && typeof body.latest !== 'boolean') {
          throw new ApiError(400, 'invalid_argument', 'latest: must be a boolean');
        }
        const runKey = optionalString(body.runKey, 'runKey', MAX_NAME);
        const badTags = body.tags === undefined ? undefined : tagsProblem(body.tags);
        if (badTags) throw invalidArgument(badTags.field, badTags.message);
        if (!deps.functions().includes(functionName)) {
          throw new ApiError(
            404,
            'function_not_found',
            `function: no durable function ${JSON.stringify(functionName)} is served here`,
          );
        }
        const input = body.input === undefined ? undefined : JSON.stringify(body.input);
        const { run, created } = await startRunGoing(deps, {
          functionName: body.latest === true ? `${functionName}:$LATEST` : functionName,
          ...(input === undefined ? {} : { input }),
          ...(runKey === undefined ? {} : { runKey }),
          ...(body.tags === undefined ? {} : { tags: body.tags as Record<string, string> }),
          ...parseExecutionTimeoutField(body.executionTimeout),
        });
        return created
          ? jsonResponse(201, runAlone(run), { location: `/v1/runs/${encodeURIComponent(run.runId)}` })
          : jsonResponse(200, runAlone(run));
      },
    },
    {
      method: 'GET',
      pattern: '/v1/runs',
      handle: async ({ request }) => {
        const query = parseRunQuery(request.query);
        return jsonResponse(200, await listRuns(deps, query, parseRunListExtras(request.query)));
      },
    },
    {
      method: 'GET',
      pattern: '/v1/runs/{runId}',
      handle: async ({ params }) => jsonResponse(200, runAlone(await requireRun(deps, params.runId as string))),
    },
    {
      method: 'GET',
      pattern: '/v1/runs/{runId}/operations',
      handle: async ({ request, params }) => {
        const run = await requireRun(deps, params.runId as string);
        const answer: OperationListWire = await historyPage(deps, run, parseHistoryQuery(request.query, run.runId));
        return jsonResponse(200, answer);
      },
    },
    // Cancel and retry (with skip and the action history): fenced, recorded operator actions.
    ...operatorRoutes(deps),
    wakeRoute(deps),
    // Sagas: the run's compensations, derived from its operations.
    compensationsRoute(deps),
    // The run as `durable export` prints it (the dashboard's download).
    exportRoute(deps),
    ...payloadRoutes(deps),
  ];
}
