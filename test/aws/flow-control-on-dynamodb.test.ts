/**
 * Flow control's gates end to end on the DynamoDB store (DynamoDB Local): the engine, the SDK's
 * Lambda entry and the real table, on a virtual clock. The gates' registers and slots are the
 * table's items, so this proves their conditional writes serve the gates as the memory store does.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore } from '@durable-lambda/aws';
import { FUNCTION_TABLE_ACTIONS } from '@durable-lambda/cdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FlowOptions, FlowWorld, T0 } from '../engine/flow/flow-world';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import { iamCheckedClient } from '../support/iam-checked-client';

let client: DynamoDBDocumentClient;

beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
}, 60_000);

afterAll(() => client?.destroy());

afterEach(() => {
  // A refusal swallowed by a best-effort path would fail in production only slowly: none at all.
  expect(denied.splice(0)).toEqual([]);
});

/** The actions every request of these worlds used, and those the function's grant refused. */
const used = new Set<string>();
const denied: string[] = [];

/** A world on a table of its own, its store allowed only what a `DurableFunction`'s role is granted. */
async function world(options: FlowOptions): Promise<FlowWorld> {
  const tableName = uniqueTableName('flow');
  await createDurableTable(client, tableName);
  const checked = iamCheckedClient(client, FUNCTION_TABLE_ACTIONS);
  checked.used.add = (action) => used.add(action);
  checked.denied.push = (...actions) => denied.push(...actions);
  return new FlowWorld(options, (clock) => new DynamoDbStore({ client: checked.client, tableName, clock }));
}

const byTenant = (e: unknown) => (e as { tenant: string }).tenant;

describe("flow control on DynamoDB, with no more than the function role's grant", () => {
  it('throttle spaces starts; rateLimit skips past its window; keys stay apart', async () => {
    const w = await world({
      throttle: { key: byTenant, limit: 2, period: { seconds: 10 } },
      rateLimit: { key: byTenant, limit: 3, period: { minutes: 1 } },
    });
    const ids = [];
    for (const id of ['a1', 'a2', 'a3', 'a4']) ids.push(await w.start({ tenant: 'a', id }));
    const b1 = await w.start({ tenant: 'b', id: 'b1' });
    await w.advanceTo(T0 + 20_000);
    expect(await w.statuses([...ids, b1])).toEqual(['RUNNING', 'RUNNING', 'RUNNING', 'CANCELLED', 'RUNNING']);
    expect(w.startOffsets(['a1', 'a2', 'a3', 'b1'])).toEqual([0, 5_000, 10_000, 0]);
    expect((await w.run(ids[3] as string))?.error?.ErrorCode).toBe('rate_limited');
  });

  it('debounce runs the last of a burst; singleton skips while its key runs', async () => {
    const w = await world({
      debounce: { key: byTenant, period: { seconds: 5 } },
      singleton: { key: byTenant, mode: 'skip' },
    });
    const a1 = await w.start({ tenant: 'a', id: 'a1' });
    const a2 = await w.start({ tenant: 'a', id: 'a2' });
    await w.advanceTo(T0 + 5_000);
    expect(await w.statuses([a1, a2])).toEqual(['CANCELLED', 'RUNNING']);
    await w.advanceTo(T0 + 20_000);
    const a3 = await w.start({ tenant: 'a', id: 'a3' });
    await w.advanceTo(T0 + 30_000);
    // a3's window fired while a2 still runs: the singleton skips it.
    expect(await w.statuses([a2, a3])).toEqual(['RUNNING', 'CANCELLED']);
    expect((await w.run(a3))?.error?.ErrorCode).toBe('singleton_running');
  });

  it('a concurrency queue is taken and left (its entries deleted) within the grant', async () => {
    const w = await world({ concurrency: { key: byTenant, limit: 1 } });
    const a1 = await w.start({ tenant: 'a', id: 'a1' });
    const a2 = await w.start({ tenant: 'a', id: 'a2' });
    expect(await w.statuses([a1, a2])).toEqual(['RUNNING', 'QUEUED']);
    await w.finish(a1);
    expect(await w.statuses([a1, a2])).toEqual(['SUCCEEDED', 'RUNNING']);
    const a3 = await w.start({ tenant: 'a', id: 'a3' });
    expect(await w.statuses([a3])).toEqual(['QUEUED']);
    expect(used).toContain('dynamodb:DeleteItem');
  });
});
