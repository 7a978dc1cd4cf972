/**
 * Seed 000 on DynamoDB with inline STARTs: a process that dies after a step's START is durable
 * (as an entry of the run item, not an operation item) leaves a lost attempt, seen as such by the
 * next invocation: the attempt fails with `invocation_lost` and the next one gets a new number.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore, runPk } from '@durable-lambda/aws';
import { Engine, runIdFor, type Store, wakeEvent } from '@durable-lambda/engine';
import { VirtualClock } from '@durable-lambda/local';
import type { DurableBackend, Operation } from '@durable-lambda/protocol';
import { withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../../support/dynamodb-local';
import { until } from '../../support/harness';

let client: DynamoDBDocumentClient;

beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
}, 60_000);

afterAll(() => client?.destroy());

/**
 * The store of a process that dies once `last` commit is durable: from then on no call answers
 * (a killed process writes nothing more), whatever the invocation still tries.
 */
function dyingAfter(store: Store, last: (write: { operations: readonly Operation[] }) => boolean) {
  const state = { dead: false };
  const dying = new Proxy(store, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        if (state.dead) return new Promise(() => {});
        const result: unknown = await value.apply(target, args);
        if (key === 'commit' && last(args[2] as { operations: readonly Operation[] })) state.dead = true;
        return result;
      };
    },
  });
  return { store: dying, state };
}

/** Attempts whose body ran, in order. */
let bodies: number[] = [];

function workflow(backend: DurableBackend) {
  return withDurableExecution(
    async (_event: unknown, ctx) => {
      const prepared = await ctx.step('prepare', async () => 'prepared');
      const worked = await ctx.step(
        'work',
        async ({ attempt }) => {
          bodies.push(attempt);
          return `done on attempt ${attempt}`;
        },
        { retry: { maxAttempts: 3, initialMs: 1000, jitter: 'NONE' } },
      );
      return { prepared, worked };
    },
    { backend, logSink: () => {}, inProcessWaitMs: 0 },
  );
}

const lambda = (requestId: string) => ({
  functionName: 'fn',
  awsRequestId: requestId,
  getRemainingTimeInMillis: () => 60_000,
});

describe('DynamoDbStore: a crash after a START held in the run item', () => {
  it('is a lost attempt on the next invocation: STARTED is loaded, attempt 1 fails invocation_lost, attempt 2 runs', async () => {
    const tableName = uniqueTableName('inline-crash');
    await createDurableTable(client, tableName);
    const clock = new VirtualClock(Date.UTC(2026, 0, 1));
    const waker = { wakeAt: async () => {} };
    bodies = [];

    // The first process dies right after the checkpoint holding the START of `work`.
    const first = dyingAfter(new DynamoDbStore({ client, tableName, clock }), (write) =>
      write.operations.some((op) => op.Name === 'work' && op.Status === 'STARTED'),
    );
    void workflow(new Engine({ store: first.store, clock, waker }))({}, lambda('req-1'));
    await until(() => first.state.dead && bodies.length === 1, 10_000);
    const runId = runIdFor('req-1');

    // The START is durable in the run item only; a new process loads it STARTED.
    const store = new DynamoDbStore({ client, tableName, clock });
    const loaded = await store.loadOperations(runId);
    const work = loaded.find((op) => op.Name === 'work');
    expect(work).toMatchObject({ Type: 'STEP', Status: 'STARTED', StepDetails: { Attempt: 1 } });
    const runItem = await client.send(new GetCommand({ TableName: tableName, Key: { pk: runPk(runId), sk: 'RUN' } }));
    // Every operation so far is an entry of the run item; `work` has no item of its own.
    expect(Object.keys(runItem.Item?.inflight ?? {})).toContain(work?.Id);
    const items = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :op)',
        ExpressionAttributeValues: { ':pk': runPk(runId), ':op': 'OP#' },
      }),
    );
    expect(items.Items ?? []).toEqual([]);

    // The lease lapses; the next invocation finds the attempt lost and schedules attempt 2.
    clock.advanceBy(60_000 + 10_000 + 1);
    const handler = workflow(new Engine({ store, clock, waker }));
    expect(await handler(wakeEvent(runId), lambda('wake-1'))).toEqual({ Status: 'PENDING' });
    const lost = await store.getOperation(runId, work?.Id ?? '');
    expect(lost?.Status).toBe('PENDING');
    expect(lost?.StepDetails).toMatchObject({ Attempt: 1, Error: { ErrorCode: 'invocation_lost' } });
    expect((await store.getRun(runId))?.lostInvocations).toBe(1);

    clock.advanceTo(lost?.StepDetails?.NextAttemptTimestamp ?? 0);
    expect(await handler(wakeEvent(runId), lambda('wake-2'))).toEqual({
      Status: 'SUCCEEDED',
      Result: JSON.stringify({ prepared: 'prepared', worked: 'done on attempt 2' }),
    });
    expect(bodies).toEqual([1, 2]);
    const done = await store.getOperation(runId, work?.Id ?? '');
    expect(done?.StepDetails?.Attempt).toBe(2);
    expect(done?.StepDetails?.FailedAttempts?.map((a) => [a.Attempt, a.Error.ErrorCode])).toEqual([
      [1, 'invocation_lost'],
    ]);
    // Whether it ended as an entry or moved out to an item, every read sees attempt 2.
    expect((await store.loadOperations(runId)).find((op) => op.Id === work?.Id)?.StepDetails?.Attempt).toBe(2);
  });
});
