/**
 * `GET /v1/runs/{runId}/export`: the run as an exported-run file, the very file `durable export`
 * prints (`durable-lambda/recorded-run`, version 1; see run-export.ts), built here from the same
 * reads the CLI makes through the API. The dashboard's "Download" button saves it, so a run seen
 * in the browser can be replayed with `durable replay` or `LocalDurableTestRunner.replay`.
 */
import type { RunRecord } from '@durable-lambda/engine';
import type { RouteDeps } from './deps';
import { ApiError, invalidArgument } from './errors';
import { historyPage, parseHistoryQuery } from './history-page';
import { jsonResponse } from './http';
import { fullOperation, runAlone } from './payload-page-routes';
import type { Route } from './router';
import { exportRunFromApi, type RunExportClient } from './run-export';

async function requireRun(deps: RouteDeps, runId: string): Promise<RunRecord> {
  const run = await deps.engine.getRun(runId);
  if (!run) throw new ApiError(404, 'run_not_found', `run ${runId} not found`);
  return run;
}

/** The export's reads, answered by the routes' own code instead of over HTTP. */
function inProcessClient(deps: RouteDeps, record: RunRecord): RunExportClient {
  return {
    getRun: async () => runAlone(record),
    getOperations: async (runId, query = {}) =>
      historyPage(deps, record, parseHistoryQuery(query.cursor === undefined ? {} : { cursor: query.cursor }, runId)),
    getOperation: async (_runId, operationId) => fullOperation(deps, record, operationId),
  };
}

/** A file name for the download: the run id with anything unusual in a file name replaced. */
function fileName(runId: string): string {
  return `${runId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 200)}.json`;
}

/**
 * `GET /v1/runs/{runId}/export`: the exported-run file of the run, with
 * `content-disposition: attachment` naming `<runId>.json`. `404 run_not_found`; `422
 * export_incomplete` when a payload is too large for the API to show (export from the table
 * then: `durable export --table` or `--db`). A deployed API's answer is bounded by Lambda's 6 MB
 * response limit.
 */
export function exportRoute(deps: RouteDeps): Route {
  return {
    method: 'GET',
    pattern: '/v1/runs/{runId}/export',
    handle: async ({ request, params }) => {
      for (const name of Object.keys(request.query ?? {})) {
        throw invalidArgument(name, 'unknown query parameter (this route takes none)');
      }
      const record = await requireRun(deps, params.runId as string);
      // A RunExportError is an ApiError: it answers `422 export_incomplete` as it is.
      const file = await exportRunFromApi(inProcessClient(deps, record), record.runId);
      return jsonResponse(200, file, {
        'content-disposition': `attachment; filename="${fileName(record.runId)}"`,
      });
    },
  };
}
