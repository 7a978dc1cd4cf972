/**
 * Tags and search on DynamoDB Local (issue 27, "Finding runs"), measured request by request: what
 * a tag costs the run that sets it (through the engine: one PutItem of 1 WRU per new value, one
 * DeleteItem per value replaced, the run's own writes unchanged in number), what one search page
 * costs (16 shard Queries and one BatchGetItem), and that one tag value on many runs spreads over
 * the tag's 16 partition keys (no hot key). The figures are printed for the README.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { type ConsumedCapacity, createDurableTable, DynamoDbStore, measureConsumedCapacity } from '@durable-lambda/aws';
import { TestDriver } from '@durable-lambda/local';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../../support/dynamodb-local';

let client: DynamoDBDocumentClient;
let tableName = '';
let reports: ConsumedCapacity[] = [];
let counting = false;

beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
  measureConsumedCapacity(client, (consumed) => {
    if (counting) reports.push(consumed);
  });
  tableName = uniqueTableName('tags');
  await createDurableTable(client, tableName);
});

/** Requests and units of what `work` sends. */
async function measure<T>(
  work: () => Promise<T>,
): Promise<{ value: T; requests: ConsumedCapacity[]; wru: number; rru: number }> {
  reports = [];
  counting = true;
  try {
    const value = await work();
    return {
      value,
      requests: reports,
      wru: reports.reduce((sum, r) => sum + r.wru, 0),
      rru: reports.reduce((sum, r) => sum + r.rru, 0),
    };
  } finally {
    counting = false;
  }
}

const count = (requests: ConsumedCapacity[], command: string) => requests.filter((r) => r.command === command).length;

async function drive(tags: 'none' | 'one' | 'replaced') {
  const handler = withDurableExecution(async (_event, ctx: DurableContext) => {
    if (tags !== 'none') await ctx.tag({ customer: 'c-1' });
    await ctx.step('reserve', async () => 'r');
    if (tags === 'replaced') await ctx.tag({ customer: 'c-2' });
    await ctx.step('charge', async () => 'c');
    return 'ok';
  });
  let store: DynamoDbStore | undefined;
  const driver = new TestDriver(
    { fn: handler },
    {
      store: (clock) => {
        store = new DynamoDbStore({ client, tableName, clock });
        return store;
      },
      startTime: Date.UTC(2026, 0, 1),
    },
  );
  const measured = await measure(async () => {
    const run = await driver.start('fn', {});
    return driver.runUntilDone(run.runId);
  });
  return { ...measured, store: store as DynamoDbStore };
}

