/**
 * On DynamoDB Local, through the engine: a run's published state (`ctx.publish`, issue 27) rides
 * with the run's checkpoints and the write that ends or suspends an invocation, in as many
 * DynamoDB writes as the same run without it, and reads back as the run's `published` field.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore } from '@durable-lambda/aws';
import { TestDriver } from '@durable-lambda/local';
import { type DurableContext, withDurableExecution } from '@durable-lambda/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../../support/dynamodb-local';

let client: DynamoDBDocumentClient;
let tableName = '';
/** Write requests the store's client made while counting. */
let writes = 0;
let counting = false;

beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const name = String(context.commandName ?? '');
      if (counting && /^(Put|Update|Delete|TransactWrite|BatchWrite)/.test(name)) writes += 1;
      return result;
    },
    { step: 'initialize', name: 'count-writes' },
  );
  tableName = uniqueTableName('published');
  await createDurableTable(client, tableName);
});

async function drive(publish: boolean) {
  const handler = withDurableExecution(async (_event, ctx: DurableContext) => {
    if (publish) await ctx.publish({ stage: 'reserving' });
    await ctx.step('reserve', async () => 'r');
    if (publish) await ctx.publish({ stage: 'paused', note: 'ü'.repeat(100) });
    await ctx.wait('pause', { seconds: 30 });
    if (publish) await ctx.publish({ stage: 'done' });
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
  writes = 0;
  counting = true;
  const run = await driver.start('fn', {});
  const ended = await driver.runUntilDone(run.runId);
  counting = false;
  return { ended, writes, read: await store?.getRun(run.runId) };
}

describe('published state on DynamoDB Local, through the engine', () => {
  it('is stored with the writes the run makes anyway, and read back whole', async () => {
    const without = await drive(false);
    const withPublish = await drive(true);
    expect(withPublish.ended.status).toBe('SUCCEEDED');
    // The count is of real requests: the run's own writes (start, leases, checkpoints, ends).
    expect(without.writes).toBeGreaterThan(3);
    expect(withPublish.writes).toBe(without.writes);
    expect(without.read?.published).toBeUndefined();
    expect(withPublish.read?.published).toMatchObject({ state: JSON.stringify({ stage: 'done' }), seq: 3 });
  });
});
