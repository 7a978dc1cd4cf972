/**
 * What a named signal costs on DynamoDB (issue 27), measured on DynamoDB Local from the
 * `ConsumedCapacity` it answers (`measureConsumedCapacity`, as the run meter and the bench do):
 * sending one signal is one read of the run item's few attributes and one TransactWriteItems (the
 * signal item and the run item, two write units per KB each); a keyed send adds its marker item;
 * the invocation that delivers signals reads the inbox with one Query, and never when the run has
 * had none. The figures are printed for the README.
 */
import { type AttributeValue, GetItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type ConsumedCapacity, createDurableTable, DynamoDbStore, measureConsumedCapacity } from '@durable-lambda/aws';
import { TestDriver } from '@durable-lambda/local';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { itemSize, writeUnits } from '../../../bench/lib/dynamodb-meter';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../../support/dynamodb-local';

/**
 * What a send's transaction costs by DynamoDB's documented rule (2 WRU per KB of each item, the
 * run item's size the larger of before and after): DynamoDB Local answers 2 for every
 * transaction, whatever its items, so the rule is applied to the items as stored.
 */
async function documentedSendWru(runId: string, seq: number, keyed: boolean): Promise<number> {
  const pk = { S: `RUN#${runId}` };
  const run = await client.send(new GetItemCommand({ TableName: tableName, Key: { pk, sk: { S: 'RUN' } } }));
  const inbox = await client.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sig)',
      ExpressionAttributeValues: { ':pk': pk, ':sig': { S: 'SIG' } },
    }),
  );
  const items = (inbox.Items ?? []) as Array<Record<string, AttributeValue>>;
  const signal = items.find((item) => item.signal?.M?.seq?.N === String(seq));
  const marker = keyed ? items.find((item) => item.sk?.S?.startsWith('SIGK#')) : undefined;
  return (
    writeUnits(itemSize(run.Item), true) +
    writeUnits(itemSize(signal), true) +
    (marker ? writeUnits(itemSize(marker), true) : 0)
  );
}

let client: DynamoDBDocumentClient;
let tableName = '';
let seen: ConsumedCapacity[] = [];

beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
  measureConsumedCapacity(client, (consumed) => seen.push(consumed));
  tableName = uniqueTableName('signal-cost');
  await createDurableTable(client, tableName);
}, 60_000);

/** The units and requests of `work`, by command. */
async function measured(work: () => Promise<unknown>) {
  seen = [];
  await work();
  const taken = seen;
  seen = [];
  const by = (command: string) => taken.filter((c) => c.command === command);
  const sum = (list: ConsumedCapacity[], key: 'rru' | 'wru') => list.reduce((n, c) => n + c[key], 0);
  return {
    rru: sum(taken, 'rru'),
    wru: sum(taken, 'wru'),
    queries: by('QueryCommand').length,
    transactions: by('TransactWriteItemsCommand').length,
    queryRru: sum(by('QueryCommand'), 'rru'),
  };
}

function driverFor(handler: unknown): TestDriver {
  return new TestDriver(
    { fn: handler as never },
    { store: (clock) => new DynamoDbStore({ client, tableName, clock }), startTime: Date.UTC(2026, 0, 1) },
  );
}

describe('what a signal costs on DynamoDB Local', () => {
  it('a send is one small read and one transaction; delivery is one Query per invocation, none without signals', async () => {
    const takesTen = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      const got: unknown[] = [];
      for (let i = 0; i < 10; i++) got.push(await ctx.waitForSignal('item'));
      return got.length;
    });
    const driver = driverFor(takesTen);
    const run = await driver.start('fn', { order: 'o-1' });
    const one = await measured(() => driver.sendSignal(run.runId, 'item', { sku: 'a-1', qty: 2 }));
    expect(one).toMatchObject({ transactions: 1, queries: 0 });
    // The run item's few attributes (strongly consistent, under 4 KB): 1 RRU.
    expect(one.rru).toBe(1);
    // Two small items in one transaction: 2 WRU each.
    // DynamoDB Local's answer for any transaction; by the documented rule, 2 WRU per KB of each item.
    expect(one.wru).toBe(2);
    const oneWru = await documentedSendWru(run.runId, 1, false);
    expect(oneWru).toBe(4);
    const keyed = await measured(() => driver.sendSignal(run.runId, 'item', { sku: 'a-2' }, { dedupeKey: 'k-1' }));
    // Plus the marker item (2 WRU), and the marker's read first (1 RRU).
    // Plus, billed, the marker item (2 WRU); no read of it on a first send.
    expect(keyed).toMatchObject({ transactions: 1, rru: 1 });
    const keyedWru = await documentedSendWru(run.runId, 2, true);
    expect(keyedWru).toBe(6);
    const rest = await measured(async () => {
      for (let i = 3; i <= 10; i++) await driver.sendSignal(run.runId, 'item', { sku: `a-${i}` });
    });
    expect(rest.transactions).toBe(8);
    const delivered = await measured(() => driver.runUntilDone(run.runId));
    // Every signal was there before the run ran: one invocation, one Query of the inbox.
    expect(delivered.queries).toBe(1);
    expect(delivered.queryRru).toBe(1);

    const plain = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      await ctx.step('work', async () => 'done');
      return ctx.waitForSignal('never', { timeout: { minutes: 1 } }).catch(() => 'timed out');
    });
    const quiet = driverFor(plain);
    const other = await quiet.start('fn', {});
    // A run that never had a signal reads no inbox, even as it waits for one.
    expect((await measured(() => quiet.runUntilDone(other.runId))).queries).toBe(0);

    console.log(
      `signal cost on DynamoDB Local: send ${one.rru} RRU + ${one.wru} WRU as Local answers (${oneWru} WRU billed by the ` +
        `documented rule); keyed send ${keyed.rru} RRU + ${keyed.wru} WRU (${keyedWru} billed); ` +
        `delivery of 10 signals ${delivered.queries} Query (${delivered.queryRru} RRU)`,
    );
  });
});
