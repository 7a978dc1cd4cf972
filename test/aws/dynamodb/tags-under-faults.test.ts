/**
 * Tags on DynamoDB Local under faults (issue 27, "Finding runs"): the tag index is written ahead of
 * the run write and cleaned after it, never in one transaction, so an entry may outlive its value
 * (a delete lost, a write refused or lost, an invocation killed); a search still answers from the
 * run items: a run is found by its current tags only, once. Through the engine with killed
 * invocations and checkpoints, lost store responses and races, the run ends with its last tags.
 * `TAG_FAULT_SEEDS` runs more seeds.
 */
import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore } from '@durable-lambda/aws';
import { TestDriver } from '@durable-lambda/local';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../../support/dynamodb-local';

const SEEDS = Number(process.env.TAG_FAULT_SEEDS ?? 4);
const T0 = Date.UTC(2026, 0, 1);

let client: DynamoDBDocumentClient;
let tableName = '';
/** While set, every DeleteItem of a tag index entry fails as a throttle would. */
let refuseTagDeletes = false;

beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
  client.middlewareStack.add(
    (next, context) => async (args) => {
      // The key as the document client has it, or already marshalled (`{ S: … }`).
      const pk = (args.input as { Key?: { pk?: unknown } }).Key?.pk;
      const key = typeof pk === 'object' && pk !== null ? (pk as { S?: unknown }).S : pk;
      if (refuseTagDeletes && /^Delete/.test(String(context.commandName)) && String(key).startsWith('TAG#')) {
        throw Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), {
          name: 'ThrottlingException',
        });
      }
      return next(args);
    },
    { step: 'initialize', name: 'refuse-tag-deletes' },
  );
  tableName = uniqueTableName('tagfaults');
  await createDurableTable(client, tableName);
});

const ids = async (store: DynamoDbStore, tags: Record<string, string>) =>
  (await store.listRuns({ tags, limit: 100 })).runs.map((run) => run.runId);

describe('tags on DynamoDB Local under faults', { timeout: 300_000 }, () => {
  it('a replaced value whose entry could not be deleted no longer finds the run; the new one does, once', async () => {
    const store = new DynamoDbStore({ client, tableName });
    const run = {
      runId: 'stale-1',
      functionName: 'orders',
      status: 'RUNNING' as const,
      createdAt: T0,
      updatedAt: T0,
      fence: 0,
      nextWakeAt: T0,
      invocations: 0,
      lostInvocations: 0,
      eventSeq: 0,
      handledEventSeq: 0,
      tags: { customer: 'c-1' },
    };
    await store.createRun(run, { Id: '0', Type: 'EXECUTION', Status: 'STARTED', StartTimestamp: T0 });
    const grant = await store.acquireLease('stale-1', Date.now(), Date.now() + 60_000, 'token-1');
    refuseTagDeletes = true;
    try {
      await store.commit('stale-1', grant?.run.fence ?? 0, {
        operations: [],
        run: { tags: { customer: 'c-2' } },
        tagged: { before: { customer: 'c-1' }, createdAt: T0 },
      });
    } finally {
      refuseTagDeletes = false;
    }
    expect((await store.getRun('stale-1'))?.tags).toEqual({ customer: 'c-2' });
    // The old value's entry is still there: the search answers from the run item, not from it.
    const stale = await client.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: 'begins_with(pk, :p) AND runId = :r',
        ExpressionAttributeValues: { ':p': 'TAG#customer=c-1#', ':r': 'stale-1' },
      }),
    );
    expect(stale.Items ?? []).toHaveLength(1);
    expect(await ids(store, { customer: 'c-1' })).toEqual([]);
    expect(await ids(store, { customer: 'c-2' })).toEqual(['stale-1']);
  });

  it('through the engine, under killed invocations, lost responses and races: found by its last tags only', async () => {
    const handler = withDurableExecution(async (event: { batch: string }, ctx: DurableContext) => {
      await ctx.tag({ batch: event.batch });
      for (let n = 1; n <= 4; n++) {
        await ctx.tag({ stage: `s${n}` });
        await ctx.step(`work-${n}`, async () => n);
        if (n === 2) await ctx.wait('pause', { seconds: 30 });
      }
      await ctx.tag({ stage: 'done' });
      return 'ok';
    });
    let faults = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      let store: DynamoDbStore | undefined;
      const driver = new TestDriver(
        { fn: handler as never },
        {
          store: (clock) => {
            store = new DynamoDbStore({ client, tableName, clock });
            return store;
          },
          startTime: T0 + seed * 3_600_000,
          faults: {
            seed,
            defaultProbability: 0,
            killInCheckpoint: 0.2,
            storeLostResponse: 0.2,
            killAfterStep: 0.2,
            race: 0.1,
            maxFaults: 6,
          },
        },
      );
      const batch = `seed-${seed}`;
      const started = await driver.start('fn', { batch });
      const ended = await driver.runUntilDone(started.runId);
      faults += driver.faults.length;
      const where = `seed ${seed}: ${JSON.stringify(driver.faults.map((f) => `${f.kind}@${f.operationId}`))}`;
      expect(ended.status, where).toBe('SUCCEEDED');
      expect(ended.tags, where).toEqual({ batch, stage: 'done' });
      const reader = store as DynamoDbStore;
      expect(await ids(reader, { batch, stage: 'done' }), where).toEqual([started.runId]);
      for (const old of ['s1', 's2', 's3', 's4']) expect(await ids(reader, { batch, stage: old }), where).toEqual([]);
    }
    expect(faults).toBeGreaterThan(0);
  });
});
