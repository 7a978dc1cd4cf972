/**
 * `GET /v1/functions`: the functions served, each with its sample inputs, its execution timeout,
 * its flow-control limits as last recorded (`Store.listFunctionLimits`), what starts it where the
 * server knows (the dev server's schedules and events route), and with `include=counts` how many
 * of its runs are RUNNING and QUEUED.
 */
import type { FunctionLimitsRecord, RunStatus } from '@durable-lambda/engine';
import type { FunctionListWire, FunctionRunCountsWire } from '../wire';
import type { RouteDeps } from './deps';
import { invalidArgument } from './errors';
import type { ApiRequest } from './http';
import { jsonResponse } from './http';
import type { Route } from './router';

/**
 * Most runs counted per function and status: the store's listing read 100 at a time, at most this
 * many (5 pages; on DynamoDB 5 × (32 index Queries + 1 BatchGetItem)), then `runningMore` /
 * `queuedMore` says there are more. No counter is kept on the hot path: a start or an end writes
 * nothing for this listing.
 */
export const FUNCTION_COUNT_LIMIT = 500;
const COUNT_PAGE = 100;
const INCLUDES = ['counts'] as const;

/** Reads `GET /v1/functions`'s query: `include=counts`, nothing else. */
function parseFunctionsQuery(query: ApiRequest['query']): { counts: boolean } {
  let counts = false;
  for (const [name, value] of Object.entries(query ?? {})) {
    if (name !== 'include') throw invalidArgument(name, 'unknown query parameter (expected include)');
    const values = typeof value === 'string' ? [value] : (value ?? []);
    for (const part of values.flatMap((v) => v.split(',')).map((v) => v.trim())) {
      if (part === '') continue;
      if (!(INCLUDES as readonly string[]).includes(part)) {
        throw invalidArgument('include', `unknown value ${JSON.stringify(part)} (expected ${INCLUDES.join(', ')})`);
      }
      counts = true;
    }
  }
  return { counts };
}

/** How many runs of `functionName` have `status`, up to {@link FUNCTION_COUNT_LIMIT}. */
async function countRuns(deps: RouteDeps, functionName: string, status: RunStatus): Promise<[number, boolean]> {
  let count = 0;
  let cursor: string | undefined;
  while (count < FUNCTION_COUNT_LIMIT) {
    // The store's own listing: the engine's would read each QUEUED run's queue for its position.
    const page = await deps.engine.store.listRuns({
      functionName,
      status,
      limit: COUNT_PAGE,
      ...(cursor === undefined ? {} : { cursor }),
    });
    count += page.runs.length;
    if (page.cursor === undefined) return [count, false];
    cursor = page.cursor;
  }
  return [count, true];
}

async function countsOf(deps: RouteDeps, functionName: string): Promise<FunctionRunCountsWire> {
  const [[running, runningMore], [queued, queuedMore]] = await Promise.all([
    countRuns(deps, functionName, 'RUNNING'),
    countRuns(deps, functionName, 'QUEUED'),
  ]);
  return { running, queued, ...(runningMore ? { runningMore } : {}), ...(queuedMore ? { queuedMore } : {}) };
}

/** Every recorded limits record, by function; none on a store that keeps none. */
async function recordedLimits(deps: RouteDeps): Promise<Map<string, FunctionLimitsRecord>> {
  const { store } = deps.engine;
  const records = store.listFunctionLimits ? await store.listFunctionLimits.call(store) : [];
  return new Map(records.map((record) => [record.functionName, record]));
}

/** The functions route. */
export function functionRoutes(deps: RouteDeps): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/v1/functions',
      handle: async ({ request }) => {
        const { counts } = parseFunctionsQuery(request.query);
        const names = deps.functions();
        const [limits, allCounts] = await Promise.all([
          recordedLimits(deps),
          counts ? Promise.all(names.map((name) => countsOf(deps, name))) : undefined,
        ]);
        const answer: FunctionListWire = {
          functions: names.map((name, i) => {
            const samples = deps.samples(name);
            const timeout = deps.executionTimeoutSeconds(name);
            const record = limits.get(name);
            const starts = deps.starts(name);
            return {
              name,
              ...(samples && samples.length > 0 ? { samples: [...samples] } : {}),
              ...(timeout === undefined ? {} : { executionTimeoutSeconds: timeout }),
              ...(record
                ? {
                    limits: record.limits,
                    limitsRecordedAt: new Date(record.recordedAt).toISOString(),
                    ...(record.version === undefined ? {} : { limitsVersion: record.version }),
                  }
                : {}),
              ...(allCounts ? { counts: allCounts[i] as FunctionRunCountsWire } : {}),
              ...(starts ? { starts } : {}),
            };
          }),
        };
        return jsonResponse(200, answer);
      },
    },
  ];
}
