/**
 * A run the engine pins at its first lease (Lambda's version policy: `orders` or `orders:live`
 * becomes `orders:7`, written by the store's `pinRun`) moves in the listing indexes with its name:
 * on DynamoDB Local, it is listed once under `orders`, under `orders:7`, and no longer under the
 * name it started with.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore, LambdaVersionPolicy, parseFunctionArn } from '@durable-lambda/aws';
import { Engine, type RunQuery, type RunRecord, systemClock } from '@durable-lambda/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runningCode } from '../../packages/aws/src/version-pinning';
import { executionOp, runRecord } from '../store-conformance/fixtures';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';

const ALIAS_ARN = 'arn:aws:lambda:us-east-1:123456789012:function:orders:live';

let client: DynamoDBDocumentClient;
let store: DynamoDbStore;
let engine: Engine;

beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
  const tableName = uniqueTableName('pin-listing');
  await createDurableTable(client, tableName);
  store = new DynamoDbStore({ client, tableName, clock: systemClock });
  const own = parseFunctionArn(ALIAS_ARN);
  if (!own) throw new Error('not an ARN');
  const versions = new LambdaVersionPolicy({ pinning: 'version' });
  versions.runningOn(runningCode(own, '7'));
  engine = new Engine({ store, waker: { wakeAt: async () => {} }, versions });
}, 120_000);

afterAll(() => client?.destroy());

const ids = async (query: RunQuery) => (await store.listRuns(query)).runs.map((run) => run.runId);

/** Starts `runId` recorded as `functionName`, then leases it as version 7 behind `live` does. */
async function startAndLease(runId: string, functionName: string): Promise<RunRecord> {
  const now = Date.now();
  await store.createRun(
    runRecord(runId, { functionName, createdAt: now, updatedAt: now, nextWakeAt: now }),
    executionOp(),
  );
  const session = await engine.openRun(runId);
  if (!session) throw new Error('lease not granted');
  const run = await store.getRun(runId);
  if (!run) throw new Error('run gone');
  return run;
}

describe('listing runs the pinning store re-records', () => {
  it('a run started unqualified (the control API) is listed under orders and orders:7 once pinned', async () => {
    const run = await startAndLease('from-bare', 'orders');
    expect(run.functionName).toBe('orders:7');
    expect((await store.getRun('from-bare'))?.functionName).toBe('orders:7');
    expect((await ids({ functionName: 'orders' })).filter((id) => id === 'from-bare')).toEqual(['from-bare']);
    expect(await ids({ functionName: 'orders:7' })).toContain('from-bare');
    expect(await ids({ functionName: 'orders:live' })).not.toContain('from-bare');
  });

  it('a run started on the alias is listed under orders:7 once pinned, no longer under orders:live', async () => {
    const run = await startAndLease('from-alias', 'orders:live');
    expect(run.functionName).toBe('orders:7');
    expect((await ids({ functionName: 'orders' })).filter((id) => id === 'from-alias')).toEqual(['from-alias']);
    expect(await ids({ functionName: 'orders:7' })).toContain('from-alias');
    expect(await ids({ functionName: 'orders:live' })).not.toContain('from-alias');
    expect(await ids({ functionName: 'orders', status: 'RUNNING' })).toEqual(
      expect.arrayContaining(['from-alias', 'from-bare']),
    );
  });
});
