/**
 * The Lambda-shaped `GetDurableExecution` and `GetDurableExecutionHistory` routes: what a test
 * runner or a tool written for Lambda's API reads of a run.
 */
import { type AwsHistoryEvent, toAwsError, toAwsHistoryEvents } from '@durable-lambda/engine';
import type { RouteDeps } from '../server/deps';
import type { MultiValue } from '../server/http';
import { RECORD_BUDGET_BYTES, travelBytes } from '../server/page-budget';
import type { Route } from '../server/router';
import { journalOf } from '../server/run-journal';
import { awsHistoryPage } from './aws-history-page';
import { executionArn, executionOfArn, namesExecution } from './aws-routes-token';
import { AWS_ROUTE_PREFIX, AwsRouteError, awsJson, awsRoute } from './aws-routes-wire';

const date = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms));

/** Lambda's largest history page. */
const MAX_EVENTS = 1000;

function flag(value: MultiValue, field: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new AwsRouteError(400, 'InvalidParameterValueException', `${field}: must be true or false`);
}

function integer(value: MultiValue, field: string, fallback: number, min: number): number {
  if (value === undefined || value === '') return fallback;
  const n = typeof value === 'string' ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min) {
    throw new AwsRouteError(400, 'InvalidParameterValueException', `${field}: must be an integer of at least ${min}`);
  }
  return n;
}

/**
 * The execution answer within the budget of one record: an input and a result may each hold
 * 6 MB, together more than Lambda's response limit, so the bigger is left out until it fits (an
 * answer over the limit would reach the caller as no answer at all); the control API's
 * `GET /v1/runs/{runId}/payloads/{field}` reads it in slices.
 */
function withinRecordBudget(answer: Record<string, unknown>): Record<string, unknown> {
  const out = { ...answer };
  const fields = ['InputPayload', 'Result']
    .filter((field) => typeof out[field] === 'string')
    .sort((a, b) => (out[b] as string).length - (out[a] as string).length);
  for (const field of fields) {
    if (travelBytes(out) <= RECORD_BUDGET_BYTES) break;
    delete out[field];
  }
  return out;
}

/** The Lambda-shaped execution routes. */
export function awsExecutionRoutes(deps: RouteDeps): Route[] {
  const base = `${AWS_ROUTE_PREFIX}/durable-executions/{DurableExecutionArn}`;
  const requireRun = async (arn: string) => {
    const execution = executionOfArn(arn);
    const run = await deps.engine.getRun(execution.runId);
    if (!run || !namesExecution(execution, run)) {
      throw new AwsRouteError(404, 'ResourceNotFoundException', `execution ${execution.runId} not found`);
    }
    return run;
  };
  return [
    awsRoute(deps, 'GET', base, async ({ request, params }) => {
      const run = await requireRun(params.DurableExecutionArn as string);
      // Payloads unless asked not to (Lambda's `IncludeExecutionData`).
      const data = flag(request.query?.IncludeExecutionData, 'IncludeExecutionData', true);
      return awsJson(
        200,
        withinRecordBudget({
          DurableExecutionArn: executionArn(run.functionName, run.runId, run.incarnation),
          DurableExecutionName: run.runKey ?? run.runId,
          FunctionArn: `arn:aws:lambda:local:000000000000:function:${run.functionName}`,
          StartTimestamp: date(run.createdAt),
          Status: run.status === 'CANCELLED' ? 'STOPPED' : run.status,
          EndTimestamp: date(run.endedAt),
          Version: '$LATEST',
          ...(data
            ? {
                InputPayload: run.input,
                ...(run.status === 'SUCCEEDED' ? { Result: run.result } : {}),
                Error: toAwsError(run.error),
              }
            : {}),
        }),
      );
    }),
    awsRoute(deps, 'GET', `${base}/history`, async ({ request, params }) => {
      const query = request.query ?? {};
      const run = await requireRun(params.DurableExecutionArn as string);
      const includeExecutionData = flag(query.IncludeExecutionData, 'IncludeExecutionData', true);
      const reverse = flag(query.ReverseOrder, 'ReverseOrder', false);
      const start = integer(query.Marker, 'Marker', 0, 0);
      const max = Math.min(MAX_EVENTS, integer(query.MaxItems, 'MaxItems', MAX_EVENTS, 1));
      const operations = await deps.engine.getOperations(run.runId);
      const reader = journalOf(deps.engine.store);
      const journal = reader ? await reader.readRunJournal(run.runId) : undefined;
      const events: AwsHistoryEvent[] = toAwsHistoryEvents(operations, {
        includeExecutionData,
        run,
        attemptCounting: 'service',
        // Where the run recorded its invocations' ends (every store), else the journal's (inferred order).
        invocations: run.historyInvocations
          ? run.historyInvocations.map((invocation) => ({
              startTimestamp: new Date(invocation.startedAt),
              endTimestamp: new Date(invocation.endedAt),
              order: invocation.order,
            }))
          : (journal?.invocations ?? []).map((invocation) => ({
              startTimestamp: new Date(invocation.startedAt),
              ...(invocation.endedAt === undefined ? {} : { endTimestamp: new Date(invocation.endedAt) }),
            })),
      });
      if (reverse) events.reverse();
      // The marker is a position in the history: events are only ever added at its end. A page
      // stops at `MaxItems` or its byte budget, whichever comes first.
      const { page, next } = awsHistoryPage(events, start, max);
      return awsJson(200, {
        Events: page,
        ...(next === undefined ? {} : { NextMarker: String(next) }),
      });
    }),
  ];
}
