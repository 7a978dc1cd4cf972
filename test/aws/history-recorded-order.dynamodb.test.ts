/**
 * On DynamoDB Local, through the Lambda-shaped `GetDurableExecutionHistory` route, a run's events
 * come in the order they were recorded (issue 23): the examples the inferred order got wrong,
 * with every event of an invocation in one millisecond of a virtual clock. Before, the route had
 * no `InvocationCompleted` at all on DynamoDB (the store keeps no journal): now the run item keeps
 * its latest invocations' ends.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createControlApi } from '@durable-lambda/api';
import { createDurableTable, DynamoDbStore } from '@durable-lambda/aws';
import { type AwsHistoryEvent, Engine, wakeEvent } from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executionArn } from '../../packages/api/src/aws/aws-routes-token';
import { AWS_ROUTE_PREFIX } from '../../packages/api/src/aws/aws-routes-wire';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import {
  AWAITS_CALLBACK_ORDER,
  awaitsCallback,
  eventLabel,
  MAP_ONE_AT_A_TIME_ORDER,
  mapOneAtATime,
  STEPS_SIDE_BY_SIDE_ORDER,
  stepsSideBySide,
} from '../support/history-order-cases';

let client: DynamoDBDocumentClient;

beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
}, 60_000);

afterAll(() => client?.destroy());

const lambda = (requestId: string) => ({
  functionName: 'fn',
  awsRequestId: requestId,
  getRemainingTimeInMillis: () => 15 * 60_000,
});

/** An engine on a table of its own, its control API, and a handler wired to it, on a clock that does not move. */
async function world(fn: (event: unknown, ctx: DurableContext) => Promise<unknown>) {
  const tableName = uniqueTableName('history-order');
  await createDurableTable(client, tableName);
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const store = new DynamoDbStore({ client, tableName, clock });
  const engine = new Engine({ store, clock, waker: { wakeAt: async () => {} } });
  const api = createControlApi({ engine, functions: ['fn'], onError: () => {} });
  const handler = withDurableExecution(fn, { backend: engine, inProcessWaitMs: 0 });
  /** The run's history through GetDurableExecutionHistory, as labels. */
  const history = async (runId: string): Promise<string[]> => {
    const run = await store.getRun(runId);
    const arn = encodeURIComponent(executionArn('fn', runId, run?.incarnation));
    const answer = await api.handle({
      method: 'GET',
      path: `${AWS_ROUTE_PREFIX}/durable-executions/${arn}/history`,
      query: {},
      headers: {},
      body: undefined,
    });
    expect(answer.status).toBe(200);
    const { Events } = JSON.parse(answer.body) as { Events: AwsHistoryEvent[] };
    return Events.map(eventLabel);
  };
  return { engine, store, handler, history };
}

describe('GetDurableExecutionHistory on DynamoDB lists events in the order they were recorded', () => {
  it('a callback completed after its invocation suspended comes after that invocation ends', async () => {
    const { engine, store, handler, history } = await world(awaitsCallback);
    expect(await handler({}, lambda('cb-1'))).toEqual({ Status: 'PENDING' });
    const [run] = (await store.listRuns({ functionName: 'fn' })).runs.filter((r) => r.status === 'RUNNING');
    const runId = run?.runId ?? '';
    const callback = (await store.loadOperations(runId)).find((op) => op.Type === 'CALLBACK');
    // At the millisecond the invocation ended: the clock never moves.
    await engine.sendCallbackSuccess(callback?.CallbackDetails?.CallbackId ?? '', JSON.stringify('yes'));
    expect(await handler(wakeEvent(runId), lambda('cb-2'))).toMatchObject({ Status: 'SUCCEEDED' });
    expect(await history(runId)).toEqual(AWAITS_CALLBACK_ORDER);
  });

  it('a map with maxConcurrency 1 lists its items one after the other, as they ran', async () => {
    const { store, handler, history } = await world(mapOneAtATime);
    expect(await handler({}, lambda('map-1'))).toMatchObject({ Status: 'SUCCEEDED' });
    const [run] = (await store.listRuns({ functionName: 'fn' })).runs;
    expect(await history(run?.runId ?? '')).toEqual(MAP_ONE_AT_A_TIME_ORDER);
  });

  it('steps started side by side in one millisecond start before either ends', async () => {
    const { store, handler, history } = await world(stepsSideBySide);
    expect(await handler({}, lambda('side-1'))).toMatchObject({ Status: 'SUCCEEDED' });
    const [run] = (await store.listRuns({ functionName: 'fn' })).runs;
    expect(await history(run?.runId ?? '')).toEqual(STEPS_SIDE_BY_SIDE_ORDER);
  });
});
