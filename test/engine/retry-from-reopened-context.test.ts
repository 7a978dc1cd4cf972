/**
 * A retry from a step inside a finished child context, on every store: the retry reopens the
 * context, so the next replay must load the steps before the retried one and return their stored
 * results; no step body is handed an idempotency key it was handed before (issue 22, found by the
 * chaos world's operator). On DynamoDB the context's record had moved out to an operation item
 * (finished entries spill when the run item grows) and the retry wrote it anew as an entry of the
 * run item: the replay's Query skipped the subtree of the old, finished item, so the steps before
 * the retried one were missing and ran again as attempt 1, under their old keys.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore } from '@durable-lambda/aws';
import { MemoryStore, type Store } from '@durable-lambda/engine';
import { SqliteStore, type VirtualClock } from '@durable-lambda/local';
import { NonRetriableError, withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import { RepairWorld } from '../support/repair-world';

let dynamo: DynamoDBDocumentClient | undefined;
const sqlite: SqliteStore[] = [];

beforeAll(async () => {
  dynamo = localDocumentClient(await dynamoDbLocalEndpoint());
}, 120_000);

afterAll(() => {
  dynamo?.destroy();
  for (const store of sqlite) store.close();
});

const STORES: Array<[string, (clock: VirtualClock) => Store | Promise<Store>]> = [
  ['MemoryStore', (clock) => new MemoryStore(clock)],
  [
    'SqliteStore',
    (clock) => {
      const store = new SqliteStore({ path: ':memory:', clock });
      sqlite.push(store);
      return store;
    },
  ],
  [
    'DynamoDbStore',
    async (clock) => {
      const client = dynamo;
      if (!client) throw new Error('DynamoDB Local is not up');
      const tableName = uniqueTableName('retry-map');
      await createDurableTable(client, tableName);
      return new DynamoDbStore({ client, tableName, clock });
    },
  ],
];

/**
 * Enough steps, and a context result big enough to be the largest entry, that DynamoDB's run item
 * moves the finished context and its steps out to operation items.
 */
const ITEMS = Array.from({ length: 10 }, (_, i) => i + 1);
const PADDING = 'x'.repeat(20);

describe.each(STORES)('%s: a retry from a step inside a finished child context', { timeout: 60_000 }, (_name, make) => {
  it('replays the steps before it and hands no step an idempotency key twice', async () => {
    const world = await RepairWorld.on(make);
    const keys: string[] = [];
    let gate = 0;
    world.register(
      'fn',
      withDurableExecution(async (_e, ctx) => {
        const squares = await ctx.runInChildContext('group', async (child) => {
          const out: string[] = [];
          for (const n of ITEMS) {
            out.push(
              await child.step(`sq-${n}`, async (step) => {
                keys.push(step.idempotencyKey);
                return `${n * n}:${PADDING}`;
              }),
            );
          }
          return { out, note: 'y'.repeat(600) };
        });
        await ctx.step('gate', async () => {
          gate += 1;
          if (gate === 1) throw new NonRetriableError('closed the first time');
        });
        return squares.out;
      }),
    );
    const runId = await world.start('fn');
    expect((await world.settle(runId)).status).toBe('FAILED');
    const ops = await world.store.loadOperations(runId);
    const ninth = ops.find((op) => op.Name === 'sq-9');
    expect(ninth?.Status).toBe('SUCCEEDED');
    await world.engine.retryRun(runId, { fromOperationId: ninth?.Id });
    const ended = await world.settle(runId);
    expect(ended).toMatchObject({
      status: 'SUCCEEDED',
      result: JSON.stringify(ITEMS.map((n) => `${n * n}:${PADDING}`)),
    });
    const twice = keys.filter((key, i) => keys.indexOf(key) !== i);
    expect(twice).toEqual([]);
    // Each step once, then the retried one and the one after it again (new attempts).
    expect(keys).toHaveLength(ITEMS.length + 2);
  });
});
