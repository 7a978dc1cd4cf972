/**
 * A run key used again after TTL has deleted the old run's item: the store no longer knows the
 * old fences, yet an invocation of the old run may still hold one (its commit in flight) and its
 * spilled operation items may still stand (TTL deletes items one by one, in no order). The run
 * created anew must start above all of them.
 */
import { DeleteCommand, type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore, runPk } from '@durable-lambda/aws';
import { FencedError } from '@durable-lambda/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationItem } from '../../../packages/aws/src/dynamodb/items';
import { RUN_SK } from '../../../packages/aws/src/dynamodb/layout';
import { conformanceClock, executionOp, leaseToken, runRecord, stepOp, T0 } from '../../store-conformance/conformance';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../../support/dynamodb-local';

let client: DynamoDBDocumentClient;

beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
}, 60_000);

afterAll(() => client?.destroy());

describe('DynamoDbStore: a run key used again after TTL deleted the old run item', () => {
  it("starts the new run above every fence of the old one: the old invocation's commit and spilled items stay out", async () => {
    const clock = conformanceClock();
    const tableName = uniqueTableName('recreated');
    await createDurableTable(client, tableName);
    const store = new DynamoDbStore({ client, tableName, clock });
    const old = runRecord('r1', { runKey: 'order-42', incarnation: 'aaaaaaaaaaaaaaaa', expiresAt: T0 + 5_000 });
    await store.createRun(old, executionOp());
    const stale = (await store.acquireLease('r1', T0, T0 + 60_000, leaseToken()))?.run.fence as number;
    await store.commit('r1', stale, { operations: [stepOp('1', '"old"')] });

    // Past the retention, TTL deletes the run item first; an operation item the old invocation
    // spilled (its fence in `f`) is still there.
    clock.set(T0 + 5_000);
    await client.send(new DeleteCommand({ TableName: tableName, Key: { pk: runPk('r1'), sk: RUN_SK } }));
    const spilled = operationItem('r1', stepOp('2', '"old spill"'), stale, Math.ceil(T0 / 1000) + 86_400, {
      maxItemBytes: 350_000,
    });
    await client.send(new PutCommand({ TableName: tableName, Item: spilled.item }));

    const again = { runKey: 'order-42', incarnation: 'bbbbbbbbbbbbbbbb', input: '"new"', createdAt: T0 + 5_000 };
    expect((await store.createRun(runRecord('r1', again), executionOp('"new"'))).created).toBe(true);
    const grant = await store.acquireLease('r1', T0 + 5_000, T0 + 60_000, leaseToken());
    expect(grant?.run.fence).toBeGreaterThan(stale);
    await expect(store.commit('r1', stale, { operations: [stepOp('1', '"stale"')] })).rejects.toBeInstanceOf(
      FencedError,
    );
    expect(await store.loadOperations('r1')).toEqual([executionOp('"new"')]);
    expect(await store.getOperation('r1', '2')).toBeUndefined();
    await store.commit('r1', grant?.run.fence as number, { operations: [stepOp('1', '"new"')] });
    expect(await store.loadOperations('r1')).toEqual([executionOp('"new"'), stepOp('1', '"new"')]);
  });
});
