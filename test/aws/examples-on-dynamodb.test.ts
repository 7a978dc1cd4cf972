import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDurableTable, DynamoDbStore } from '@durable-lambda/aws';
import type { DurableLambdaHandler } from '@durable-lambda/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeApprovalServices, sampleRequest } from '../../examples/approval/fakes';
import { createApprovalHandler } from '../../examples/approval/handler';
import { fakeCheckoutServices, sampleOrder } from '../../examples/checkout/fakes';
import { createCheckoutHandler } from '../../examples/checkout/handler';
import { fakeInvoiceServices, sampleCustomers } from '../../examples/fan-out/fakes';
import { createFanOutHandler } from '../../examples/fan-out/handler';
import { fakeOrderSagaServices, sampleOrder as sampleSagaOrder } from '../../examples/order-saga/fakes';
import { createOrderSagaHandler } from '../../examples/order-saga/handler';
import { createPaymentsHandler } from '../../examples/order-saga/payments';
import { fakeReminderServices } from '../../examples/reminder/fakes';
import { createReminderHandler } from '../../examples/reminder/handler';
import { fakeTrialServices } from '../../examples/trial/fakes';
import { createTrialHandler, samples as trialSamples } from '../../examples/trial/handler';
import { dynamoDbLocalEndpoint, localDocumentClient, uniqueTableName } from '../support/dynamodb-local';
import { StoreDriver } from '../support/store-driver';

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

describe('the examples, end to end on the DynamoDB store', () => {
  it('checkout: charges with a 429 backoff, waits out the window, confirms', async () => {
    const fakes = fakeCheckoutServices();
    fakes.payments.respondWith({ status: 429, retryAfter: '7' });
    const driver = await driverFor('checkout', { checkout: createCheckoutHandler(fakes.services) });
    const runId = await driver.start('checkout', sampleOrder());
    const run = await driver.run(runId);
    expect(run.status).toBe('SUCCEEDED');
    expect(JSON.parse(run.result ?? '{}')).toMatchObject({ status: 'confirmed', chargeId: 'ch_1' });
    expect(fakes.payments.charges).toHaveLength(1);
    const charge = (await driver.engine.getOperations(runId)).find((o) => o.Name === 'charge-card');
    expect(charge?.StepDetails?.Attempt).toBe(2);
  });

  it('reminder: waits days between reminders and escalates', async () => {
    const fakes = fakeReminderServices();
    const driver = await driverFor('reminder', { reminder: createReminderHandler(fakes.services) });
    const runId = await driver.start('reminder', { userId: 'u-7', email: 'grace@example.com' });
    const run = await driver.run(runId);
    expect(run.status).toBe('SUCCEEDED');
    expect(JSON.parse(run.result ?? '{}')).toMatchObject({ outcome: 'escalated', remindersSent: 3 });
  });

  it('approval: a callback completed from outside resumes the run', async () => {
    const fakes = fakeApprovalServices();
    const driver = await driverFor('approval', { approval: createApprovalHandler(fakes.services) });
    const runId = await driver.start('approval', sampleRequest());
    expect((await driver.run(runId, { skipTime: false })).status).toBe('RUNNING');
    const callback = (await driver.engine.getOperations(runId)).find((o) => o.Type === 'CALLBACK');
    await driver.engine.sendCallbackSuccess(
      callback?.CallbackDetails?.CallbackId ?? '',
      JSON.stringify({ approvedBy: 'bo@example.com', comment: 'ok' }),
    );
    const run = await driver.run(runId);
    expect(run.status).toBe('SUCCEEDED');
    await expect(
      driver.engine.sendCallbackSuccess(callback?.CallbackDetails?.CallbackId ?? '', '{}'),
    ).rejects.toMatchObject({ code: 'callback_already_completed' });
  });

  it('fan-out: 100 items with bounded concurrency and tolerated failures', async () => {
    const fakes = fakeInvoiceServices(sampleCustomers(100));
    const driver = await driverFor('fanout', { fanout: createFanOutHandler(fakes.services) });
    const runId = await driver.start('fanout', { period: '2025-04' });
    const run = await driver.run(runId);
    expect(run.status).toBe('SUCCEEDED');
    expect(fakes.invoices.peakInFlight).toBeGreaterThan(1);
    expect(fakes.invoices.peakInFlight).toBeLessThanOrEqual(10);
    const items = (await driver.engine.getOperations(runId)).filter((o) => o.SubType === 'MapIteration');
    expect(items).toHaveLength(100);
  }, 60_000);

  it('order saga: a failed invoke of the payments function runs the compensation', async () => {
    const fakes = fakeOrderSagaServices();
    fakes.gateway.decline('insufficient funds');
    const driver = await driverFor('saga', {
      saga: createOrderSagaHandler(fakes.services),
      payments: createPaymentsHandler(fakes.paymentServices),
    });
    const runId = await driver.start('saga', sampleSagaOrder());
    const run = await driver.run(runId);
    expect(run.status).toBe('SUCCEEDED');
    expect(JSON.parse(run.result ?? '{}')).toMatchObject({
      status: 'cancelled',
      paymentError: { code: 'payment_declined' },
    });
    const reservation = [...fakes.inventory.reservations.values()][0];
    expect(reservation?.released).toBe(true);
  });

  it('trial: found by its customer tag while it waits; the upgrade signal ends it paid', async () => {
    const fakes = fakeTrialServices();
    const driver = await driverFor('trial', { trial: createTrialHandler(fakes.services) });
    const runId = await driver.start('trial', trialSamples[0]?.input);
    expect((await driver.run(runId, { skipTime: false })).status).toBe('RUNNING');
    const found = await driver.engine.listRuns({ tags: { customer: 'cus-42' } });
    expect(found.runs.map((r) => r.runId)).toEqual([runId]);
    expect(found.runs[0]?.tags).toEqual({ customer: 'cus-42', plan: 'team' });
    expect(JSON.parse(found.runs[0]?.published?.state ?? '{}')).toMatchObject({ stage: 'trial' });

    await driver.engine.sendSignal(runId, 'upgraded', JSON.stringify({ plan: 'pro' }));
    const run = await driver.run(runId);
    expect(run.status).toBe('SUCCEEDED');
    expect(JSON.parse(run.result ?? '{}')).toMatchObject({ outcome: 'upgraded', plan: 'pro' });
    expect(JSON.parse(run.published?.state ?? '{}')).toEqual({ stage: 'paid', plan: 'pro' });
    expect((await driver.engine.listRuns({ tags: { plan: 'pro' } })).runs.map((r) => r.runId)).toEqual([runId]);
    expect(fakes.billing.endedTrials).toEqual([]);
  });
});
