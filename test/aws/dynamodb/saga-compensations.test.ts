/**
 * Sagas (issue 27) on DynamoDB Local through the engine: the order saga whose payment fails for
 * good releases its reservation once before the run fails, and a saga of three undos (one that
 * keeps failing) runs them last step first; the control API's compensations route, reading the
 * DynamoDB store, reports each one and what the run's error says was undone.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createControlApi, DurableClient, toNodeListener } from '@durable-lambda/api';
import { createDurableTable, DynamoDbStore } from '@durable-lambda/aws';
import { type DurableContext, type DurableLambdaHandler, withDurableExecution } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeOrderSagaServices, sampleOrder } from '../../../examples/order-saga/fakes';
import { createOrderSagaHandler } from '../../../examples/order-saga/handler';
import { createPaymentsHandler } from '../../../examples/order-saga/payments';
import { listen } from '../../api/support';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../../support/dynamodb-local';
import { StoreDriver } from '../../support/store-driver';

let client: DynamoDBDocumentClient;

beforeAll(async () => {
  client = localDocumentClient(await dynamoDbLocalEndpoint());
}, 60_000);

afterAll(() => client?.destroy());

async function driverFor(name: string, functions: Record<string, DurableLambdaHandler>): Promise<StoreDriver> {
  const tableName = uniqueTableName(name);
  await createDurableTable(client, tableName);
  return new StoreDriver((clock) => new DynamoDbStore({ client, tableName, clock }), functions);
}

/** The control API over the driver's engine (and so its DynamoDB table), for one test. */
async function apiOver(driver: StoreDriver, functions: string[]) {
  const server = await listen(toNodeListener(createControlApi({ engine: driver.engine, functions })));
  return { api: new DurableClient({ baseUrl: server.url, backoffMs: 1 }), close: server.close };
}

describe('sagas on DynamoDB Local', { timeout: 60_000 }, () => {
  it('order saga: a payment failed for good releases the reservation once, then the run fails', async () => {
    const fakes = fakeOrderSagaServices();
    fakes.gateway.outageFor('cus-42');
    const driver = await driverFor('saga-outage', {
      saga: createOrderSagaHandler(fakes.services),
      payments: createPaymentsHandler(fakes.paymentServices),
    });
    const runId = await driver.start('saga', sampleOrder());
    const run = await driver.run(runId);
    expect(run.status).toBe('FAILED');
    expect(JSON.parse(run.error?.ErrorData ?? '{}')).toEqual({ compensated: ['reserve-inventory'], failed: [] });
    expect(fakes.inventory.releaseCalls).toEqual(['res_order-2001']);

    const { api, close } = await apiOver(driver, ['saga', 'payments']);
    try {
      const c = await api.getCompensations(runId);
      expect(c.registered).toEqual([{ stepId: '2', step: 'reserve-inventory' }]);
      expect(c.rounds.map((r) => r.compensations.map((x) => [x.step, x.status, x.attempts]))).toEqual([
        [['reserve-inventory', 'succeeded', 1]],
      ]);
      expect(c.summary).toEqual({ compensated: ['reserve-inventory'], failed: [] });
    } finally {
      await close();
    }
  });

  it('undoes three steps last first, one failing after its retries, and reports each', async () => {
    const undone: string[] = [];
    const undo = (name: string) => async () => {
      undone.push(name);
      if (name === 'b') throw new Error('b cannot be undone');
    };
    const saga = withDurableExecution(async (_e: unknown, ctx: DurableContext) => {
      for (const name of ['a', 'b', 'c']) {
        await ctx.step(name, async () => name, {
          compensate: { run: undo(name), retry: { maxAttempts: 3, initialMs: 1_000 } },
        });
      }
      throw new Error('give up');
    });
    const driver = await driverFor('saga-three', { saga });
    const runId = await driver.start('saga');
    const run = await driver.run(runId);
    expect(run.status).toBe('FAILED');
    expect(undone).toEqual(['c', 'b', 'b', 'b', 'a']);

    const { api, close } = await apiOver(driver, ['saga']);
    try {
      const c = await api.getCompensations(runId);
      expect(c.rounds[0]?.compensations.map((x) => [x.step, x.status, x.attempts])).toEqual([
        ['c', 'succeeded', 1],
        ['b', 'failed', 3],
        ['a', 'succeeded', 1],
      ]);
      expect(c.summary).toEqual({ compensated: ['c', 'a'], failed: [{ step: 'b', error: 'b cannot be undone' }] });
    } finally {
      await close();
    }
  });
});
