/**
 * Large payloads in a bucket (issue 27), on DynamoDB Local with an in-process S3: values past the
 * threshold are S3 objects under the run (`runs/<runId>/<hash>`), referenced from their items, and
 * every read resolves them; the object is written before the item that names it, so a crash in
 * between leaves an orphan only, and a put whose response was lost is sent again safely.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  ChunkMissingError,
  createDurableTable,
  DynamoDbStore,
  LightDynamoDbClient,
  LightS3Client,
  runPk,
} from '@durable-lambda/aws';
import { TestDriver } from '@durable-lambda/local';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executionOp, runRecord } from '../../store-conformance/fixtures';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../../support/dynamodb-local';
import { FakeS3 } from '../../support/fake-s3';

const BUCKET = 'payloads';
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
let sdk: DynamoDBDocumentClient;
let endpoint = '';
let s3: FakeS3;
let objects: LightS3Client;

beforeAll(async () => {
  endpoint = await dynamoDbLocalEndpoint();
  sdk = localDocumentClient(endpoint);
  s3 = new FakeS3(BUCKET);
  objects = new LightS3Client({
    region: 'us-east-1',
    endpoint: await s3.start(),
    bucket: BUCKET,
    credentials,
    maxAttempts: 4,
  });
}, 60_000);

afterAll(async () => {
  sdk?.destroy();
  await s3.stop();
});

const big = (kb: number, tag: string) => `${tag}:${'x'.repeat(kb * 1024)}`;

async function freshTable(prefix: string) {
  const tableName = uniqueTableName(prefix);
  await createDurableTable(sdk, tableName);
  return tableName;
}

/** Every item of a run's partition, by sort key. */
async function partition(tableName: string, runId: string) {
  const out = await sdk.send(
    new (await import('@aws-sdk/lib-dynamodb')).QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': runPk(runId) },
    }),
  );
  return out.Items ?? [];
}

describe('a run with large payloads, through the engine, on DynamoDB Local and S3', () => {
  it('keeps its input, step and child-context results and its result in the bucket, and replays them whole', async () => {
    const tableName = await freshTable('s3run');
    const input = { blob: big(40, 'input') };
    const handler = withDurableExecution(async (event: { blob: string }, ctx: DurableContext) => {
      const step = await ctx.step('load', async () => big(100, 'step'));
      const child = await ctx.runInChildContext('child', async (c) => {
        await c.step('inner', async () => 'small');
        return big(30, 'child');
      });
      await ctx.wait('pause', { seconds: 30 });
      return { in: event.blob.length, step: step.length, child: child.length, out: big(60, 'result') };
    });
    let store: DynamoDbStore | undefined;
    const light = new LightDynamoDbClient({ region: 'us-east-1', endpoint, credentials });
    const driver = new TestDriver(
      { fn: handler },
      {
        store: (clock) => {
          store = new DynamoDbStore({ client: light, tableName, clock, payloadObjects: objects });
          return store;
        },
        startTime: Date.UTC(2026, 0, 1),
      },
    );
    const putsBefore = s3.requests.PUT;
    const run = await driver.start('fn', input);
    const ended = await driver.runUntilDone(run.runId);
    expect(ended.status).toBe('SUCCEEDED');
    const result = JSON.parse(ended.result ?? '{}') as { in: number; step: number; child: number; out: string };
    expect(result).toMatchObject({
      in: input.blob.length,
      step: big(100, 'step').length,
      child: big(30, 'child').length,
    });
    expect(result.out).toBe(big(60, 'result'));

    // Four values past 16 KiB (input, step, child, result): objects under the run, nothing chunked.
    const keys = s3.keys(BUCKET).filter((key) => key.startsWith(`runs/${run.runId}/`));
    expect(keys).toHaveLength(4);
    expect(s3.requests.PUT - putsBefore).toBeGreaterThanOrEqual(4);
    const items = await partition(tableName, run.runId);
    expect(items.filter((item) => String(item.sk).startsWith('CHUNK#'))).toEqual([]);
    expect(JSON.stringify(items).length).toBeLessThan(16 * 1024);

    // A store with no cache reads everything back whole: run, operations, one operation, pages.
    const reader = new DynamoDbStore({ client: light, tableName, payloadObjects: objects });
    expect((await reader.getRun(run.runId))?.result).toBe(ended.result);
    expect((await reader.getRun(run.runId))?.input).toBe(JSON.stringify(input));
    const ops = await reader.loadOperations(run.runId);
    const load = ops.find((op) => op.Name === 'load');
    expect(load?.StepDetails?.Result).toBe(JSON.stringify(big(100, 'step')));
    expect(ops.find((op) => op.Name === 'child')?.ContextDetails?.Result).toBe(JSON.stringify(big(30, 'child')));
    expect((await reader.getOperation(run.runId, load?.Id ?? ''))?.StepDetails?.Result).toBe(
      JSON.stringify(big(100, 'step')),
    );
    const page = await reader.loadOperationPage(run.runId, { limit: 100 });
    expect(page.operations.map((op) => op.StepDetails?.Result ?? op.ContextDetails?.Result)).toEqual(
      ops.map((op) => op.StepDetails?.Result ?? op.ContextDetails?.Result),
    );
    light.destroy();
  }, 60_000);

  it('keeps small values in the table: no bucket request at all', async () => {
    const tableName = await freshTable('s3small');
    const before = { ...s3.requests };
    const handler = withDurableExecution(async (_event, ctx: DurableContext) => {
      const a = await ctx.step('a', async () => 'y'.repeat(8 * 1024));
      return a.length;
    });
    const driver = new TestDriver(
      { fn: handler },
      { store: (clock) => new DynamoDbStore({ client: sdk, tableName, clock, payloadObjects: objects }) },
    );
    const run = await driver.start('fn', { small: true });
    expect((await driver.runUntilDone(run.runId)).status).toBe('SUCCEEDED');
    expect(s3.requests).toEqual(before);
  }, 30_000);
});