describe('tags and search on DynamoDB Local, measured', { timeout: 120_000 }, () => {
  it('a tag costs one small PutItem per new value and a DeleteItem per replaced one, no more run writes', async () => {
    const without = await drive('none');
    const one = await drive('one');
    const replaced = await drive('replaced');
    const writes = (r: { requests: ConsumedCapacity[] }) => r.requests.filter((x) => x.wru > 0 || x.refused);
    const runWrites = (r: { requests: ConsumedCapacity[] }) =>
      writes(r).length - count(r.requests, 'PutItemCommand') - count(r.requests, 'DeleteItemCommand');
    expect(one.value.tags).toEqual({ customer: 'c-1' });
    expect(replaced.value.tags).toEqual({ customer: 'c-2' });
    // Entries: one Put for the tag, then one Put and one Delete for the replaced value.
    expect(count(one.requests, 'PutItemCommand') - count(without.requests, 'PutItemCommand')).toBe(1);
    expect(count(replaced.requests, 'PutItemCommand') - count(without.requests, 'PutItemCommand')).toBe(2);
    expect(count(replaced.requests, 'DeleteItemCommand') - count(without.requests, 'DeleteItemCommand')).toBe(1);
    // The run's own writes (start, leases, checkpoints, end) are as many with tags as without.
    expect(runWrites(one)).toBe(runWrites(without));
    expect(runWrites(replaced)).toBe(runWrites(without));
    const tagWru = one.wru - without.wru;
    const replacedWru = replaced.wru - without.wru;
    console.log(
      `tags on DynamoDB Local: run without tags ${without.wru} WRU in ${writes(without).length} writes; ` +
        `one tag +${tagWru} WRU (+1 PutItem); a value replaced +${replacedWru} WRU (+2 PutItem, +1 DeleteItem)`,
    );
    expect(tagWru).toBeGreaterThanOrEqual(1);
    expect(tagWru).toBeLessThanOrEqual(2);
    expect(replacedWru).toBeLessThanOrEqual(4);
  });

  it('one tag value on 80 runs spreads over its 16 partition keys; a page costs 16 Queries and one BatchGetItem', async () => {
    const store = new DynamoDbStore({ client, tableName });
    const base = Date.now();
    const created: string[] = [];
    for (let i = 0; i < 80; i++) {
      const runId = `search-${String(i).padStart(3, '0')}`;
      created.push(runId);
      await store.createRun(
        {
          runId,
          functionName: 'orders',
          status: 'RUNNING',
          input: '{"order":1}',
          createdAt: base + i,
          updatedAt: base + i,
          fence: 0,
          nextWakeAt: base + i,
          invocations: 0,
          lostInvocations: 0,
          eventSeq: 0,
          handledEventSeq: 0,
          tags: { region: 'eu-west', batch: i % 10 === 0 ? 'rare' : 'common' },
        },
        { Id: '0', Type: 'EXECUTION', Status: 'STARTED', StartTimestamp: base + i, ExecutionDetails: {} },
      );
    }
    const entries = await client.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: 'begins_with(pk, :p)',
        ExpressionAttributeValues: { ':p': 'TAG#region=eu-west#' },
      }),
    );
    const perKey = new Map<string, number>();
    for (const item of entries.Items ?? []) perKey.set(String(item.pk), (perKey.get(String(item.pk)) ?? 0) + 1);
    expect([...perKey.values()].reduce((a, b) => a + b, 0)).toBe(80);
    expect(perKey.size).toBeGreaterThanOrEqual(14);
    expect(Math.max(...perKey.values())).toBeLessThanOrEqual(12);

    const page = await measure(() => store.listRuns({ tags: { region: 'eu-west' }, limit: 20 }));
    expect(page.value.runs.map((r) => r.runId)).toEqual(created.slice(-20).reverse());
    expect(page.value.cursor).toBeDefined();
    expect(count(page.requests, 'QueryCommand')).toBe(16);
    expect(count(page.requests, 'BatchGetItemCommand')).toBe(1);
    const next = await measure(() =>
      store.listRuns({ tags: { region: 'eu-west' }, limit: 20, cursor: page.value.cursor as string }),
    );
    expect(next.value.runs.map((r) => r.runId)).toEqual(created.slice(-40, -20).reverse());
    // Two tags: intersected on their entries, so only the 8 runs under both are read, whichever comes first.
    const rare = await measure(() => store.listRuns({ tags: { region: 'eu-west', batch: 'rare' }, limit: 20 }));
    expect(rare.value.runs.map((r) => r.runId)).toEqual(created.filter((_, i) => i % 10 === 0).reverse());
    const rareFirst = await measure(() => store.listRuns({ tags: { batch: 'rare', region: 'eu-west' }, limit: 20 }));
    expect(rareFirst.value.runs.map((r) => r.runId)).toEqual(rare.value.runs.map((r) => r.runId));
    for (const measured of [rare, rareFirst]) {
      expect(count(measured.requests, 'BatchGetItemCommand')).toBe(1);
      expect(count(measured.requests, 'QueryCommand')).toBe(32);
    }
    expect(rare.rru).toBe(rareFirst.rru);
    console.log(
      `search on DynamoDB Local: a page of 20 (one tag on 80 runs): ${page.rru} RRU in ${page.requests.length} requests; ` +
        `next page ${next.rru} RRU; two tags (8 runs under both, 80 under one): ${rare.rru} RRU in ${rare.requests.length} requests`,
    );
    expect(page.rru).toBeLessThan(40);
  });
});
