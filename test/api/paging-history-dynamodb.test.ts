import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore } from '@durable-lambda/aws';
import type { Operation } from '@durable-lambda/protocol';
import { afterAll, beforeAll } from 'vitest';
import { operationItem } from '../../packages/aws/src/dynamodb/items';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import { describeHistoryPaging, pagingWorld } from './paging-suite';

let client: DynamoDBDocumentClient;
let tableName: string;
beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
  tableName = uniqueTableName('paging');
  await createDurableTable(client, tableName);
}, 60_000);
afterAll(() => client?.destroy());

/**
 * Writes operation items as the store's commits would (its own item builder), 25 to a
 * BatchWriteItem, several at once: DynamoDB Local takes over a second per 99-item transaction on a
 * loaded machine, and the test is of reads.
 */
async function bulkWrite(runId: string, fence: number, operations: readonly Operation[]): Promise<void> {
  const ttl = Math.ceil((Date.UTC(2026, 0, 1) + 400 * 86_400_000) / 1000);
  const items = operations.map((op) => {
    const prepared = operationItem(runId, op, fence, ttl, { maxItemBytes: 350_000 });
    if (prepared.chunks.length > 0) throw new Error(`operation ${op.Id} would be chunked: commit it`);
    return prepared.item;
  });
  const batches: Array<Record<string, unknown>[]> = [];
  for (let start = 0; start < items.length; start += 25) batches.push(items.slice(start, start + 25));
  const write = async (batch: Record<string, unknown>[]) => {
    let pending = batch.map((Item) => ({ PutRequest: { Item } }));
    while (pending.length > 0) {
      const out = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = (out.UnprocessedItems?.[tableName] ?? []) as typeof pending;
    }
  };
  for (let start = 0; start < batches.length; start += 8) await Promise.all(batches.slice(start, start + 8).map(write));
}

describeHistoryPaging(
  'DynamoDbStore',
  async () => {
    const clock = { now: () => Date.UTC(2026, 0, 1) };
    // One table for the file: every run has its own partition.
    return pagingWorld(new DynamoDbStore({ client, tableName, clock }), clock);
  },
  // About 4.9 MB of JSON (its quotes escaped): past the 4 MB an answer holding one operation may carry (chunked in the store).
  {
    // 1,000 operations by default, to keep the suite's wall time: the 10,000-operation run
    // (PAGING_DYNAMODB_ITEMS=4999) takes DynamoDB Local 1-2 minutes on a loaded machine.
    items: Number(process.env.PAGING_DYNAMODB_ITEMS ?? 499),
    bulkWrite,
    // The memory run checks the client's join of slices; here the slices are read once.
    clientSlices: false,
    hugeBytes: 3_500_000,
    timeoutMs: 300_000,
  },
);