describe('writes to the bucket under faults', () => {
  it('a PutObject whose response is lost is sent again: one object, the run created once', async () => {
    const tableName = await freshTable('s3lost');
    const store = new DynamoDbStore({ client: sdk, tableName, payloadObjects: objects });
    const input = JSON.stringify(big(50, 'lost'));
    s3.loseNextPutResponses(2);
    const puts = s3.requests.PUT;
    const created = await store.createRun(runRecord('lost-1', { input }), executionOp(input));
    expect(created.created).toBe(true);
    expect(s3.requests.PUT - puts).toBe(3);
    expect(s3.keys(BUCKET).filter((key) => key.startsWith('runs/lost-1/'))).toHaveLength(1);
    expect((await store.getRun('lost-1'))?.input).toBe(input);
  });

  it('a crash after the object and before the item leaves an orphan, never a reference to nothing', async () => {
    const tableName = await freshTable('s3crash');
    const client = localDocumentClient(endpoint);
    let crash = true;
    const putsBefore = s3.requests.PUT;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        // Killed once the object is in the bucket, before any write to the table that follows it.
        if (crash && s3.requests.PUT > putsBefore && !/^(Get|Query|BatchGet)/.test(String(context.commandName)))
          throw new Error('process killed before the run item');
        return next(args);
      },
      { step: 'initialize', name: 'crash-before-item' },
    );
    const store = new DynamoDbStore({ client, tableName, payloadObjects: objects });
    const input = JSON.stringify(big(50, 'crash'));
    await expect(store.createRun(runRecord('crash-1', { input }), executionOp(input))).rejects.toThrow(
      'process killed',
    );
    // The object is there (an orphan the lifecycle rule deletes); the table names nothing.
    expect(s3.keys(BUCKET).filter((key) => key.startsWith('runs/crash-1/'))).toHaveLength(1);
    expect(await store.getRun('crash-1')).toBeUndefined();
    expect(await partition(tableName, 'crash-1')).toEqual([]);
    // The retry writes the same object again (same key) and then the item.
    crash = false;
    expect((await store.createRun(runRecord('crash-1', { input }), executionOp(input))).created).toBe(true);
    expect(s3.keys(BUCKET).filter((key) => key.startsWith('runs/crash-1/'))).toHaveLength(1);
    expect((await store.getRun('crash-1'))?.input).toBe(input);
    client.destroy();
  });

  it('a throttled PutObject (503 SlowDown) is retried, and a payload whose object is gone reads as chunk_missing', async () => {
    const tableName = await freshTable('s3slow');
    const store = new DynamoDbStore({ client: sdk, tableName, payloadObjects: objects });
    const input = JSON.stringify(big(50, 'slow'));
    s3.failNext(2);
    await store.createRun(runRecord('slow-1', { input }), executionOp(input));
    expect((await store.getRun('slow-1'))?.input).toBe(input);
    for (const key of s3.keys(BUCKET).filter((k) => k.startsWith('runs/slow-1/'))) await objects.delete(key);
    const error = await store.getRun('slow-1').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ChunkMissingError);
    expect((error as ChunkMissingError).code).toBe('chunk_missing');
  });

  it('a PutObject S3 answers RequestTimeout (400) is sent again', async () => {
    const tableName = await freshTable('s3timeout');
    const store = new DynamoDbStore({ client: sdk, tableName, payloadObjects: objects });
    const input = JSON.stringify(big(20, 'timeout'));
    s3.timeOutNextPuts(2);
    await store.createRun(runRecord('timeout-1', { input }), executionOp(input));
    expect((await store.getRun('timeout-1'))?.input).toBe(input);
  });

  it('a missing object read without s3:ListBucket is S3 403, not taken for a missing payload', async () => {
    const tableName = await freshTable('s3denied');
    const store = new DynamoDbStore({ client: sdk, tableName, payloadObjects: objects });
    const input = JSON.stringify(big(20, 'denied'));
    await store.createRun(runRecord('denied-1', { input }), executionOp(input));
    for (const key of s3.keys(BUCKET).filter((k) => k.startsWith('runs/denied-1/'))) await objects.delete(key);
    s3.withoutListBucket.add(credentials.accessKeyId);
    try {
      await expect(store.getRun('denied-1')).rejects.toThrow(/AccessDenied/);
    } finally {
      s3.withoutListBucket.delete(credentials.accessKeyId);
    }
  });

  it('refuses a threshold that is not a whole number of bytes, naming the field', () => {
    expect(
      () => new DynamoDbStore({ client: sdk, tableName: 't', payloadObjects: objects, objectThresholdBytes: 0 }),
    ).toThrow(/objectThresholdBytes/);
  });
});
