/**
 * Runner (b): the production backend over DynamoDB Local. The engine on `DynamoDbStore` (one
 * table for the whole suite), driven as on Lambda by the test driver's event loop: wake-ups and
 * invokes queued in virtual time, the reconciler when nothing is queued. The history and the
 * outcome are read through our Lambda-shaped routes, `GetDurableExecutionHistory` and
 * `GetDurableExecution`, as a client of the service reads them.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createControlApi } from '@durable-lambda/api';
import { DynamoDbStore } from '@durable-lambda/aws';
import { TestDriver } from '@durable-lambda/local';
import { actOnCallbacks } from './callback-actions';
import { matchLogs } from './log-match';
import { clearLog, readLog } from './log-stream';
import { type ActualEvent, Bindings, matchHistory, matchOutcome } from './match';
import type { Requirement } from './requirement';
import { START_TIME, type Verdict } from './run-on-test-runner';

const FUNCTION = 'handler';

/** One Lambda-shaped route of our control API over the driver's engine, answered in-process. */
async function awsRoute(
  api: ReturnType<typeof createControlApi>,
  path: string,
  query: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const response = await api.handle({ method: 'GET', path, query });
  if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${response.body}`);
  return JSON.parse(response.body) as Record<string, unknown>;
}

/** Runs one requirement on the production backend over DynamoDB Local and matches what it recorded. */
export async function runOnDynamoDb(
  req: Requirement,
  client: DynamoDBDocumentClient,
  tableName: string,
): Promise<Verdict> {
  const bindings = new Bindings(req.vars);
  const driver = new TestDriver(
    { [FUNCTION]: req.handler, ...req.functions },
    { store: (clock) => new DynamoDbStore({ client, tableName, clock }), startTime: START_TIME },
  );
  actOnCallbacks(
    driver.store,
    req.callbacks ?? [],
    () => ({
      success: (id, result) => driver.sendCallbackSuccess(id, result),
      failure: (id, error) => driver.sendCallbackFailure(id, error),
      heartbeat: (id) => driver.sendCallbackHeartbeat(id),
    }),
    bindings,
  );
  const input = bindings.substitute(req.input);
  clearLog();
  const started = await driver.start(FUNCTION, input === undefined ? null : input);
  const run = await driver.runUntilDone(started.runId);
  // The handler's own log output, then what its logger wrote (each entry's message as a line).
  const log = [...readLog(), ...driver.logs.map((entry) => ({ message: entry.message, level: entry.level }))];
  const api = createControlApi({
    engine: driver.engine,
    functions: [FUNCTION, ...Object.keys(req.functions ?? {})],
    onError: () => {},
  });
  const execution = run.incarnation === undefined ? run.runId : `${run.runId}/${run.incarnation}`;
  const arn = `arn:aws:lambda:local:000000000000:function:${FUNCTION}/durable-execution/${execution}`;
  const base = `/2025-12-01/durable-executions/${encodeURIComponent(arn)}`;
  const history: ActualEvent[] = [];
  let marker: string | undefined;
  do {
    const page = await awsRoute(api, `${base}/history`, marker === undefined ? {} : { Marker: marker });
    history.push(...((page.Events as ActualEvent[]) ?? []));
    marker = page.NextMarker as string | undefined;
  } while (marker);
  const described = await awsRoute(api, base);
  const problems = [
    ...matchHistory(req.history, history, bindings),
    ...matchOutcome(
      req.expect,
      {
        status: described.Status as string,
        ...(described.Result === undefined ? {} : { result: described.Result as string }),
      },
      bindings,
    ),
    ...matchLogs(req.logs ?? [], log, bindings),
  ];
  return { id: req.id, problems, history, log };
}
