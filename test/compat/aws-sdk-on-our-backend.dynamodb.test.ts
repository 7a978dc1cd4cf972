import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore } from '@durable-lambda/aws';
import { TestDriver } from '@durable-lambda/local';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AwsDurableSdk, importAwsSdk } from '../support/aws-sdk';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';

/**
 * AWS's own SDK on our DynamoDB backend (DynamoDB Local): a handler wrapped by AWS's
 * `withDurableExecution`, unchanged, checkpoints through our transport into `DynamoDbStore`, and is
 * driven as on Lambda: by wake-ups from a queue in virtual time and by the engine's reconciler.
 */

let client: DynamoDBDocumentClient;
let aws: AwsDurableSdk;

beforeAll(async () => {
  aws = await importAwsSdk();
  client = localDocumentClient(await dynamoDbLocalEndpoint());
}, 60_000);

afterAll(() => client?.destroy());

async function eventually<T>(read: () => T | undefined): Promise<T> {
  for (let i = 0; i < 4000; i++) {
    const value = read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('value never came');
}

describe("AWS's SDK on our DynamoDB Local backend", () => {
  it('completes a run with a wait, a retry and a callback', async () => {
    const tableName = uniqueTableName('aws-sdk');
    await createDurableTable(client, tableName);
    let attempts = 0;
    let callbackId: string | undefined;
    const handler = aws.withDurableExecution(async (event: { order: string }, ctx) => {
      const charged = await ctx.step(
        'charge',
        async () => {
          attempts += 1;
          if (attempts === 1) throw new Error('card network busy');
          return `charged ${event.order}`;
        },
        { retryStrategy: (_error, attempt) => ({ shouldRetry: attempt < 3, delay: { seconds: 20 } }) },
      );
      await ctx.wait('cool-off', { hours: 1 });
      const approval = await ctx.waitForCallback<string>('approval', async (id) => {
        callbackId = id;
      });
      const packed = await ctx.map('pack', ['a', 'b'], async (child, item) =>
        child.step(`pack-${item}`, async () => item),
      );
      return { charged, approval, packed: packed.getResults() };
    });
    const driver = new TestDriver(
      { shop: handler },
      { store: (clock) => new DynamoDbStore({ client, tableName, clock }), startTime: Date.UTC(2026, 0, 1) },
    );
    const run = await driver.start('shop', { order: 'o-1' });
    const done = driver.runUntilDone(run.runId);
    await driver.sendCallbackSuccess(await eventually(() => callbackId), 'ok');
    const ended = await done;

    expect(ended.status).toBe('SUCCEEDED');
    expect(JSON.parse(ended.result ?? 'null')).toEqual({ charged: 'charged o-1', approval: 'ok', packed: ['a', 'b'] });
    expect(attempts).toBe(2);
    const stored = await driver.store.loadOperations(run.runId);
    const byName = (name: string) => stored.find((op) => op.Name === name);
    expect(byName('charge')?.StepDetails?.FailedAttempts?.map((f) => f.Error.ErrorMessage)).toEqual([
      'card network busy',
    ]);
    expect(byName('cool-off')?.Status).toBe('SUCCEEDED');
    expect(byName('approval')?.Status).toBe('SUCCEEDED');
    // The wait really held the run for its hour of (virtual) time.
    const wait = byName('cool-off');
    expect((wait?.EndTimestamp ?? 0) - (wait?.StartTimestamp ?? 0)).toBeGreaterThanOrEqual(3_600_000);
    expect(driver.invocationFailures).toEqual([]);
  }, 60_000);

  it('finishes a run that invokes another function and runs a child context, under injected faults', async () => {
    const tableName = uniqueTableName('aws-sdk-faults');
    await createDurableTable(client, tableName);
    const child = aws.withDurableExecution(async (event: { x: number }, ctx) => {
      await ctx.wait({ minutes: 3 });
      return ctx.step('triple', async () => event.x * 3);
    });
    const parent = aws.withDurableExecution(async (event: { x: number }, ctx) => {
      const tripled = await ctx.invoke<{ x: number }, number>('call-child', 'child', { x: event.x });
      const inner = await ctx.runInChildContext('inner', async (c) => {
        await c.wait({ seconds: 30 });
        return c.step('plus', async () => tripled + 1);
      });
      return { tripled, inner };
    });
    const driver = new TestDriver(
      { parent, child },
      {
        store: (clock) => new DynamoDbStore({ client, tableName, clock }),
        faults: { seed: 2026, defaultProbability: 0.06 },
        startTime: Date.UTC(2026, 0, 1),
      },
    );
    const run = await driver.start('parent', { x: 5 });
    const ended = await driver.runUntilDone(run.runId);

    expect([ended.status, JSON.parse(ended.result ?? 'null')]).toEqual(['SUCCEEDED', { tripled: 15, inner: 16 }]);
    expect(driver.runIds()).toHaveLength(2);
    expect(driver.faults.length).toBeGreaterThan(0);
  }, 90_000);
});
