/**
 * What a transactional step's outcome costs on DynamoDB Local (issue 27), measured by the store's
 * own capacity interceptor: a plain step's SUCCEED is one UpdateItem of the run item; a
 * transactional one is a TransactWriteItems of the run item and each user write, which DynamoDB
 * bills at 2 WRU per KB per item. Prints the figures the README quotes.
 */
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import {
  type ConsumedCapacity,
  createDurableTable,
  DynamoDbStore,
  LightDynamoDbClient,
  measureConsumedCapacity,
} from '@durable-lambda/aws';
import type { StoreTransactWrite } from '@durable-lambda/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executionOp, runRecord, T0 } from '../../store-conformance/fixtures';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../../support/dynamodb-local';

let endpoint: string;
let light: LightDynamoDbClient;

beforeAll(async () => {
  endpoint = await dynamoDbLocalEndpoint();
  light = new LightDynamoDbClient({
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}, 60_000);
afterAll(() => light?.destroy());

describe('a transactional step outcome on DynamoDB', () => {
  it('costs the run item twice plus 2 WRU per small user write; a plain step one UpdateItem', async () => {
    const sdk = localDocumentClient(endpoint);
    const tableName = uniqueTableName('tx-cost');
    const users = uniqueTableName('tx-users');
    await createDurableTable(sdk, tableName);
    await sdk.send(
      new CreateTableCommand({
        TableName: users,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      }),
    );
    sdk.destroy();
    const seen: ConsumedCapacity[] = [];
    measureConsumedCapacity(light, (c) => seen.push(c));
    const clock = { now: () => T0 };
    const store = new DynamoDbStore({ client: light, tableName, clock });
    const figures: Record<string, number> = {};
    const measure = async (label: string, id: string, writes: number) => {
      const runId = `run-${label}`;
      await store.createRun(runRecord(runId), executionOp());
      const grant = await store.acquireLease(runId, T0, T0 + 60_000, `token-${label}`);
      const transactWrites: StoreTransactWrite[] = Array.from({ length: writes }, (_, index) => ({
        operationId: id,
        index,
        write: { Put: { TableName: users, Item: { id: `${label}-${index}`, amount: 10, note: 'order line' } } },
      }));
      seen.length = 0;
      await store.commit(runId, grant?.run.fence ?? 0, {
        operations: [
          {
            Id: id,
            Type: 'STEP',
            Status: 'SUCCEEDED',
            StartTimestamp: T0,
            EndTimestamp: T0,
            StepDetails: { Attempt: 1, Result: '"ok"' },
          },
        ],
        ...(writes > 0 ? { transactWrites } : {}),
      });
      figures[label] = seen.reduce((sum, c) => sum + c.wru, 0);
      return seen.map((c) => c.command);
    };
    expect(await measure('plain', '1', 0)).toEqual(['UpdateItemCommand']);
    expect(await measure('one', '1', 1)).toEqual(['TransactWriteItemsCommand']);
    expect(await measure('ten', '1', 10)).toEqual(['TransactWriteItemsCommand']);
    // Each item of a transaction costs twice a plain write of it: the run item's update 2, each
    // small user item 2. DynamoDB Local reports a transaction's units per table, not per item (ten
    // puts to one table show as 2), so the ten-write figure is AWS's documented price, not Local's.
    const plain = figures.plain ?? 0;
    expect(plain).toBe(1);
    expect(figures.one).toBe(2 * plain + 2);
    const documentedTen = 2 * plain + 2 * 10;
    console.log(
      `transactional step outcome, WRU: plain step ${plain}; 1 user write ${figures.one}; ` +
        `10 user writes ${documentedTen} by AWS's pricing (DynamoDB Local reports ${figures.ten})`,
    );
  }, 60_000);

  it('an outbox event costs no request of its own: its bytes ride in the run item for two writes', async () => {
    const sdk = localDocumentClient(endpoint);
    const tableName = uniqueTableName('outbox-cost');
    await createDurableTable(sdk, tableName);
    sdk.destroy();
    const seen: ConsumedCapacity[] = [];
    measureConsumedCapacity(light, (c) => seen.push(c));
    const store = new DynamoDbStore({ client: light, tableName, clock: { now: () => T0 } });
    const step = {
      Id: '1',
      Type: 'STEP' as const,
      Status: 'SUCCEEDED' as const,
      StartTimestamp: T0,
      EndTimestamp: T0,
      StepDetails: { Attempt: 1, Result: '"ok"' },
    };
    const measure = async (label: string, events: number) => {
      const runId = `outbox-${label}`;
      await store.createRun(runRecord(runId), executionOp());
      const fence = (await store.acquireLease(runId, T0, T0 + 60_000, `t-${label}`))?.run.fence ?? 0;
      const outbox = Array.from({ length: events }, (_, i) => ({
        id: `${runId}:1:${i}`,
        at: T0,
        event: {
          kind: 'eventbridge' as const,
          source: 'shop',
          detailType: 'OrderPlaced',
          detail: JSON.stringify({ order: `o-${i}`, total: 42.5 }),
        },
      }));
      seen.length = 0;
      await store.commit(runId, fence, { operations: [step], ...(events > 0 ? { run: { outbox } } : {}) });
      const recorded = seen.reduce((n, c) => n + c.wru, 0);
      seen.length = 0;
      // The next write (here a release) takes the published ones off.
      await store.commit(runId, fence, {
        operations: [],
        run: { leaseExpiresAt: null, ...(events > 0 ? { outbox: null } : {}) },
      });
      const cleared = seen.reduce((n, c) => n + c.wru, 0);
      return { recorded, cleared, requests: seen.length };
    };
    const none = await measure('none', 0);
    const one = await measure('one', 1);
    const ten = await measure('ten', 10);
    console.log(
      `outbox, WRU (step's write + next write): no event ${none.recorded}+${none.cleared}, ` +
        `1 event ${one.recorded}+${one.cleared}, 10 events ${ten.recorded}+${ten.cleared}; publishing: 1 PutEvents per 10 events or 1 SendMessage each`,
    );
    expect(one.requests).toBe(none.requests);
    expect(one.recorded - none.recorded).toBeLessThanOrEqual(1);
    expect(ten.recorded).toBeGreaterThan(one.recorded);
  }, 60_000);
});
